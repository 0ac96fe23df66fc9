"""The settings of ``ctxsim claims --posterior`` (issue 30, items 3-5): the sizes of
the ABC-SMC fit of the world to the baselines' numbers and of the predictive draws
(the arithmetic of their cost is in ``experiments.claims.posterior``), the
executor and the seed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from experiments.arguments import nonnegative_int, positive_int, scheduler_address
from experiments.settings import Settings, register, setting
from experiments.settings import kinds as k


@register
@dataclass(frozen=True)
class PosteriorSettings(Settings):
    """The design of the fit (ABC-SMC, pyabc) and of the predictive check."""

    NAME: ClassVar[str] = "posterior"
    HEADER: ClassVar[str] = """\
Designs of `ctxsim claims --posterior` (issue 30): the sizes and their cost are in
experiments/claims/posterior/__init__.py. [quick] (used with --quick) overrides some
keys of [default]; command-line options win over both, and over a --config FILE."""

    population: int = setting(60, k.COUNT, "ABC-SMC population size: particles kept "
                              "per generation ({default})", quick=12, metavar="N",
                              parse=positive_int, note="ABC-SMC particles per generation")
    generations: int = setting(4, k.COUNT, "ABC-SMC generations at most ({default})",
                               quick=2, metavar="G", parse=positive_int,
                               note="ABC-SMC generations at most")
    # a budget, not a cap: pyabc checks it between generations, and its calibration
    # population (``population`` simulations) comes on top (480 ran 555)
    simulations: int = setting(480, k.COUNT, "the fit's simulation budget over its "
                               "generations: the run stops after the generation that "
                               "reaches it, so it makes somewhat more, plus one "
                               "calibration population ({default})", quick=48,
                               metavar="S", parse=positive_int,
                               note="fit simulation budget (the last generation may "
                               "pass it; calibration on top)")
    # 75: LOCA-Bench's suite size, on which the paper measured the baselines: a
    # simulation at the paper's sample size carries the paper's sampling noise, so
    # ABC's acceptance compares like with like (fewer tasks would widen the posterior)
    suite_tasks: int = setting(75, k.COUNT, "LOCA-like tasks per fit simulation and per "
                         "predictive draw ({default})", quick=6, metavar="N",
                         parse=positive_int, note="LOCA-like tasks per simulation "
                         "(75: the paper's suite, so its sampling noise is the paper's)")
    predict_queries: int = setting(20, k.COUNT, "BrowseComp-like queries at W = 12K per "
                           "predictive draw ({default})", quick=3, metavar="N",
                           parse=positive_int, note="BrowseComp-like queries at W = 12K "
                           "per predictive draw")
    draws: int = setting(30, k.COUNT, "predictive draws from the posterior, and as many "
                         "from the prior ({default})", quick=4, metavar="D",
                         parse=positive_int, note="predictive draws (posterior; as many "
                         "from the prior)")
    jobs: int = setting(1, None, "worker processes on this machine (default: 1)",
                        toml=False, parse=positive_int)
    scheduler: str | None = setting(None, None, "run on a Dask distributed cluster, e.g. "
                                    "tcp://host:8786 (default: none, --jobs decides)",
                                    toml=False, parse=scheduler_address, metavar="ADDRESS")
    seed: int = setting(0, None, "seeds the fit, the tasks and the draws (default: 0)",
                        toml=False, parse=nonnegative_int)
    quick: bool = setting(False, None, "a small, fast posterior (explicit options still "
                          "win; default: off, the full design)", toml=False, option=None)

    @classmethod
    def add_arguments(cls, parser, only=None) -> None:
        """``--posterior``'s sizes and executor (``--quick``, ``--config``,
        ``--jobs``, ``--scheduler``, ``--seed`` and ``--no-progress`` are the
        robustness group's, shared)."""
        names = [f.name for f, _ in cls.specs()
                 if f.name not in ("jobs", "scheduler", "seed", "quick")]
        super().add_arguments(parser, names if only is None else only)

    @classmethod
    def finish(cls, values: dict, args) -> dict:
        """``--quick`` from the parser; the executor chosen once.

        Raises:
            UsageError: ``--jobs`` other than 1 with ``--scheduler`` (exit 2).
        """
        from experiments.settings.robustness import one_executor

        one_executor(values, cls.default_of("jobs"))
        values["quick"] = bool(getattr(args, "quick", False))
        return values

    def extra_record(self) -> dict:
        from experiments.sweep import executor_name

        return {"executor": executor_name(self.jobs, self.scheduler)}

"""The settings of ``ctxsim claims --robustness`` (issue 18): the design sizes
(TOML keys; the arithmetic of their cost is in
:mod:`experiments.claims.robustness`) and the run's claims, parameters, executor and
seed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from experiments.arguments import nonnegative_int, positive_int, scheduler_address
from experiments.settings import Settings, register, setting
from experiments.settings import kinds as k
from experiments.settings.checks import Check, ListOf


def _power_of_two(text):
    from experiments.claims.robustness.run import power_of_two

    return power_of_two(text)


_SAMPLES = Check("0 or a power of two >= 2", lambda v: isinstance(v, int)
                 and not isinstance(v, bool) and v != 1 and v >= 0 and not v & (v - 1),
                 parse=_power_of_two)


def one_executor(values: dict, default_jobs: int) -> None:
    """Refuse ``--jobs`` other than its default together with ``--scheduler``: both
    choose where the jobs run (the robustness and posterior analyses, which share the
    executor options).

    Raises:
        UsageError: naming both values (exit 2).
    """
    from experiments.arguments import UsageError

    if values["scheduler"] and values["jobs"] != default_jobs:
        raise UsageError(f"--jobs {values['jobs']} and --scheduler "
                         f"{values['scheduler']!r} both choose where the jobs run; "
                         "give one")


@register
@dataclass(frozen=True)
class RobustnessSettings(Settings):
    """The design of the global sensitivity analysis over the world's priors."""

    NAME: ClassVar[str] = "robustness"
    HEADER: ClassVar[str] = """\
Designs of `ctxsim claims --robustness` (issue 18): the sizes and their cost are in
experiments/claims/robustness/__init__.py. [quick] (used with --quick) overrides some
keys of [default]; command-line options win over both, and over a --config FILE."""

    # 0 (issue 30): the Sobol' indices come from each effect's metamodel, fitted to
    # the Morris points (robustness.metamodel.sobol_indices), so no episode is
    # played for them; a simulated Sobol' stage of N = 32 cost 192 of the 445
    # points (43% of the run) and gave ST intervals of +-0.2-0.35
    samples: int = setting(0, _SAMPLES, "Sobol' stage: 0 (none: the indices come "
                           "from each effect's metamodel) or a base sample N, a power "
                           "of two: N x (screened + 3) more world points ({default})",
                           quick=0, metavar="N", note="Sobol' stage: 0 (indices from the "
                           "metamodel) or a base sample N (a power of two): N x "
                           "(screen + 3) points")
    # 3 (issue 30): measured at this commit's episode core on the 2-core machine,
    # a world point of the default design costs 9.9 s of wall with --jobs 2 (43
    # points, R = 1: 511 s, 85 s of it the 20 metamodels); R = 3 is 127 points,
    # about 21 min of episodes and 3-4 of metamodels, inside the 30-minute budget;
    # R = 4 (169 points) would be about 31 min
    trajectories: int = setting(3, k.COUNT, "Morris trajectories: R x (parameters + 1) "
                                "world points ({default})", quick=2, metavar="R",
                                parse=positive_int, note="Morris trajectories R: "
                                "R x (parameters + 1) world points")
    screen: int = setting(3, k.COUNT, "parameters kept for a Sobol' stage (with "
                          "--samples N; {default})", metavar="M", parse=positive_int,
                          note="parameters kept for a Sobol' stage (--samples N)")
    # 45 (issue 30): at the defaults the per-point SE of the accuracy effects is
    # 4.3-6.2 points at 45 tasks (measured with robustness.effects on one design
    # seed: Fig4-128K 4.3, Fig8a-no-dashboard 4.5, Fig8a-fixed-archive 6.2), a
    # third of the ablation gaps the paper reports (13-15 points) and a sixth of
    # Fig. 4's 28: one point speaks to the sign, and the metamodel pools the
    # neighbours; at 15 tasks (x sqrt 3) it would be 7.4-10.7, as large as the gaps
    tasks: int = setting(45, k.COUNT, "LOCA-like tasks per world point ({default})",
                         quick=5, metavar="N", parse=positive_int,
                         note="LOCA-like tasks per world point (each family 3 times): "
                         "per-point SE about a third of the paper's ablation gaps")
    queries: int = setting(6, k.COUNT, "BrowseComp-like queries per window per world "
                           "point ({default})", quick=4, metavar="N", parse=positive_int,
                           note="BrowseComp-like queries per window per world point")
    windows: tuple[int, ...] = setting(
        (4_000, 8_000, 12_000, 16_000, 32_000, 64_000), ListOf(k.TOKENS),
        "windows W, tokens", option=None, quick=(4_000, 12_000, 64_000), unit="tokens",
        note="windows W, tokens")
    claims: tuple[str, ...] | None = setting(
        None, None, "the claims to analyse (default: every agent-level claim, those of "
        "the pressure, window, ablations and cost sweeps)", toml=False, metavar="ID",
        argparse={"nargs": "+"})
    params: tuple[str, ...] | None = setting(
        None, None, "the world parameters to vary (default: every parameter of `ctxsim "
        "world`; the others stay at their defaults)", toml=False, metavar="NAME",
        argparse={"nargs": "+"})
    jobs: int = setting(1, None, "worker processes on this machine (default: 1)",
                        toml=False, parse=positive_int)
    scheduler: str | None = setting(None, None, "run on a Dask distributed cluster, e.g. "
                                    "tcp://host:8786 (default: none, --jobs decides)",
                                    toml=False, parse=scheduler_address, metavar="ADDRESS")
    seed: int = setting(0, None, "seeds the designs, the tasks and the agent draws "
                        "(default: 0)", toml=False, parse=nonnegative_int)
    quick: bool = setting(False, None, "a small, fast robustness design (explicit "
                          "options still win; default: off, the full design)",
                          toml=False, option=None)

    @classmethod
    def add_arguments(cls, parser, only=None) -> None:
        """``--robustness``'s group: ``--config``, ``--quick``, the sizes, then the
        rest (``--no-progress`` last)."""
        from experiments.arguments import add_no_progress
        from experiments.config import add_config_argument

        add_config_argument(parser, cls.NAME)
        parser.add_argument("--quick", action="store_true", help=(
            "a small, fast robustness design (explicit options still win; default: "
            "off, the full design)"))
        super().add_arguments(parser, only)
        add_no_progress(parser)

    @classmethod
    def finish(cls, values: dict, args) -> dict:
        """``--quick`` from the parser; the executor chosen once.

        Raises:
            UsageError: ``--jobs`` other than 1 with ``--scheduler`` (exit 2).
        """
        one_executor(values, cls.default_of("jobs"))
        values["quick"] = bool(getattr(args, "quick", False))
        return values

    def extra_record(self) -> dict:
        from experiments.sweep import executor_name

        return {"executor": executor_name(self.jobs, self.scheduler)}

"""The settings every agent-level sweep shares (VISTA §3.3-§3.7): where the jobs
run, the sweep seed, the agent (profile, world point, plugin) and the bounded
ledger's cap, as the base class :class:`SweepSettings`; and the LOCA-like task
fields (budget, families, seeds, growth, programs) as field factories, so each
sweep declares its own defaults and ``--quick`` values once.

:meth:`SweepSettings.finish` holds the rules ``sweep_config`` held: ``--world``
replaces a named profile, ``--agent llm`` is pressure's alone, ``--jobs`` and
``--scheduler`` exclude each other, ``--profile calibrated`` and
``--calibrated-row`` read the calibration (figures/calibration.json), ``--profile
posterior`` the fit of ``ctxsim claims --posterior`` (figures/posterior.json).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from experiments.arguments import (MAX_TOKENS, PLUGIN_HELP, TOKENS_HELP, Distinct,
                                   name_of, nonnegative_int, positive_int,
                                   scheduler_address)
from experiments.settings import Settings, setting
from experiments.settings import kinds as k
from experiments.settings.checks import ListOf

#: the profile name of the synthetic agent at the real model's measured values
CALIBRATED = "calibrated"
#: the profile name of the world at the posterior medians given the baselines
#: (experiments.claims.posterior.profile.POSTERIOR)
POSTERIOR = "posterior"
#: profiles read from a file in figures/, which --world values may amend
FITTED = (CALIBRATED, POSTERIOR)
#: the agent profile of a sweep given neither --profile nor --world
DEFAULT_PROFILE = "medium"
#: the bounded-ledger dashboard's token cap of a sweep without --dashboard-tokens
DASHBOARD_TOKENS = 400
#: the ``--agent`` of ``ctxsim run pressure`` that runs its real-model variant
LLM_AGENT = "llm"


def _profile_choices():
    from sim.agents.profiles import PROFILES

    return sorted(PROFILES) + list(FITTED)


def is_profile_file(text) -> bool:
    """Whether ``--profile`` names a file (a calibration sidecar of ``ctxsim run
    calibrate``, e.g. against a user's own model) rather than a profile."""
    import pathlib

    return (isinstance(text, str) and text not in _profile_choices()
            and pathlib.Path(text).is_file())


class _LazyChoices:
    """argparse ``choices`` read when a value is checked (the profile registry, or
    an existing calibration file)."""

    def __contains__(self, item) -> bool:
        return item in _profile_choices() or is_profile_file(item)

    def __iter__(self):
        return iter(_profile_choices())


def _profile_help() -> str:
    from sim.agents.profiles import PROFILES

    return (f"synthetic agent profile, one of {', '.join(PROFILES)}, {CALIBRATED} "
            "(the world at the real model's measured values, figures/calibration.json, "
            "as measured, a value outside its prior included; `ctxsim run calibrate`), "
            "FILE (the same from a calibration.json that `ctxsim run calibrate --base-url "
            f"URL --model NAME --out DIR` wrote for another model) or {POSTERIOR} (the "
            "world at the posterior medians given the baselines' numbers, "
            "figures/posterior.json; `ctxsim claims --posterior`) (default: "
            f"{DEFAULT_PROFILE}; a named profile is not taken with --world; "
            f"{CALIBRATED}, FILE and {POSTERIOR} are: --world sets the parameters "
            f"{CALIBRATED} did not measure, and replaces {POSTERIOR}'s medians)")


def world_value(text: str) -> tuple[str, float]:
    """An argparse ``type``: ``NAME=VALUE`` for a parameter of :data:`sim.world.TABLE`
    inside its prior range."""
    import argparse

    from sim.world import TABLE, world_at

    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    try:
        v = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {value!r} is not a number") from None
    if name not in TABLE:
        raise argparse.ArgumentTypeError(f"{name!r} is not a world parameter "
                                         "(see `ctxsim world`)")
    try:
        world_at({name: v})
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name, v


def sweep_agent(text: str) -> str:
    """The ``--agent`` converter: ``llm`` (pressure's real-model variant, refused by
    the other sweeps in :meth:`SweepSettings.finish`) or
    :func:`~experiments.arguments.agent_spec`."""
    from experiments.arguments import agent_spec

    return text if text == LLM_AGENT else agent_spec(text)


def dashboard_cap(text: str) -> int:
    """The ``--dashboard-tokens`` converter: a token count (:func:`parse_tokens`) at
    least the bounded ledger's minimum (its budget bar and remainder line), a smaller
    one worded as the dashboard words it
    (:func:`~sim.workspace.bounded_ledger.cap_too_small`)."""
    import argparse

    from experiments.arguments import TOKEN_FORMS, parse_tokens
    from sim.workspace.bounded_ledger import BoundedLedgerDashboard, cap_too_small
    from sim.workspace.tokenizer import get_tokenizer

    need = BoundedLedgerDashboard.minimum_cap(get_tokenizer("cl100k_base"))
    try:
        cap = parse_tokens(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a dashboard token cap of at least "
                                         f"{need} tokens (written {TOKEN_FORMS}), "
                                         f"got {text!r}") from None
    if cap < need:
        raise argparse.ArgumentTypeError(cap_too_small(cap, need))
    return cap


def program_names() -> list[str]:
    """Every program name :func:`sim.policies.make_program` accepts without a
    ``MODULE:CLASS`` spec (built-ins, registered and entry-point plugins)."""
    from sim.plugins import program_names as names

    return names()


@dataclass(frozen=True)
class SweepSettings(Settings):
    """The options of every agent-level sweep (``ctxsim run pressure|window|
    ablations|cost``); none is a TOML key. ``calibration``: the calibrated point
    read for ``--profile calibrated`` / ``--calibrated-row`` (not an option)."""

    jobs: int = setting(1, None, "worker processes on this machine (default: 1)",
                        toml=False, parse=positive_int)
    scheduler: str | None = setting(
        None, None, "run the jobs on a Dask distributed cluster, e.g. tcp://host:8786 "
        "(needs the [dask] extra and ctxsim on the workers; default: none, --jobs "
        "decides)", toml=False, parse=scheduler_address, metavar="ADDRESS")
    seed: int = setting(0, None, "base random seed of the sweep: changes every task "
                        "instance and agent draw (default: 0); not to be confused with "
                        "--seeds, the number of task seeds per family/query", toml=False,
                        parse=nonnegative_int)
    profile: str | None = setting(DEFAULT_PROFILE, None, _profile_help, toml=False,
                                  metavar="PROFILE", choices=_LazyChoices(),
                                  argparse={"default": None})
    calibrated_row: tuple[str, ...] | None = setting(
        None, None, f"also run these programs (none named: vista) with the agent at "
        f"the {CALIBRATED} point; their rows are labelled PROGRAM@{CALIBRATED} "
        "(default: off)", toml=False, metavar="PROGRAM",
        argparse={"nargs": "*", "action": Distinct})
    # a parameter named twice is refused: the last value would silently win
    world: tuple[tuple[str, float], ...] = setting(
        (), None, "a point of the synthetic world's table (`ctxsim world`), e.g. "
        "agent.p_index=0.3 task.size_sd=2; replaces --profile (default: none, the "
        "profile's values)", toml=False, metavar="NAME=VALUE", parse=world_value,
        argparse={"nargs": "+", "action": Distinct, "key": name_of, "default": None})
    agent: str = setting("synthetic", None, "synthetic (the default: the --profile's "
                         "synthetic agent), a registered agent or a plugin MODULE:CLASS "
                         "on PYTHONPATH (called with the --profile's Profile once per "
                         "episode; docs: Plugins); `ctxsim run pressure --agent llm`: "
                         "the small real-model sweep", toml=False, parse=sweep_agent,
                         metavar="AGENT")
    dashboard_tokens: int = setting(
        DASHBOARD_TOKENS, None, "token cap of the bounded-ledger dashboard (programs "
        f"such as vista_bounded_ledger; {TOKENS_HELP}; default: {DASHBOARD_TOKENS})",
        toml=False, parse=dashboard_cap, metavar="TOKENS")
    #: not an option: the calibrated point (values, notes) when asked for
    calibration: dict | None = field(default=None, compare=False)
    #: not an option: the posterior point (values, notes) for --profile posterior
    posterior: dict | None = field(default=None, compare=False)

    #: the options of the sweep base, in their --help order (then the experiment's)
    COMMON: ClassVar[tuple[str, ...]] = ("jobs", "scheduler", "seed", "profile",
                                         "calibrated_row", "world", "agent",
                                         "dashboard_tokens")

    @classmethod
    def add_arguments(cls, parser, only=None) -> None:
        """The run options, the sweep options (:data:`COMMON`), then the
        experiment's own fields."""
        if only is not None:
            return super().add_arguments(parser, only)
        cls.add_run_arguments(parser)
        mine = [f.name for f, _ in cls.specs() if f.name not in cls.COMMON]
        super().add_arguments(parser, list(cls.COMMON) + mine)

    @classmethod
    def finish(cls, values: dict, args) -> dict:
        """The rules between the sweep options (module docstring).

        Raises:
            UsageError: ``--profile`` with ``--world``, ``--agent llm`` outside
                pressure, ``--jobs`` other than 1 with ``--scheduler``.
        """
        from experiments.arguments import UsageError

        given_profile = getattr(args, "profile", None)
        profile_file = given_profile if is_profile_file(given_profile) else None
        world = dict(values.get("world") or ())
        if world and given_profile not in (None, *FITTED) and not profile_file:
            # --world replaces a named profile (the sidecar would record one not used)
            raise UsageError(f"--profile {given_profile} and --world both set the "
                             "agent; --world replaces the profile, give one")
        if values["agent"] == LLM_AGENT:  # pressure takes it before here
            raise UsageError("--agent llm: only `ctxsim run pressure` has a real-model "
                             "variant; expected synthetic or an agent plugin")
        if values["scheduler"] and values["jobs"] != cls.default_of("jobs"):
            raise UsageError(f"--jobs {values['jobs']} and --scheduler "
                             f"{values['scheduler']!r} both choose where the jobs run; "
                             "give one")
        # the record names the agent actually used: with --world (no --profile) the
        # world's values replace every profile, so no profile name is recorded (null)
        values["profile"] = given_profile or (None if world else DEFAULT_PROFILE)
        row = values.get("calibrated_row")
        measured = given_profile == CALIBRATED or profile_file is not None
        if measured or row is not None:
            from experiments.calibrated import (DEFAULT_PATH, beyond_prior,
                                                calibrated_values)

            try:
                calibrated, notes = calibrated_values(profile_file)
            except (FileNotFoundError, ValueError) as exc:
                raise UsageError(f"--profile {given_profile}: {exc}") from None
            if not calibrated:
                raise UsageError(f"--profile {given_profile}: "
                                 f"{profile_file or DEFAULT_PATH} measured no world "
                                 "parameter usably: " + "; ".join(notes))
            # the measured values outside their prior are used as measured; the
            # sweep's worlds are built with these names allowed beyond the prior
            values["calibration"] = {"values": calibrated, "notes": notes,
                                     "beyond_prior": list(beyond_prior(calibrated)),
                                     "path": str(profile_file or DEFAULT_PATH)}
            if measured:
                world = {**world, **calibrated}
            if row is not None:
                values["calibrated_row"] = list(row) or ["vista"]
        if given_profile == POSTERIOR:
            from experiments.claims.posterior.profile import posterior_values

            fitted, notes = posterior_values()
            values["posterior"] = {"values": fitted, "notes": notes}
            world = {**fitted, **world}   # a --world value amends the fitted point
        values["world"] = tuple(sorted(world.items()))
        return values

    @property
    def executor(self) -> str:
        """How the sweep runs (:func:`experiments.sweep.executor_name`)."""
        from experiments.sweep import executor_name

        return executor_name(self.jobs, self.scheduler)

    def extra_record(self) -> dict:
        out: dict[str, Any] = {"executor": self.executor, "world": dict(self.world)}
        if self.calibration is not None:
            out["calibration"] = self.calibration
        if self.posterior is not None:
            out["posterior"] = self.posterior
        return out


# -- LOCA-like task fields: one declaration of each, a default and quick per sweep ---

def budget(default: int = 128_000, **kw):
    """``budget``: the context budget B of every episode, tokens (VISTA §3.3: 128K)."""
    return setting(default, k.TOKENS, f"context budget B in tokens, 1..{MAX_TOKENS:,} "
                   f"({TOKENS_HELP}; {{default}})", unit="tokens", metavar="TOKENS",
                   note="context budget B, tokens", source="VISTA §3.3", **kw)


def families(default: int | None = None, **kw):
    """``families``: LOCA-like task families (default: every one of
    :data:`sim.tasks.loca.FAMILIES`, LOCA-Bench's 15, VISTA §3.3)."""
    from sim.tasks.loca import FAMILIES

    default = len(FAMILIES) if default is None else default
    def help_() -> str:
        from sim.tasks.loca import FAMILIES

        return f"LOCA-like task families, 1..{len(FAMILIES)} ({{default}})"
    return setting(default, k.families, help_, metavar="N",
                   note="LOCA-like task families, 1..15", source="VISTA §3.3", **kw)


def seeds(default: int | None = None, per: str = "family", **kw):
    """``seeds``: task instances per family (default:
    :data:`sim.tasks.loca.SEEDS_PER_FAMILY`, 5: 75 tasks, VISTA §3.3) or per query."""
    from sim.tasks.loca import SEEDS_PER_FAMILY

    default = SEEDS_PER_FAMILY if default is None else default
    return setting(default, k.COUNT, f"task seeds (instances) per {per}; see --seed for "
                   "the base random seed ({default})", metavar="N",
                   parse=positive_int, note=f"task instances per {per}", **kw)


def growth(default: int = 128_000, **kw):
    """``growth``: tool-result tokens per task at the sweep's one level."""
    return setting(default, k.GROWTH, "context growth: tool-result tokens per task, "
                   f"1,000..{MAX_TOKENS:,} ({TOKENS_HELP}; {{default}})", unit="tokens",
                   metavar="TOKENS", note="tool-result tokens per task", **kw)


def programs(default: tuple[str, ...], **kw):
    """``programs``: the context programs run on every task."""
    def help_() -> str:
        return (f"context programs to run ({{default}}); valid: "
                f"{', '.join(program_names())}, {PLUGIN_HELP}")
    return setting(default, ListOf(k.program), help_, metavar="PROGRAM", **kw)

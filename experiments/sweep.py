"""Shared sweep machinery: job specs, task-once-per-job execution, executors, progress.

A job is one task instance (generator, family/query, seed, level): it is generated
once in the worker and every program in the sweep runs on that same object, sharing
its content and pre-measured token counts. Jobs run in order on the calling process
(``--jobs 1``), on a ``ProcessPoolExecutor`` (``--jobs N``), on a Dask distributed
cluster (``--scheduler ADDRESS``, extra ``[dask]``), or on any
``concurrent.futures.Executor``-like object with ``submit`` (a Dask ``Client`` works
unchanged). Before any job runs, every (program, budget) pair is checked feasible:
a budget below the program's fixed overhead is an error, not a sweep of failures. Every random choice is keyed by the job, so results do not depend on the
number of workers; progress is a tqdm bar over completed jobs.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import contextlib
import shutil
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np

from experiments.executors import cancel_futures, process_pool

#: per-episode columns written to the raw CSV
ROW_COLUMNS = ("level", "program", "task_id", "family", "seed", "budget", "solved",
               "mean_active", "mean_dashboard", "total_tokens", "input_tokens",
               "cached_tokens",
               "output_tokens", "cost_usd", "agent_archives", "agent_archived_blocks",
               "program_edits", "program_edited_blocks", "recoveries",
               "recovery_targets", "failed_reads", "offload_reads", "deletes",
               "offloaded", "requests")


@dataclass(frozen=True)
class JobSpec:
    """One task instance and the programs to run on it.

    Attributes:
        generator: ``"loca"`` or ``"browse"``.
        family: LOCA family index or BrowseComp query index.
        seed: instance seed.
        level: growth tokens (loca) or window W (browse): the sweep coordinate.
        budget: context budget B in tokens.
        programs: program names (:data:`sim.policies.PROGRAMS`).
        profile: agent profile name (None with ``world``, which replaces it).
        base_seed: the sweep seed.
        dashboard_tokens: token cap of the bounded-ledger programs (None: each
            program's registered cap).
        world: ``((name, value), ...)``: a point of the world table
            (:func:`sim.world.world_at`); when given, the agent's profile and the
            task parameters are built there and ``profile`` is not used.
        agent: ``"synthetic"`` (:class:`sim.agents.SyntheticAgent` with ``profile``)
            or an agent plugin spec (:func:`sim.plugins.make_agent`, called with the
            profile).
    """

    generator: str
    family: int
    seed: int
    level: int
    budget: int
    programs: tuple[str, ...]
    profile: str | None = "medium"
    base_seed: int = 0
    dashboard_tokens: int | None = None
    world: tuple[tuple[str, float], ...] = ()
    agent: str = "synthetic"


def _world(spec: JobSpec):
    from sim.world import world_at

    return world_at(dict(spec.world)) if spec.world else None


def build_task(spec: JobSpec, world=None):
    """The task of ``spec``; ``world``: its :func:`_world`, when the caller has it.

    Raises:
        ValueError: for an unknown generator.
    """
    w = world if world is not None else _world(spec)
    if spec.generator == "loca":
        from sim.tasks.loca import loca_task
        return loca_task(spec.family, spec.seed, spec.level, spec.base_seed,
                         params=w.tasks if w else None)
    if spec.generator == "browse":
        from sim.tasks.browse import browse_task
        return browse_task(spec.family, spec.seed, base_seed=spec.base_seed,
                           params=w.browse if w else None)
    raise ValueError(f"unknown generator {spec.generator!r}")


def episode_seed(spec: JobSpec) -> int:
    """The agent's common-random-number seed: fixed by (sweep seed, generator, family,
    seed), the same for every program and pressure level."""
    ss = np.random.SeedSequence([spec.base_seed, len(spec.generator), spec.family, spec.seed])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def run_job(spec: JobSpec, fast: bool = True) -> list[dict]:
    """Generate the task once and run every program on it; one row per program.
    ``fast``: :func:`sim.harness.run_episode`'s in-memory path (the same rows; False
    plays on the durable store, the benchmark's reference)."""
    from sim.agents import SyntheticAgent, get_profile
    from sim.harness import KnownCountTokenizer, run_episode
    from sim.plugins import PluginRuntimeError, make_agent, make_program
    from sim.workspace.tokenizer import get_tokenizer

    w = _world(spec)   # built once: the task's parameters and the agent's profile
    task = build_task(spec, w)
    tok = KnownCountTokenizer(get_tokenizer("cl100k_base"),
                              {s.content: s.tokens for s in task.steps if s.content})
    seed = episode_seed(spec)
    profile = w.profile if w else spec.profile
    rows = []
    for name in spec.programs:
        agent = SyntheticAgent(profile) if spec.agent == "synthetic" else \
            make_agent(spec.agent, get_profile(profile) if isinstance(profile, str)
                       else profile)
        try:  # a plugin (guarded) that raises or breaks its protocol: name the task
            r = run_episode(task, make_program(name, **dashboard_knobs(name,
                                                                       spec.dashboard_tokens)),
                            agent, budget=spec.budget, seed=seed, tokenizer=tok, fast=fast)
        except PluginRuntimeError as exc:
            raise PluginRuntimeError(f"{exc} on task {task.task_id} (level "
                                     f"{spec.level})") from exc.__cause__
        rows.append({"level": spec.level, "program": name, "task_id": task.task_id,
                     "family": task.family, "seed": spec.seed, "budget": spec.budget,
                     "solved": int(r.solved), "mean_active": round(r.mean_active, 1),
                     "mean_dashboard": round(r.mean_dashboard, 1),
                     "total_tokens": r.total_tokens, "input_tokens": r.input_tokens,
                     "cached_tokens": r.cached_tokens, "output_tokens": r.output_tokens,
                     "cost_usd": round(r.cost, 6), "agent_archives": r.agent_archives,
                     "agent_archived_blocks": r.agent_archived_blocks,
                     "program_edits": r.program_edits,
                     "program_edited_blocks": r.program_edited_blocks,
                     "recoveries": r.recoveries, "recovery_targets": r.recovery_targets,
                     "failed_reads": r.failed_reads,
                     "offload_reads": r.offload_reads,
                     "deletes": r.deletes, "offloaded": r.offloaded,
                     "requests": r.requests})
    return rows


def check_plugins(specs: list[JobSpec]) -> None:
    """Load every plugin program and agent of ``specs`` and play each through one
    small episode (:func:`sim.plugins.check_program`, :func:`~sim.plugins.check_agent`)
    before any job runs: a plugin that does not import or breaks its protocol is
    refused in one line (:class:`sim.plugins.PluginError`, exit 2), nothing computed.
    The command line checks them when parsed; this covers configs and callers."""
    from sim.plugins import check_agent, check_program

    for name in sorted({p for s in specs for p in s.programs}):
        check_program(name)
    for agent in sorted({s.agent for s in specs}):
        check_agent(agent)


def check_budgets(specs: list[JobSpec]) -> None:
    """Raise :class:`sim.workspace.ConfigError` (one line naming the program, the
    budget and the fixed overhead) if any job's budget is below the fixed overhead
    of a program's workspace (system prompt, tool schemas, empty dashboard): no
    request could fit, whatever the program does. Measured on a throwaway
    workspace set up as :func:`sim.harness.run_episode` sets it up."""
    from sim.harness import _system_prompt
    from sim.policies import make_program
    from sim.workspace import ConfigError, Workspace

    seen = set()
    for spec in specs:
        for name in spec.programs:
            knobs = dashboard_knobs(name, spec.dashboard_tokens)
            if (name, spec.budget, tuple(knobs.items())) in seen:
                continue
            seen.add((name, spec.budget, tuple(knobs.items())))
            program = make_program(name, **knobs)
            tmp = tempfile.mkdtemp(prefix="ctxsim-check-")
            try:  # the workspace refuses a budget below its fixed overhead
                Workspace(tmp, budget=spec.budget, strict=False, sync=False,
                          dashboard=program.dashboard,
                          system_prompt=_system_prompt(program, spec.budget),
                          context_tools=bool(program.agent_tools)).close()
            except ConfigError as exc:
                # "budget N tokens is impossible: ..." -> naming the program too
                raise ConfigError(str(exc).replace("budget", f"budget for program "
                                                   f"{name!r}:", 1)) from None
            finally:
                shutil.rmtree(tmp, ignore_errors=True)


def executor_name(jobs: int = 1, scheduler: str | None = None) -> str:
    """How a sweep runs, as recorded in its sidecar: ``"dask ADDRESS"``,
    ``"processes N"`` or ``"in-process"``."""
    if scheduler:
        return f"dask {scheduler}"
    return f"processes {jobs}" if jobs > 1 else "in-process"


#: how long to try reaching a Dask scheduler before giving up
CONNECT_TIMEOUT = "10s"


@contextlib.contextmanager
def dask_client(address: str):
    """A ``dask.distributed.Client`` connected to the scheduler at ``address``
    (closed on exit). Raises ``RuntimeError`` naming the missing extra when Dask
    is not installed, ``OSError`` naming the address when it cannot be reached."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise RuntimeError("--scheduler needs Dask distributed: pip install "
                           "'ctxsim[dask]'") from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise OSError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None
    try:
        yield client
    finally:
        client.close()


def dashboard_knobs(name: str, tokens: int | None) -> dict:
    """``{"dashboard_tokens": tokens}`` for a program registered with a bounded
    ledger (so ``--dashboard-tokens`` sets its cap), else ``{}``."""
    from sim.policies import resolve_program

    # a plugin registered with a dashboard_tokens knob takes the cap like a built-in
    if tokens and resolve_program(name)[1].get("dashboard_tokens"):
        return {"dashboard_tokens": tokens}
    return {}


def run_sweep(specs: list[JobSpec], jobs: int = 1, executor=None, desc: str = "sweep",
              progress: bool = True, scheduler: str | None = None) -> list[dict]:
    """Run every job; rows in job order (independent of ``jobs``, the executor and
    completion order). Budgets are checked first (:func:`check_budgets`). An
    exception while jobs run (Ctrl-C, SIGTERM, a failed job) cancels the jobs not
    yet done and, for ``--jobs N``, ends the worker processes
    (:mod:`experiments.executors`) before it propagates.

    Args:
        specs: the jobs.
        jobs: worker processes when no ``executor`` or ``scheduler`` is given
            (1: in process).
        executor: any object with ``submit(fn, arg)`` returning a future
            (``concurrent.futures.Executor``, ``dask.distributed.Client``).
        progress: show a tqdm bar on stderr.
        scheduler: address of a Dask distributed scheduler (``tcp://host:8786``)
            to run the jobs on, when no ``executor`` is given.
    """
    check_plugins(specs)
    check_budgets(specs)
    if executor is None and scheduler:
        with dask_client(scheduler) as client:
            return run_sweep(specs, executor=client, desc=desc, progress=progress)
    from tqdm import tqdm

    bar = tqdm(total=len(specs), desc=desc, disable=not progress, unit="task")
    out: list[list[dict] | None] = [None] * len(specs)
    try:
        if executor is None and jobs <= 1:
            for i, s in enumerate(specs):
                out[i] = run_job(s)
                bar.update()
        elif executor is None:
            with process_pool(jobs) as pool:
                _run_on(pool, specs, out, bar)
        else:
            _run_on(executor, specs, out, bar)
    finally:
        bar.close()
    return [row for rows in out for row in rows]


def _run_on(executor, specs: list[JobSpec], out: list, bar) -> None:
    """Submit every job to ``executor`` and fill ``out`` (in job order) as they
    complete; on any exception (Ctrl-C, SIGTERM, a failed job) the jobs not yet
    finished are cancelled (:func:`experiments.executors.cancel_futures`) before it
    propagates."""
    futs: dict = {}
    try:
        for i, s in enumerate(specs):
            futs[executor.submit(run_job, s)] = i
        for f in _completed(futs):
            out[futs[f]] = f.result()
            bar.update()
    except BaseException:
        cancel_futures(futs, executor)
        raise


def _completed(futs):
    """Futures as they complete (stdlib futures), else in submission order: a
    foreign future (Dask's) only promises ``result()``, which blocks until done."""
    if all(isinstance(f, cf.Future) for f in futs):
        return cf.as_completed(futs)
    return list(futs)


def aggregate(rows: list[dict], by=("level", "program")) -> list[dict]:
    """Per-group accuracy (solved / n) and means of the ledger columns."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[tuple(r[k] for k in by)].append(r)
    out = []
    for key, rs in groups.items():
        agg = dict(zip(by, key))
        agg["n"] = len(rs)
        agg["solved"] = sum(int(r["solved"]) for r in rs)
        agg["accuracy"] = agg["solved"] / len(rs)
        for c in ("mean_active", "mean_dashboard", "total_tokens", "input_tokens",
                  "cached_tokens",
                  "output_tokens", "cost_usd", "agent_archives", "agent_archived_blocks",
                  "program_edits", "program_edited_blocks", "recoveries",
                  "recovery_targets", "failed_reads", "offload_reads", "deletes",
                  "requests"):
            agg[c] = float(np.mean([float(r[c]) for r in rs]))
        # archive events per call (VISTA Fig. 8b counts calls) and per archived block
        agg["archives"] = agg["agent_archives"] + agg["program_edits"]
        agg["archived_blocks"] = agg["agent_archived_blocks"] + agg["program_edited_blocks"]
        out.append(agg)
    return out


# the converters live in experiments.arguments (one wording for every command)
from experiments.arguments import (  # noqa: E402,F401 - re-exported for the sweeps
    MAX_TOKENS, TOKEN_FORMS, TOKENS_HELP, Distinct, add_no_progress, agent_spec,
    budget_tokens, int_at_least, int_in_range, name_of, nonnegative_int, parse_tokens,
    positive_int, positive_tokens, program_spec, scheduler_address, token_count)

#: a LOCA-like growth level: :func:`sim.tasks.loca.loca_task` needs >= 1000 tokens;
#: at most MAX_TOKENS (an episode's time grows about quadratically with it)
growth_tokens = token_count(1000, "a growth level in tokens >= 1,000", MAX_TOKENS)


def families_arg():
    """The ``--families`` converter: 1..number of LOCA-like families."""
    from sim.tasks.loca import FAMILIES

    return int_in_range(1, len(FAMILIES))


def world_value(text: str) -> tuple[str, float]:
    """An argparse ``type``: ``NAME=VALUE`` for a parameter of :data:`sim.world.TABLE`
    inside its prior range."""
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


#: the agent profile of a sweep given neither --profile nor --world
DEFAULT_PROFILE = "medium"
#: the bounded-ledger dashboard's token cap of a sweep without --dashboard-tokens
DASHBOARD_TOKENS = 400


def add_common_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``--out``, ``--jobs``, ``--quick``, ``--seed``, ``--profile``, ``--no-progress``,
    ``--config`` (of ``configs/NAME.toml``)."""
    from experiments.config import add_config_argument
    from sim.agents.profiles import PROFILES

    parser.add_argument("--out", default="figures",
                        help="output directory (default: %(default)s)")
    parser.add_argument("--jobs", type=positive_int, default=1,
                        help="worker processes on this machine (default: %(default)s)")
    parser.add_argument("--scheduler", type=scheduler_address, default=None, metavar="ADDRESS",
                        help="run the jobs on a Dask distributed cluster, e.g. "
                             "tcp://host:8786 (needs the [dask] extra and ctxsim on "
                             "the workers; default: none, --jobs decides)")
    parser.add_argument("--quick", action="store_true",
                        help="small, fast version: changes the defaults of options not "
                             "given explicitly (explicit options always win)")
    parser.add_argument("--seed", type=nonnegative_int, default=0,
                        help="base random seed of the sweep: changes every task instance "
                             "and agent draw (default: %(default)s); not to be confused "
                             "with --seeds, the number of task seeds per family/query")
    parser.add_argument("--profile", choices=sorted(PROFILES) + [CALIBRATED],
                        default=None, metavar="PROFILE",
                        help=f"synthetic agent profile, one of {', '.join(PROFILES)}, "
                             f"or {CALIBRATED} (the world at the real model's measured "
                             "values, figures/calibration.json, clipped into the prior "
                             "ranges; `ctxsim run calibrate`) (default: "
                             f"{DEFAULT_PROFILE}; a named profile is not taken with --world)")
    parser.add_argument("--calibrated-row", nargs="*", action=Distinct, default=None,
                        metavar="PROGRAM",
                        help="also run these programs (none named: vista) with the "
                             f"agent at the {CALIBRATED} point; their rows are labelled "
                             f"PROGRAM@{CALIBRATED} (default: off)")
    # a parameter named twice is refused: the last value would silently win
    parser.add_argument("--world", type=world_value, nargs="+", action=Distinct,
                        key=name_of, default=None, metavar="NAME=VALUE",
                        help="a point of the synthetic world's table (`ctxsim world`), "
                             "e.g. agent.p_index=0.3 task.size_sd=2; replaces "
                             "--profile (default: none, the profile's values)")
    add_agent_argument(parser)
    add_no_progress(parser)
    parser.add_argument("--dashboard-tokens", type=dashboard_cap, default=DASHBOARD_TOKENS,
                        metavar="TOKENS",
                        help="token cap of the bounded-ledger dashboard (programs such "
                             f"as vista_bounded_ledger; {TOKENS_HELP}; default: "
                             "%(default)s)")
    add_config_argument(parser, name)


def dashboard_cap(text: str) -> int:
    """The ``--dashboard-tokens`` converter: a token count (:func:`parse_tokens`) at
    least the bounded ledger's minimum (its budget bar and remainder line), a smaller
    one worded as the dashboard words it
    (:func:`~sim.workspace.bounded_ledger.cap_too_small`)."""
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


#: how a help text names the plugin form
PLUGIN_HELP = "or a plugin MODULE:CLASS on PYTHONPATH (docs: Plugins)"


def add_programs_argument(parser: argparse.ArgumentParser, default, quick=None) -> None:
    """``--programs``: built-in names or plugin specs (:func:`program_spec`)."""
    names = program_names()
    q = f"; --quick: {' '.join(quick)}" if quick is not None else ""
    parser.add_argument("--programs", nargs="+", type=program_spec, action=Distinct,
                        default=None,
                        metavar="PROGRAM",
                        help=f"context programs to run (default: {' '.join(default)}{q}); "
                             f"valid: {', '.join(names)}, {PLUGIN_HELP}")


#: the ``--agent`` of ``ctxsim run pressure`` that runs its real-model variant
LLM_AGENT = "llm"


def sweep_agent(text: str) -> str:
    """The ``--agent`` converter: ``llm`` (pressure's real-model variant, refused by
    the other sweeps in :func:`sweep_config`) or :func:`agent_spec`."""
    return text if text == LLM_AGENT else agent_spec(text)


def add_agent_argument(parser: argparse.ArgumentParser) -> None:
    """``--agent``: the synthetic agent, an agent plugin, or (pressure) ``llm``."""
    parser.add_argument("--agent", type=sweep_agent, default="synthetic", metavar="AGENT",
                        help="synthetic (the default: the --profile's synthetic agent), "
                             "a registered agent or a plugin MODULE:CLASS on PYTHONPATH "
                             "(called with the --profile's Profile once per episode; "
                             "docs: Plugins); `ctxsim run pressure --agent llm`: the "
                             "small real-model sweep")


def fmt_default(full, quick=None, unit: str = "") -> str:
    """``"default: 15; --quick: 8"`` for help strings (unit appended to each)."""
    def one(v):
        if isinstance(v, (list, tuple)):
            return " ".join(f"{x:,}" if isinstance(x, int) else str(x) for x in v) + unit
        return (f"{v:,}" if isinstance(v, int) else str(v)) + unit
    text = f"default: {one(full)}"
    if quick is not None and quick != full:
        text += f"; --quick: {one(quick)}"
    return text


def resolve(args, defaults: dict, quick: dict | None = None) -> dict:
    """The effective values of ``defaults``' keys: an option the user gave (not None)
    wins; an unset one takes its ``quick`` default under ``--quick``, else its full
    default. Lists are copied."""
    quick = quick or {}
    use_quick = bool(getattr(args, "quick", False))
    out = {}
    for key, full in defaults.items():
        value = getattr(args, key, None)
        if value is None:
            value = quick.get(key, full) if use_quick else full
        out[key] = list(value) if isinstance(value, (list, tuple)) else value
    return out


def sweep_config(args, defaults: dict, quick: dict | None = None) -> dict:
    """:func:`resolve` plus the options every sweep shares (profile, seed, jobs,
    scheduler) and the ``executor`` they amount to (:func:`executor_name`)."""
    from experiments.arguments import UsageError

    cfg = resolve(args, defaults, quick)
    scheduler = getattr(args, "scheduler", None)
    world = dict(getattr(args, "world", None) or ())
    if world and args.profile not in (None, CALIBRATED):
        # --world replaces a named profile (the sidecar would record one not used)
        raise UsageError(f"--profile {args.profile} and --world both set the agent; "
                         "--world replaces the profile, give one")
    agent = getattr(args, "agent", "synthetic")
    if agent == LLM_AGENT:   # pressure takes it before here (its real-model variant)
        raise UsageError("--agent llm: only `ctxsim run pressure` has a real-model "
                         "variant; expected synthetic or an agent plugin")
    if scheduler and args.jobs != 1:
        raise UsageError(f"--jobs {args.jobs} and --scheduler {scheduler!r} both choose "
                         "where the jobs run; give one")
    # the sidecar records the agent actually used: with --world (no --profile) the
    # world's values replace every profile, so no profile name is recorded (null)
    profile = args.profile or (None if world else DEFAULT_PROFILE)
    cfg.update(profile=profile, seed=args.seed, jobs=args.jobs,
               scheduler=scheduler, executor=executor_name(args.jobs, scheduler),
               dashboard_tokens=getattr(args, "dashboard_tokens", None),
               world=world, agent=agent)
    row = getattr(args, "calibrated_row", None)
    if args.profile == CALIBRATED or row is not None:
        from experiments.calibrate.calibrated import calibrated_values

        values, notes = calibrated_values()
        cfg["calibration"] = {"values": values, "notes": notes}
        if args.profile == CALIBRATED:
            cfg["world"] = {**cfg["world"], **values}
        if row is not None:
            cfg["calibrated_row"] = list(row) or ["vista"]
    return cfg


#: the profile name of the synthetic agent at the real model's measured values
CALIBRATED = "calibrated"


def calibrated_jobs(specs: list[JobSpec], cfg: dict) -> list[JobSpec]:
    """The jobs of ``cfg["calibrated_row"]``'s programs with the agent at the
    calibrated point (``cfg["calibration"]``; the sweep's ``--world`` task values
    kept): ``[]`` unless ``--calibrated-row`` was given. Run them after ``specs`` and
    split the rows with :func:`split_calibrated`."""
    progs = cfg.get("calibrated_row") or []
    if not progs:
        return []
    world = tuple(sorted({**cfg["world"], **cfg["calibration"]["values"]}.items()))
    return [replace(s, programs=tuple(p for p in s.programs if p in progs),
                    profile=CALIBRATED, world=world)
            for s in specs if any(p in progs for p in s.programs)]


def split_calibrated(rows: list[dict], specs: list[JobSpec]) -> tuple[list, list]:
    """``(main rows, calibrated rows)`` of a sweep run over ``specs`` followed by
    :func:`calibrated_jobs`; the calibrated rows' programs become
    ``PROGRAM@calibrated``."""
    n = sum(len(s.programs) for s in specs)
    cal = [{**r, "program": f"{r['program']}@{CALIBRATED}"} for r in rows[n:]]
    return rows[:n], cal


def add_loca_task_arguments(parser: argparse.ArgumentParser, defaults: dict,
                            quick: dict) -> None:
    """``--budget``, ``--families`` and ``--seeds`` of the LOCA-like sweeps."""
    from sim.tasks.loca import FAMILIES

    parser.add_argument("--budget", type=budget_tokens, default=None, metavar="TOKENS",
                        help=f"context budget B in tokens, 1..{MAX_TOKENS:,} "
                             f"({TOKENS_HELP}; {fmt_default(defaults['budget'])})")
    parser.add_argument("--families", type=families_arg(), default=None, metavar="N",
                        help=f"LOCA-like task families, 1..{len(FAMILIES)} "
                             f"({fmt_default(defaults['families'], quick['families'])})")
    parser.add_argument("--seeds", type=positive_int, default=None, metavar="N",
                        help="task seeds (instances) per family; see --seed for the base "
                             f"random seed ({fmt_default(defaults['seeds'], quick['seeds'])})")


def add_loca_level_arguments(parser: argparse.ArgumentParser, defaults: dict,
                             quick: dict) -> None:
    """``--programs``, ``--growth``, ``--budget``, ``--families`` and ``--seeds`` of the
    LOCA-like sweeps at one growth level (ablations, cost); ``defaults`` and ``quick``
    are their grids (``[default]``, ``[quick]``), shown in the help."""
    add_programs_argument(parser, defaults["programs"], quick["programs"])
    parser.add_argument("--growth", type=growth_tokens, default=None, metavar="TOKENS",
                        help="context growth: tool-result tokens per task, "
                             f"1,000..{MAX_TOKENS:,} ({TOKENS_HELP}; "
                             f"{fmt_default(defaults['growth'], quick['growth'])})")
    add_loca_task_arguments(parser, defaults, quick)


#: the setting the VISTA paper reports for each agent-level claim (issue 17): a sweep
#: defaults to it and its sidecar records it, with any option that departs from it
PAPER_SETTINGS: dict[str, dict] = {
    "pressure": {"levels": [8_000, 16_000, 32_000, 64_000, 128_000, 256_000],
                 "budget": 128_000, "families": 15, "seeds": 5,
                 "source": "VISTA §3.3, Fig. 4, Table 9: 75 LOCA-Bench tasks, 8K-256K "
                           "growth, 128K budget"},
    "window": {"windows": [4_000, 8_000, 12_000, 16_000, 24_000, 32_000, 64_000],
               "source": "VISTA §3.3, Fig. 6: W swept with budget = W; the headline "
                         "W = 12K, below the ~17K median first-retrieval depth"},
    "ablations": {"growth": 128_000, "budget": 128_000, "families": 15, "seeds": 5,
                  "source": "VISTA §3.7, Fig. 8: full VISTA 38/75 = 50.7%, its 128K "
                            "LOCA-Bench result (§3.3), 128K budget"},
    "cost": {"growth": 128_000, "budget": 128_000, "families": 15, "seeds": 5,
             "source": "VISTA Table 2: the main LOCA-Bench runs, 128K budget "
                       "(Table 1: 50.7% vs 22.7% at 128K)"},
}


def paper_setting(name: str, cfg: dict) -> dict:
    """The sidecar record of sweep ``name``'s paper setting: ``{"paper": the
    setting, "at_paper_setting": bool, "differs": {option: [ours, paper]}}``."""
    paper = PAPER_SETTINGS[name]
    differs = {k: [cfg.get(k), v] for k, v in paper.items()
               if k != "source" and cfg.get(k) != v}
    return {"paper": paper, "at_paper_setting": not differs, "differs": differs}


def loca_specs(levels, programs, budget: int, families: int, seeds: int, profile: str,
               base_seed: int, dashboard_tokens: int | None = None,
               world: dict | None = None, agent: str = "synthetic") -> list[JobSpec]:
    """LOCA-like jobs: ``families`` x ``seeds`` per level (``world``: a point of the
    world table, ``agent``: see :class:`JobSpec`)."""
    point = tuple(sorted((world or {}).items()))
    return [JobSpec("loca", f, s, lvl, budget, tuple(programs), profile, base_seed,
                    dashboard_tokens, point, agent)
            for lvl in levels for f in range(families) for s in range(seeds)]


def run_loca_config(cfg: dict, jobs: int, executor=None, desc: str = "sweep",
                    progress: bool = True) -> tuple[list[dict], list[dict], float]:
    """Run the LOCA-like sweep a config describes (keys growth, programs, budget,
    families, seeds, profile, seed) at its one growth level.

    Returns:
        ``(rows, per-program aggregate rows, wall seconds)``.
    """
    specs = loca_specs([cfg["growth"]], cfg["programs"], cfg["budget"], cfg["families"],
                       cfg["seeds"], cfg["profile"], cfg["seed"],
                       cfg.get("dashboard_tokens"), cfg.get("world"),
                       cfg.get("agent", "synthetic"))
    t0 = time.perf_counter()
    rows = run_sweep(specs, jobs=jobs, executor=executor, desc=desc, progress=progress,
                     scheduler=cfg.get("scheduler"))
    wall = time.perf_counter() - t0
    return rows, aggregate(rows, by=("program",)), wall

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

A sweep's settings (:mod:`experiments.settings.sweeps`, one typed object from the
command line on) become its jobs here (:func:`loca_specs`, :func:`browse_specs`):
``--budget`` is ``settings.budget``, then ``JobSpec.setup.budget``, then the episode's.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from experiments.executors import cancel_futures, process_pool
from experiments.settings.sweeps import CALIBRATED

if TYPE_CHECKING:
    from sim.world import World

#: per-episode columns written to the raw CSV
ROW_COLUMNS = ("level", "program", "task_id", "family", "seed", "budget", "solved",
               "mean_active", "mean_dashboard", "total_tokens", "input_tokens",
               "cached_tokens",
               "output_tokens", "cost_usd", "agent_archives", "agent_archived_blocks",
               "program_edits", "program_edited_blocks", "recoveries",
               "recovery_targets", "failed_reads", "offload_reads", "deletes",
               "offloaded", "requests")


@dataclass(frozen=True, kw_only=True)
class TaskSpec:
    """Which task instance a job plays: enough to generate it anywhere
    (:func:`build_task`) and to key its agent's random numbers
    (:func:`episode_seed`).

    Attributes:
        generator: ``"loca"`` or ``"browse"``.
        family: LOCA family index or BrowseComp query index.
        seed: instance seed.
        level: growth tokens (loca) or window W (browse): the sweep coordinate.
        base_seed: the sweep seed.
    """

    generator: str
    family: int
    seed: int
    level: int
    base_seed: int = 0


@dataclass(frozen=True, kw_only=True)
class JobSetup:
    """What every episode of a job is given: the programs to run on the task, the
    budget and the agent. A job's, not the sweep's: the window sweep sets the
    budget to each job's window (VISTA §3.3, Fig. 6).

    Attributes:
        budget: context budget B in tokens.
        programs: program names (:data:`sim.policies.PROGRAMS`).
        profile: agent profile name (not used when the job has a ``world``, which
            replaces it).
        agent: ``"synthetic"`` (:class:`sim.agents.SyntheticAgent` with ``profile``)
            or an agent plugin spec (:func:`sim.plugins.make_agent`, called with the
            profile).
        dashboard_tokens: token cap of the bounded-ledger programs (None: each
            program's registered cap).
    """

    budget: int
    programs: tuple[str, ...]
    profile: str | None = "medium"
    agent: str = "synthetic"
    dashboard_tokens: int | None = None


@dataclass(frozen=True, kw_only=True)
class JobSpec:
    """One job: a task instance and its set-up. Built by keyword
    (:func:`loca_specs`, :func:`browse_specs`); frozen and picklable, so a Dask
    worker receives it whole.

    ``world`` sits beside the two parts, not in either: one point of the world
    table (``--world``, :func:`sim.world.world_at`) names task parameters
    (``task.*``, ``browse.*``) and agent parameters (``agent.*``) together, and the
    job builds it once into both the task's parameters and the agent's profile.
    Splitting it would split a point the user gave as one and build it twice. It
    is the typed point (:class:`sim.world.World`, built by :func:`world_of` where
    the jobs are made), so a worker reads the profile and the task parameters as
    fields, never by string keys, and a bad point is refused before any job runs.

    Attributes:
        task: the task instance (:class:`TaskSpec`).
        setup: the programs, budget and agent (:class:`JobSetup`).
        world: a point of the world table, or None (the default world, with the
            agent's profile named by ``setup.profile``); when given, the agent's
            profile and the task parameters are its own and ``setup.profile`` is not
            used.
    """

    task: TaskSpec
    setup: JobSetup
    world: World | None = None


def world_of(pairs, beyond_prior=()) -> World | None:
    """The typed point of ``pairs`` (``((name, value), ...)``, e.g. a sweep's
    ``--world``): :func:`sim.world.world_at` of them, None for no pairs;
    ``beyond_prior``: names measured outside their prior (the calibrated point's).

    Raises:
        KeyError, ValueError: as :func:`sim.world.world_at`, for an unknown name or
            a value outside its prior range.
    """
    from sim.world import world_at

    return world_at(dict(pairs), beyond_prior=beyond_prior) if pairs else None


def measured_beyond_prior(settings) -> tuple[str, ...]:
    """The names a sweep's calibrated point measured outside their prior
    (``settings.calibration``; none without ``--profile calibrated|FILE`` or
    ``--calibrated-row``)."""
    cal = getattr(settings, "calibration", None)
    return tuple(cal.get("beyond_prior", ())) if cal else ()


def build_task(spec: JobSpec):
    """The task of ``spec``, at its world's task parameters (the defaults without).

    Raises:
        ValueError: for an unknown generator.
    """
    w = spec.world
    t = spec.task
    if t.generator == "loca":
        from sim.tasks.loca import loca_task
        return loca_task(t.family, t.seed, t.level, t.base_seed,
                         params=w.tasks if w else None)
    if t.generator == "browse":
        from sim.tasks.browse import browse_task
        return browse_task(t.family, t.seed, base_seed=t.base_seed,
                           params=w.browse if w else None)
    raise ValueError(f"unknown generator {t.generator!r}")


def episode_seed(spec: JobSpec) -> int:
    """The agent's common-random-number seed: fixed by (sweep seed, generator, family,
    seed) of its task, the same for every program and pressure level."""
    t = spec.task
    ss = np.random.SeedSequence([t.base_seed, len(t.generator), t.family, t.seed])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def run_job(spec: JobSpec, fast: bool = True) -> list[dict]:
    """Generate the task once and run every program on it; one row per program.
    ``fast``: :func:`sim.harness.run_episode`'s in-memory path (the same rows; False
    plays on the durable store, the benchmark's reference)."""
    from sim.agents import SyntheticAgent, get_profile
    from sim.harness import run_episode
    from sim.plugins import PluginRuntimeError, make_agent, make_program
    from sim.token_cache import KnownCountTokenizer
    from sim.workspace.tokenizer import get_tokenizer

    w = spec.world
    task = build_task(spec)
    tok = KnownCountTokenizer(get_tokenizer("cl100k_base"),
                              {s.content: s.tokens for s in task.steps if s.content})
    seed = episode_seed(spec)
    setup = spec.setup
    profile = w.profile if w else setup.profile
    rows = []
    for name in setup.programs:
        agent = SyntheticAgent(profile) if setup.agent == "synthetic" else \
            make_agent(setup.agent, get_profile(profile) if isinstance(profile, str)
                       else profile)
        try:  # a plugin (guarded) that raises or breaks its protocol: name the task
            program = make_program(name, **dashboard_knobs(name, setup.dashboard_tokens))
            r = run_episode(task, program, agent, budget=setup.budget, seed=seed,
                            tokenizer=tok, fast=fast)
        except PluginRuntimeError as exc:
            raise PluginRuntimeError(f"{exc} on task {task.task_id} (level "
                                     f"{spec.task.level})") from exc.__cause__
        rows.append({"level": spec.task.level, "program": name,
                     "task_id": task.task_id, "family": task.family,
                     "seed": spec.task.seed, "budget": setup.budget,
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


def check_plugins(setups: list[JobSetup]) -> None:
    """Load every plugin program and agent of ``specs`` and play each through one
    small episode (:func:`sim.plugins.check_program`, :func:`~sim.plugins.check_agent`)
    before any job runs: a plugin that does not import or breaks its protocol is
    refused in one line (:class:`sim.plugins.PluginError`, exit 2), nothing computed.
    The command line checks them when parsed; this covers configs and callers.

    Args:
        setups: the jobs' set-ups (:attr:`JobSpec.setup`); only ``programs`` and
            ``agent`` are read.
    """
    from sim.plugins import check_agent, check_program

    for name in sorted({p for s in setups for p in s.programs}):
        check_program(name)
    for agent in sorted({s.agent for s in setups}):
        check_agent(agent)


def check_budgets(setups: list[JobSetup]) -> None:
    """Raise :class:`sim.workspace.ConfigError` (one line naming the program, the
    budget and the fixed overhead) if any job's budget is below the fixed overhead
    of a program's workspace (system prompt, tool schemas, empty dashboard): no
    request could fit, whatever the program does. Measured on the workspace the
    episode's :class:`sim.episode.EpisodeSetup` describes (the one
    :func:`sim.harness.run_episode` plays on), with budget B.

    Args:
        setups: the jobs' set-ups (:attr:`JobSpec.setup`); only ``programs``,
            ``budget`` and ``dashboard_tokens`` are read, so a caller with no task
            (``ctxsim workspace replay``) passes a :class:`JobSetup` alone.
    """
    from sim.episode import EpisodeSetup
    from sim.policies import make_program
    from sim.workspace import ConfigError

    seen = set()
    for setup in setups:
        for name in setup.programs:
            knobs = dashboard_knobs(name, setup.dashboard_tokens)
            if (name, setup.budget, tuple(knobs.items())) in seen:
                continue
            seen.add((name, setup.budget, tuple(knobs.items())))
            try:  # the episode's workspace refuses a budget below its fixed overhead
                EpisodeSetup.of(make_program(name, **knobs), setup.budget).check_overhead()
            except ConfigError as exc:
                # "budget N tokens is impossible: ..." -> naming the program too
                raise ConfigError(str(exc).replace("budget", f"budget for program "
                                                   f"{name!r}:", 1)) from None


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
    check_plugins([s.setup for s in specs])
    check_budgets([s.setup for s in specs])
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


def calibrated_jobs(specs: list[JobSpec], settings) -> list[JobSpec]:
    """The jobs of ``settings.calibrated_row``'s programs with the agent at the
    calibrated point (``settings.calibration``; the sweep's ``--world`` task values
    kept): ``[]`` unless ``--calibrated-row`` was given. Run them after ``specs`` and
    split the rows with :func:`split_calibrated`.

    Args:
        settings: a :class:`experiments.settings.sweeps.SweepSettings`.
    """
    progs = settings.calibrated_row or ()
    if not progs:
        return []
    world = world_of({**dict(settings.world), **settings.calibration["values"]}.items(),
                     measured_beyond_prior(settings))
    return [replace(s, setup=replace(s.setup, programs=tuple(p for p in s.setup.programs
                                                             if p in progs),
                                     profile=CALIBRATED), world=world)
            for s in specs if any(p in progs for p in s.setup.programs)]


def split_calibrated(rows: list[dict], specs: list[JobSpec]) -> tuple[list, list]:
    """``(main rows, calibrated rows)`` of a sweep run over ``specs`` followed by
    :func:`calibrated_jobs`; the calibrated rows' programs become
    ``PROGRAM@calibrated``."""
    n = sum(len(s.setup.programs) for s in specs)
    cal = [{**r, "program": f"{r['program']}@{CALIBRATED}"} for r in rows[n:]]
    return rows[:n], cal


def loca_specs(settings, levels=None, programs=None) -> list[JobSpec]:
    """The LOCA-like jobs of a sweep's settings: ``settings.families`` x
    ``settings.seeds`` per level, each with the sweep's budget, agent and world.

    Args:
        settings: a :class:`experiments.settings.sweeps.SweepSettings` with
            ``budget``, ``families``, ``seeds`` and ``programs`` (and ``levels`` or
            ``growth``).
        levels: the growth levels (default: ``settings.levels``, else
            ``(settings.growth,)``).
        programs: the programs (default: ``settings.programs``).
    """
    if levels is None:
        levels = getattr(settings, "levels", None) or (settings.growth,)
    setup = _setup(settings, settings.budget,
                   tuple(settings.programs if programs is None else programs))
    # built once for the sweep
    world = world_of(settings.world, measured_beyond_prior(settings))
    return [JobSpec(task=TaskSpec(generator="loca", family=f, seed=s, level=lvl,
                                  base_seed=settings.seed),
                    setup=setup, world=world)
            for lvl in levels for f in range(settings.families)
            for s in range(settings.seeds)]


def _setup(settings, budget: int, programs: tuple[str, ...]) -> JobSetup:
    # the agent and dashboard knobs every job of a sweep shares
    return JobSetup(budget=budget, programs=programs, profile=settings.profile,
                    agent=settings.agent, dashboard_tokens=settings.dashboard_tokens)


def browse_specs(settings) -> list[JobSpec]:
    """The BrowseComp-like jobs of the window sweep's settings
    (:class:`experiments.settings.vista.WindowSettings`): ``queries`` x ``seeds`` per
    window W, with budget = W (VISTA §3.3, Fig. 6)."""
    world = world_of(settings.world, measured_beyond_prior(settings))
    return [JobSpec(task=TaskSpec(generator="browse", family=q, seed=s, level=w,
                                  base_seed=settings.seed),
                    setup=_setup(settings, w, tuple(settings.programs)), world=world)
            for w in settings.windows for q in range(settings.queries)
            for s in range(settings.seeds)]


def run_loca(settings, executor=None, desc: str = "sweep", progress: bool = True
             ) -> tuple[list[dict], list[dict], float]:
    """Run the LOCA-like sweep of ``settings`` (:func:`loca_specs`) at its one growth
    level, on ``executor``, ``settings.jobs`` processes or ``settings.scheduler``.

    Returns:
        ``(rows, per-program aggregate rows, wall seconds)``.
    """
    specs = loca_specs(settings)
    t0 = time.perf_counter()
    rows = run_sweep(specs, jobs=settings.jobs, executor=executor, desc=desc,
                     progress=progress, scheduler=settings.scheduler)
    wall = time.perf_counter() - t0
    return rows, aggregate(rows, by=("program",)), wall

"""The claims as a function of a point of the synthetic world: at each point, play
a reduced version of the sweeps the agent-level claims read, write their CSVs in the
sweeps' own format into a temporary directory, and judge them with the claims
package's one judge (:func:`experiments.claims.judge.judge`; no verdict rule is
re-implemented here). A claim holds at a point when its verdict there is
"reproduced".

The reduced sweeps keep the paper's settings (VISTA §3.3, §3.7, Table 2:
8K and 128K growth at a 128K budget; Fig. 6: W swept with budget = W) and the
programs the claims compare, on fewer tasks (:class:`Design`). At a point every arm
plays the same task instances with the same agent seeds (common random numbers:
the paired effects' noise is the arms' difference only); each point draws its own
design seed from the run's (:func:`point_seed`, issue 30), so one unlucky draw of
tasks does not bias every point alike. Each claim's paired effect and its SE
(:mod:`experiments.claims.robustness.effects`) are read from the same CSVs.

Not included: the ContextEvo and Evo-Harness claims (an evolution loop per point
costs minutes to hours), the theory claims (exact or Monte Carlo results that no
world parameter enters), the Table 5 / Fig. 10 claims (a real model's answers
and replayed trajectories, not the synthetic agent), and the Fig. 4 claims at growth
levels other than 8K and 128K (:func:`played`).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

#: per-episode or aggregate CSV -> the reduced sweep that writes it
SWEEP_OF = {"pressure_episodes.csv": "pressure", "cost_episodes.csv": "cost",
            "ablations.csv": "ablations", "ablations_episodes.csv": "ablations",
            "window.csv": "window", "window_episodes.csv": "window"}
#: the ablation variants the claims compare with full VISTA (VISTA §3.7, Fig. 8)
ABLATIONS = ("vista", "vista_no_archive", "vista_no_dashboard", "vista_no_recover",
             "vista_fixed_archive")
#: the programs the pressure claims compare (Fig. 4, Table 1)
PRESSURE = ("vista", "react", "auto_archive")
#: the programs of the window sweep (Fig. 6)
WINDOW = ("react", "vista")
#: what a claim's verdict must be at a point for the claim to hold there
HOLDS = "reproduced"


def agent_claims(registry=None) -> list:
    """The claims whose check reads a CSV of the pressure, cost, ablations or window
    sweeps (the synthetic agent's claims), in registry order, less those at a growth
    level the reduced sweeps do not play (:func:`played`) and those whose check has
    no paired effect yet (:func:`~experiments.claims.robustness.effects.supported`:
    issue 31's per-task totals and Fig. 9's rescue share)."""
    from experiments.claims.registry import REGISTRY
    from experiments.claims.robustness.effects import supported

    return [c for c in (registry or REGISTRY) if c.check is not None and c.csv in SWEEP_OF
            and played(c) and supported(c)]


def played(claim) -> bool:
    """Whether the reduced sweeps play every growth level ``claim``'s check reads
    (its ``level``, ``b_level``, ``base_level``): :class:`Design`'s 8K and 128K. A
    window claim's level is its W, which the window sweep plays. Fig. 4's 16K-64K and
    256K claims are left out: two more growth levels per point would cost a third
    more episodes for four orderings."""
    if claim.csv.startswith("window"):
        return True
    levels = {getattr(claim.check, k, None) for k in ("level", "b_level", "base_level")}
    return levels - {None} <= {Design.low_growth, Design.growth}


@dataclass(frozen=True)
class Design:
    """The reduced sweeps played at every world point.

    Attributes:
        tasks: LOCA-like task instances (families in order, then further seeds).
        queries: BrowseComp-like queries per window.
        windows: the windows W (tokens; budget = W) of the window sweep.
        parts: the sweeps to play (``"pressure"``, ``"cost"``, ``"ablations"``,
            ``"window"``).
        seed: base seed of every task instance and agent draw.
        growth, low_growth, budget: the LOCA-like settings (tokens): the paper's
            128K and 8K growth at a 128K budget.
    """

    tasks: int
    queries: int
    windows: tuple[int, ...]
    parts: tuple[str, ...] = ("pressure", "cost", "ablations", "window")
    seed: int = 0
    growth: int = 128_000
    low_growth: int = 8_000
    budget: int = 128_000

    def __post_init__(self):
        bad = sorted(set(self.parts) - set(SWEEP_OF.values()))
        if bad:
            raise ValueError(f"unknown reduced sweep(s) {bad}; known: "
                             f"{sorted(set(SWEEP_OF.values()))}")
        if self.tasks < 1 or self.queries < 1:
            raise ValueError(f"need at least one task and one query, got {self.tasks} "
                             f"and {self.queries}")
        if "window" in self.parts and len(self.windows) < 3:
            raise ValueError(f"the window sweep needs at least three windows (an interior "
                             f"peak), got {list(self.windows)}")

    @classmethod
    def for_claims(cls, claims: Sequence, **kw) -> "Design":
        """The design that plays the sweeps ``claims`` read (and no other)."""
        parts = tuple(dict.fromkeys(SWEEP_OF[c.csv] for c in claims))
        return cls(parts=parts, **kw)

    def programs(self, growth: int) -> tuple[str, ...]:
        """The programs played on a LOCA-like task at ``growth``."""
        from sim.policies import MAIN_PROGRAMS

        want: list[str] = []
        if growth == self.low_growth and "pressure" in self.parts:
            want += ["vista", "react"]
        if growth == self.growth:
            if "pressure" in self.parts:
                want += PRESSURE
            if "cost" in self.parts:
                want += MAIN_PROGRAMS
            if "ablations" in self.parts:
                want += ABLATIONS
        return tuple(dict.fromkeys(want))

    def episodes_per_point(self) -> int:
        """Episodes played at one world point."""
        loca = sum(len(self.programs(g)) for g in dict.fromkeys((self.low_growth,
                                                                  self.growth)))
        browse = len(WINDOW) * len(self.windows) if "window" in self.parts else 0
        return self.tasks * loca + self.queries * browse


def task_ids(n: int) -> list[tuple[int, int]]:
    """``n`` LOCA-like (family, seed) pairs: every family once, then again with the
    next seed."""
    from sim.tasks.loca import FAMILIES

    return [(i % len(FAMILIES), i // len(FAMILIES)) for i in range(n)]


def world_point(values: Mapping[str, float]) -> tuple[tuple[str, float], ...]:
    """A world point as pairs (:func:`experiments.sweep.world_of` builds it): every
    parameter of the table, at
    ``values`` where given, else its default (so every point, the default one too,
    is built by :func:`sim.world.world_at`)."""
    from sim.world import TABLE

    unknown = sorted(set(values) - set(TABLE))
    if unknown:
        raise KeyError(f"unknown world parameter(s) {unknown}")
    return tuple((n, float(values.get(n, p.default))) for n, p in TABLE.items())


def point_seed(seed: int, stage: str, index: int) -> int:
    """The design seed of point ``index`` of ``stage`` (issue 30): drawn from the
    run's ``seed``, so that points do not all replay the same task instances (one
    unlucky draw would then bias every point alike) yet a rerun with the same seed
    plays the same tasks. Every arm at a point shares it (common random numbers)."""
    ss = np.random.SeedSequence([seed, index, *map(ord, stage)])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def point_specs(design: Design, values: Mapping[str, float], seed: int | None = None
                ) -> list:
    """The jobs of one world point, in a fixed order: the LOCA-like tasks at low
    then high growth, then the window sweep's queries; ``seed`` is the point's
    design seed (default: ``design.seed``)."""
    from experiments.sweep import JobSetup, JobSpec, TaskSpec, world_of

    base = design.seed if seed is None else seed
    world = world_of(world_point(values))
    specs = []
    for growth in dict.fromkeys((design.low_growth, design.growth)):
        progs = design.programs(growth)
        if progs:
            setup = JobSetup(budget=design.budget, programs=progs)
            specs += [JobSpec(task=TaskSpec(generator="loca", family=f, seed=s,
                                            level=growth, base_seed=base),
                              setup=setup, world=world)
                      for f, s in task_ids(design.tasks)]
    if "window" in design.parts:
        specs += [JobSpec(task=TaskSpec(generator="browse", family=q, seed=0, level=w,
                                        base_seed=base),
                          setup=JobSetup(budget=w, programs=WINDOW), world=world)
                  for w in design.windows for q in range(design.queries)]
    return specs


def split_rows(rows: list[dict], specs_per_point: list[list]) -> list[list[dict]]:
    """The flat rows of :func:`experiments.sweep.run_sweep` (one per program per
    job, in job order) cut back into one list per point.

    Raises:
        ValueError: if a row's program or level is not the job's (the cut would be
            wrong).
    """
    out, i = [], 0
    for specs in specs_per_point:
        mine = []
        for s in specs:
            got = rows[i:i + len(s.setup.programs)]
            if [r["program"] for r in got] != list(s.setup.programs) or \
                    any(int(r["level"]) != s.task.level for r in got):
                raise ValueError(f"rows out of step with the jobs at row {i}")
            mine += got
            i += len(s.setup.programs)
        out.append(mine)
    if i != len(rows):
        raise ValueError(f"{len(rows) - i} rows left over after the last job")
    return out


def write_csvs(design: Design, rows: list[dict], out: Path) -> list[Path]:
    """The CSVs the claims read, in the sweeps' own format (their columns and their
    aggregate and paired-difference code), from one point's rows."""
    from experiments.output import write_csv
    from experiments.paired import add_paired_columns
    from experiments.sweep import ROW_COLUMNS, aggregate
    from experiments.vista import ablations, window
    from sim.policies import MAIN_PROGRAMS

    out = Path(out)
    paths = []
    loca = [r for r in rows if r["task_id"].startswith("loca")] if rows else []
    if "pressure" in design.parts:
        keep = {design.low_growth: {"vista", "react"}, design.growth: set(PRESSURE)}
        pressure = [r for r in loca if r["program"] in keep.get(r["level"], ())]
        paths.append(write_csv(out / "pressure_episodes.csv", ROW_COLUMNS, pressure))
    at_growth = [r for r in loca if r["level"] == design.growth]
    if "cost" in design.parts:
        paths.append(write_csv(out / "cost_episodes.csv", ROW_COLUMNS,
                               [r for r in at_growth if r["program"] in MAIN_PROGRAMS]))
    if "ablations" in design.parts:
        abl = [r for r in at_growth if r["program"] in ABLATIONS]
        paths += [write_csv(out / "ablations.csv", ablations.COLUMNS,
                            ablations.table(abl, list(ABLATIONS))),
                  write_csv(out / "ablations_episodes.csv", ROW_COLUMNS, abl)]
    if "window" in design.parts:
        browse = [r for r in rows if not r["task_id"].startswith("loca")]
        table = sorted(aggregate(browse), key=lambda r: (r["program"], r["level"]))
        add_paired_columns(table, browse, "vista")
        paths += [write_csv(out / "window.csv", window.COLUMNS, table),
                  write_csv(out / "window_episodes.csv", ROW_COLUMNS, browse)]
    return paths


def judge_point(design: Design, claim_ids: Sequence[str], rows: list[dict]
                ) -> tuple[dict[str, str], dict]:
    """Each claim's verdict word and effect
    (:class:`~experiments.claims.robustness.effects.Effect`, ``None`` where the data
    miss) at one point, from that point's rows (the CSVs go to a temporary
    directory, removed afterwards)."""
    from experiments.claims.data import MissingData
    from experiments.claims.judge import judge
    from experiments.claims.registry import REGISTRY
    from experiments.claims.robustness.effects import effect

    tmp = Path(tempfile.mkdtemp(prefix="ctxsim-robust-"))
    try:
        write_csvs(design, rows, tmp)
        verdicts = {cid: str(judge(REGISTRY[cid], tmp).verdict) for cid in claim_ids}
        effects = {}
        for cid in claim_ids:
            try:
                effects[cid] = effect(REGISTRY[cid], tmp)
            except MissingData:
                effects[cid] = None
        return verdicts, effects
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _judge_job(job):
    return judge_point(*job)


def effect_output(claim_id: str) -> str:
    """``"effect:<claim id>"``: the output that carries the claim's effect."""
    return f"effect:{claim_id}"


class WorldModel:
    """``evaluate(X, stage)`` for :func:`experiments.claims.robustness.analysis.analyse`:
    each row of ``X`` (one column per name in ``names``) is a world point; returns
    ``{claim id: 1.0 where its verdict is "reproduced", else 0.0}`` and
    ``{effect_output(claim id): the claim's effect}`` (``nan`` where undefined), and
    keeps every verdict word in :attr:`verdicts` and every
    :class:`~experiments.claims.robustness.effects.Effect` in :attr:`effects`
    (stage -> one dict per point).

    Point ``i`` of a stage plays the tasks of design seed
    :func:`point_seed` ``(design.seed, stage, i)``. The episodes of every point of a
    stage run as one sweep (:func:`experiments.sweep.run_sweep`) and the points are
    then judged, both on ``executor`` when given (a ``concurrent.futures`` executor
    or a Dask client), else in process: the results are in point order whatever the
    executor.
    """

    def __init__(self, design: Design, claims: Sequence, names: Sequence[str],
                 executor=None, progress: bool = False):
        self.design = design
        self.claim_ids = [c.id for c in claims]
        self.names = list(names)
        self.executor = executor
        self.progress = progress
        self.verdicts: dict[str, list[dict[str, str]]] = {}
        self.effects: dict[str, list[dict]] = {}
        #: stage -> per point, the simulated value of each paper cell its sweeps
        #: cover (:func:`experiments.claims.robustness.stats.point_stats`)
        self.stats: dict[str, list[dict]] = {}
        self.episodes = 0

    def evaluate(self, points: list[Mapping[str, float]], stage: str
                 ) -> tuple[list[dict[str, str]], list[dict]]:
        """Every claim's verdict and effect at each world point (a mapping name ->
        value)."""
        from experiments.executors import ordered_map
        from experiments.sweep import run_sweep

        specs = [point_specs(self.design, p, point_seed(self.design.seed, stage, i))
                 for i, p in enumerate(points)]
        flat = [s for ss in specs for s in ss]
        rows = run_sweep(flat, executor=self.executor, desc=f"robustness: {stage}",
                         progress=self.progress)
        from experiments.claims.robustness.stats import point_stats

        self.episodes += len(rows)
        per_point = split_rows(rows, specs)
        self.stats[stage] = [point_stats(self.design, r) for r in per_point]
        jobs = [(self.design, self.claim_ids, r) for r in per_point]
        out = ordered_map(_judge_job, jobs, self.executor)
        return [v for v, _ in out], [e for _, e in out]

    def at(self, points: list[Mapping[str, float]], stage: str) -> list[dict[str, str]]:
        """Every claim's verdict at each world point (see :meth:`evaluate`)."""
        return self.evaluate(points, stage)[0]

    def __call__(self, X: np.ndarray, stage: str) -> dict[str, np.ndarray]:
        points = [dict(zip(self.names, map(float, row))) for row in np.asarray(X)]
        verdicts, effects = self.evaluate(points, stage)
        self.verdicts[stage] = verdicts
        self.effects[stage] = effects
        out = {cid: np.array([float(v[cid] == HOLDS) for v in verdicts])
               for cid in self.claim_ids}
        out.update({effect_output(cid): np.array(
            [e[cid].value if e[cid] is not None else np.nan for e in effects])
            for cid in self.claim_ids})
        return out

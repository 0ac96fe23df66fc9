"""The ContextEvo loop (ContextEvo §4, App. B.2 "Evolution data boundary").

Split the task names (:func:`sim.evolve.split.split_families`: per task by default,
whole families with ``held_out_families``); then per iteration, on
held-in tasks only: run the current spec (:func:`sim.evolve.contextevo.trace.run_traced`), card
(Stage 1a), review (1b), judge (2), edit (3: the back-end proposes changesets, each
applied by :func:`sim.evolve.contextevo.editor.apply_changeset`; what the judge's accepted
hypotheses do not fill of the ``candidates`` per iteration goes to the next-ranked
hypotheses' moves, then to untried grammar moves, :mod:`sim.evolve.contextevo.budget`),
and select among the current
spec and the candidates by mean held-in reward (ties with the current spec keep it, so
an iteration never lowers the held-in score; ties among candidates go to the stronger
evidence, then the graded score, then budget order:
:func:`sim.evolve.contextevo.budget.tie_key`). Two iterations by default. Then freeze and
evaluate start and every iteration on held-out and all tasks with the same episode
seeds (common random numbers).

Held-out task ids never reach stages 1-3 or selection: the stage functions are the
module-level names below, called only with held-in data, and
``tests/evolve/test_contextevo_loop.py`` wraps them to check it. The simulator's true
causes (:class:`sim.evolve.contextevo.trace.Truth`) are kept by the :class:`Runner` and read only
by :func:`sim.evolve.contextevo.judge.attribution_scores` after the judge has committed.

Evidence-free baselines at the same evaluation budget (``mode``; each evaluates
exactly ``candidates`` specs per iteration on held-in, as the loop does, none
evaluated before by the arm, and reads no trajectory;
:attr:`EvolveResult.evaluations` counts them): ``ef_moves`` (each iteration, ``candidates`` moves drawn uniformly from
the same grammar move set the editor ranks,
:func:`sim.evolve.contextevo.grammar_moves.grammar_moves`), ``ef_steps`` (random
multi-surface grammar steps changing ``step_surfaces`` surfaces, the editor's typical
changeset size), ``best_of_n`` (``iterations * candidates`` random specs of one to
four one-surface steps from the start), ``single_move`` (the best single move: grammar
moves each tried alone from the start, ``iterations * candidates`` of them, a seeded
subset spread over the surfaces when there are more,
:func:`sim.evolve.contextevo.budget.single_moves`) and ``random_edits`` (one-surface
steps, the weakest). Best on held-in, ties as above.

A candidate that raises at run time is scored as failed on that task (solved 0,
score 0) with the error recorded in its row (``error``) and in :attr:`Runner.errors`;
the loop never aborts on one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from sim.agents.answer_cache import ReplayMiss
from sim.evolve.contextevo import cards as _cards
from sim.evolve.contextevo import judge as _judge
from sim.evolve.contextevo import review as _review
from sim.evolve.contextevo.budget import (MAX_DRAWS, NO_EVIDENCE, candidate_stream,
                                          random_moves, rank_hypotheses, single_moves,
                                          take_fresh, tie_key, tie_record)
from sim.evolve.contextevo.budget import unnamed as _unnamed
from sim.evolve.contextevo.editor import apply_changeset, random_changeset, random_spec_change
from sim.evolve.contextevo.spec import SURFACES, ProgramSpec, diff
from sim.evolve.split import PAPER_HELD_IN_FRACTION, PAPER_SEED, PER_TASK, split_families
from sim.evolve.contextevo.trace import run_traced

# the stage functions (module-level so an instrumented test can wrap them)
make_cards = _cards.make_cards
review = _review.review
judge = _judge.judge
attribution_scores = _judge.attribution_scores

MODES = ("contextevo", "ef_moves", "ef_steps", "best_of_n", "single_move", "random_edits")
#: the evidence-free modes (no trajectory read, no judge)
EVIDENCE_FREE = ("ef_moves", "ef_steps", "best_of_n", "single_move", "random_edits")


def _episode_seed(base_seed: int, generator: str, family: int, seed: int) -> int:
    # the sweeps' common-random-number rule (experiments.sweep.episode_seed)
    ss = np.random.SeedSequence([base_seed, len(generator), family, seed])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


@dataclass
class TaskSet:
    """Named tasks with a budget and a fixed episode seed per task.

    Attributes:
        name: label (``"loca128k"``, ``"browse16k"``).
        tasks: task id -> :class:`sim.tasks.base.Task`.
        seeds: task id -> episode seed (the same for every program).
        budget: context budget B in tokens.
        profile: synthetic agent profile.
    """

    name: str
    tasks: dict
    seeds: dict
    budget: int
    profile: str = "medium"
    tokenizers: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if not self.tasks:
            raise ValueError(f"task set {self.name!r} is empty; it needs at least 2 tasks")

    @property
    def names(self) -> list[str]:
        return sorted(self.tasks)

    def tokenizer(self, task_id: str):
        """The task's known-count tokenizer, built once."""
        tok = self.tokenizers.get(task_id)
        if tok is None:
            from sim.token_cache import KnownCountTokenizer
            from sim.workspace.tokenizer import get_tokenizer

            task = self.tasks[task_id]
            tok = KnownCountTokenizer(get_tokenizer("cl100k_base"),
                                      {s.content: s.tokens for s in task.steps if s.content})
            self.tokenizers[task_id] = tok
        return tok


def loca_taskset(growth: int = 128_000, budget: int = 128_000, families: int = 15,
                 seeds: int = 5, base_seed: int = 0, profile: str = "medium") -> TaskSet:
    """LOCA-like tasks (families x seeds) at one growth level."""
    from sim.tasks.loca import loca_task

    tasks, eps = {}, {}
    for f in range(families):
        for s in range(seeds):
            t = loca_task(f, s, growth, base_seed)
            tasks[t.task_id] = t
            eps[t.task_id] = _episode_seed(base_seed, "loca", f, s)
    return TaskSet(f"loca{growth // 1000}k", tasks, eps, budget, profile)


def browse_taskset(window: int = 16_000, queries: int = 25, seeds: int = 2,
                   base_seed: int = 0, profile: str = "medium") -> TaskSet:
    """BrowseComp-like tasks (queries x seeds) at window (= budget) ``window``."""
    from sim.tasks.browse import browse_task

    tasks, eps = {}, {}
    for q in range(queries):
        for s in range(seeds):
            t = browse_task(q, s, base_seed=base_seed)
            tasks[t.task_id] = t
            eps[t.task_id] = _episode_seed(base_seed, "browse", q, s)
    return TaskSet(f"browse{window // 1000}k", tasks, eps, window, profile)


def _key(spec: ProgramSpec) -> str:
    d = spec.to_dict()
    d.pop("name")
    return json.dumps(d, sort_keys=True)


class Runner:
    """Runs specs on tasks; caches each (spec, task) outcome (rows and true causes;
    trajectories are returned, not cached). Counts episodes actually played."""

    def __init__(self, taskset: TaskSet):
        self.ts = taskset
        self.rows: dict[tuple[str, str], dict] = {}
        self.truths: dict[tuple[str, str], object] = {}
        self.episodes = 0
        #: ``{"program", "task_id", "error"}`` for every episode that raised
        self.errors: list[dict] = []

    def run(self, spec: ProgramSpec, task_ids, trajectories: bool = False):
        """``(rows, trajectories or None)`` of ``spec`` on ``task_ids`` (in order)."""
        k = _key(spec)
        rows, trajs = [], []
        for t in task_ids:
            if (k, t) not in self.rows or trajectories:
                row, traj, truth = self._play(spec, t)
                self.episodes += 1
                self.rows[(k, t)], self.truths[(k, t)] = row, truth
                trajs.append(traj)
            rows.append({**self.rows[(k, t)], "program": spec.name})
        return rows, (trajs if trajectories else None)

    def _play(self, spec: ProgramSpec, t: str):
        """One traced episode; one that raises is a failed episode with its error."""
        try:
            return run_traced(self.ts.tasks[t], spec, budget=self.ts.budget,
                              seed=self.ts.seeds[t], profile=self.ts.profile,
                              tokenizer=self.ts.tokenizer(t))
        except ReplayMiss:
            raise   # a replay that lacks an answer: the run stops, no score
        except Exception as exc:  # noqa: BLE001 - a candidate's crash is its score
            from sim.evolve.contextevo.trace import Trajectory, Truth

            err = f"{type(exc).__name__}: {exc}"[:300]
            self.errors.append({"program": spec.name, "task_id": t, "error": err})
            row = {"task_id": t, "program": spec.name, "solved": 0, "score": 0.0,
                   "requests": 0, "mean_active": 0.0, "total_tokens": 0, "error": err}
            traj = Trajectory(t, self.ts.tasks[t].statement, 0, [], 0, spec.name,
                              budget=self.ts.budget, error=err)
            return row, traj, Truth(t, "run_error")

    def truths_of(self, spec: ProgramSpec, task_ids) -> list:
        """The true causes (scoring only)."""
        k = _key(spec)
        return [self.truths[(k, t)] for t in task_ids]


@dataclass
class EvolveConfig:
    """Loop settings: ``iterations`` (2), ``candidates`` per iteration (3),
    ``hypotheses`` tried per iteration (3: ContextEvo's candidates come from the moves
    of the judge's ``hypotheses`` strongest hypotheses,
    :func:`sim.evolve.contextevo.budget.rank_hypotheses`, before untried grammar moves;
    ours, a guess: as many as candidates, so each candidate can come from its own
    hypothesis), the four stages (``review``: paginated review, ``aggregate``:
    cross-case aggregation, ``replay``, ``update``: policy update), ``mode``
    (:data:`MODES`), ``exposed`` surfaces, split ``held_in_fraction``,
    ``held_out_families`` (:func:`sim.evolve.split.split_families`; default
    :data:`~sim.evolve.split.PER_TASK`, the paper's per-task split, which Evo-Harness's
    streams also use) and ``split_seed``, and ``seed``.

    Raises:
        ValueError: naming a bad ``mode``, ``iterations``, ``candidates``,
            ``hypotheses`` or surface.
    """

    iterations: int = 2
    candidates: int = 3
    hypotheses: int = 3
    review: bool = True
    aggregate: bool = True
    replay: bool = True
    update: bool = True
    mode: str = "contextevo"
    exposed: tuple[str, ...] = SURFACES
    held_in_fraction: float = PAPER_HELD_IN_FRACTION
    held_out_families: int | float | tuple[str, ...] | None = PER_TASK
    split_seed: int = PAPER_SEED
    seed: int = 0
    #: surfaces an ``ef_steps`` changeset changes (the editor's typical size)
    step_surfaces: int = 4
    #: also score attribution with an annotator at this mislabel rate (None: off)
    reference_mislabel: float | None = None

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.iterations < 1 or self.candidates < 1:
            raise ValueError(f"iterations and candidates must be >= 1, got "
                             f"{self.iterations}, {self.candidates}")
        if isinstance(self.hypotheses, bool) or not isinstance(self.hypotheses, int) \
                or self.hypotheses < 1:
            raise ValueError(f"hypotheses (tried per iteration) must be an integer >= 1, "
                             f"got {self.hypotheses!r}")
        bad = [s for s in self.exposed if s not in SURFACES]
        if bad:
            raise ValueError(f"unknown surface(s) {bad}; known: {list(SURFACES)}")


@dataclass
class EvolveResult:
    """Specs per stage (``start``, ``iter1``, ...), per-iteration logs, the split, and
    per-task solved (0/1) of every stage's spec on every task, and the episodes this
    call played (cached outcomes are not replayed)."""

    specs: dict[str, ProgramSpec]
    log: list[dict]
    held_in: tuple[str, ...]
    held_out: tuple[str, ...]
    solved: dict[str, dict[str, int]]
    episodes: int = 0
    #: stage -> ``{"task_id", "error"}`` of each task on which its spec raised
    errors: dict[str, list[dict]] = field(default_factory=dict)
    #: candidate specs scored on held-in (the budget spent: ``iterations x
    #: candidates`` for every arm, :mod:`sim.evolve.contextevo.budget`)
    evaluations: int = 0
    #: the families held out whole (:attr:`sim.evolve.split.Split.held_out_families`)
    held_out_families: tuple[str, ...] = ()


def select_candidate(current: tuple[str, ProgramSpec], scored: list[tuple[str, ProgramSpec, float]],
                     current_score: float, tiebreak: dict | None = None
                     ) -> tuple[str, ProgramSpec, float]:
    """The best candidate by held-in mean reward; the current spec wins ties with it
    (an iteration never lowers the held-in score). Candidates tied at the best score
    go by ``tiebreak`` (label -> tuple, larger first, compared in order;
    :func:`sim.evolve.contextevo.budget.tie_key`), and only then by their order in
    ``scored``."""
    best = max((sc for _, _, sc in scored), default=None)
    if best is None or best <= current_score + 1e-12:
        return current[0], current[1], current_score
    keys = tiebreak or {}
    # max keeps the first of equal keys: the fixed order is the last resort
    return max((c for c in scored if c[2] >= best - 1e-12), key=lambda c: keys.get(c[0], ()))


def _mean(rows) -> float:
    return float(np.mean([r["solved"] for r in rows])) if rows else 0.0


def _evaluate(runner, cands, held_in, evidence: dict | None = None):
    """Score each ``(label, spec)`` on held-in: ``(scored, tiebreak)`` for
    :func:`select_candidate` (tie keys from the candidate's hypothesis ``evidence``,
    label -> :attr:`~sim.evolve.contextevo.judge.Hypothesis.evidence`, and its rows)."""
    scored, keys = [], {}
    for lab, s in cands:
        rows = select_rows(runner, s, held_in)
        scored.append((lab, s, _mean(rows)))
        keys[lab] = tie_key((evidence or {}).get(lab, NO_EVIDENCE), rows)
    return scored, keys


def evolve(start: ProgramSpec, taskset: TaskSet, backend, config: EvolveConfig | None = None,
           runner: Runner | None = None) -> EvolveResult:
    """Run the loop from ``start`` (see the module docstring).

    Raises:
        ValueError: for an empty task set or a split leaving a side empty (from
            :func:`split_families`, naming the value).
    """
    cfg = config or EvolveConfig()
    split = split_families(taskset.names, cfg.held_out_families, cfg.held_in_fraction,
                           cfg.split_seed)
    held_in = list(split.held_in)
    runner = runner or Runner(taskset)
    played = runner.episodes
    rng = np.random.default_rng([cfg.seed, 11])
    spec = start
    specs = {"start": start}
    log = []
    tried = {_unnamed(start)}
    if cfg.mode in ("best_of_n", "single_move"):
        # one round from the start: the whole budget at once
        def draw():
            s = start
            for _ in range(int(rng.integers(1, 5))):
                s = random_spec_change(s, rng, cfg.exposed)
            return s

        n = cfg.iterations * cfg.candidates
        if cfg.mode == "best_of_n":
            picked = [(f"random{j}", s) for j, s in enumerate(
                take_fresh((draw() for _ in range(MAX_DRAWS * n)), tried, n))]
        else:
            picked = single_moves(start, cfg.exposed, n, rng)
        tag = "bon" if cfg.mode == "best_of_n" else "single"
        cands = [(lab, ProgramSpec.from_dict({**s.to_dict(), "name": f"{start.name}+{tag}"}))
                 for lab, s in picked]
        cur = _mean(runner.run(start, held_in)[0])
        scored, keys = _evaluate(runner, cands, held_in)
        label, spec, score = select_candidate(("start", start), scored, cur, keys)
        for i in range(cfg.iterations):
            specs[f"iter{i + 1}"] = spec
        log.append({"iteration": 1, "mode": cfg.mode, "selected": label,
                    "held_in_score": score, "candidates": {lab: sc for lab, _, sc in scored},
                    "evaluated": len(scored), **tie_record(scored, keys, label)})
    elif cfg.mode in ("ef_moves", "ef_steps"):
        for i in range(1, cfg.iterations + 1):
            spec, entry = _blind_iteration(i, spec, start.name, held_in, runner, cfg, rng,
                                           tried)
            specs[f"iter{i}"] = spec
            log.append(entry)
    else:
        for i in range(1, cfg.iterations + 1):
            if hasattr(backend, "round"):
                backend.round = i
            entry, spec = _iteration(i, spec, start.name, held_in, runner, backend, cfg, rng,
                                     tried)
            specs[f"iter{i}"] = spec
            log.append(entry)
    solved, errors = {}, {}
    for stage, s in specs.items():
        rows, _ = runner.run(s, taskset.names)
        solved[stage] = {r["task_id"]: int(r["solved"]) for r in rows}
        errors[stage] = [{"task_id": r["task_id"], "error": r["error"]} for r in rows
                         if r.get("error")]
    return EvolveResult(specs, log, split.held_in, split.held_out, solved,
                        runner.episodes - played, errors,
                        sum(e.get("evaluated", 0) for e in log), split.held_out_families)


def select_rows(runner: Runner, spec: ProgramSpec, held_in) -> list[dict]:
    """Candidate evaluation for selection (held-in rows only)."""
    return runner.run(spec, held_in)[0]


def _blind_iteration(i: int, spec: ProgramSpec, base: str, held_in, runner, cfg, rng,
                     tried: set):
    """One evidence-free iteration: ``candidates`` random grammar moves (``ef_moves``)
    or multi-surface steps (``ef_steps``) from ``spec``, best on held-in."""
    cur = _mean(runner.run(spec, held_in)[0])
    # never a spec evaluated before (as the editor): moves drawn without replacement,
    # a repeated step drawn again (the budget, :mod:`sim.evolve.contextevo.budget`)
    if cfg.mode == "ef_moves":
        source = (s for _, s in random_moves(spec, cfg.exposed, tried, rng))
    else:
        source = (random_changeset(spec, rng, cfg.step_surfaces, cfg.exposed)
                  for _ in range(MAX_DRAWS * cfg.candidates))
    picked = take_fresh(source, tried | {_unnamed(spec)}, cfg.candidates)
    cands = [(f"random{j}", ProgramSpec.from_dict({**s.to_dict(), "name": f"{base}+ef{i}"}))
             for j, s in enumerate(picked)]
    scored, keys = _evaluate(runner, cands, held_in)
    tried.update(_unnamed(s) for _, s, _ in scored)
    label, chosen, score = select_candidate(("keep", spec), scored, cur, keys)
    entry = {"iteration": i, "mode": cfg.mode, "held_in_score_before": cur,
             **tie_record(scored, keys, label),
             "candidates": {lab: sc for lab, _, sc in scored}, "selected": label,
             "held_in_score": score, "diff": [list(d) for d in diff(spec, chosen)],
             "changeset_surfaces": [len(diff(spec, s)) for _, s in cands],
             "evaluated": len(scored)}
    return (spec if label == "keep" else chosen), entry


def _iteration(i: int, spec: ProgramSpec, base: str, held_in, runner, backend, cfg, rng,
               tried: set | None = None):
    tried = set() if tried is None else tried
    entry: dict = {"iteration": i, "mode": cfg.mode}
    rows, trajs = runner.run(spec, held_in, trajectories=cfg.mode == "contextevo")
    cur = _mean(rows)
    entry["held_in_score_before"] = cur
    evidence: dict[str, tuple] = {}  # candidate -> its hypothesis's evidence
    if cfg.mode == "random_edits":
        picked = take_fresh((random_spec_change(spec, rng, cfg.exposed)
                             for _ in range(MAX_DRAWS * cfg.candidates)),
                            tried | {_unnamed(spec)}, cfg.candidates)
        new_specs = [(f"random{j}", ProgramSpec.from_dict({**s.to_dict(),
                                                            "name": f"{base}+r{i}"}))
                     for j, s in enumerate(picked)]
    else:
        cards = make_cards(trajs)
        reports = review(trajs, cards, backend, paginated=cfg.review,
                         page_limit=getattr(backend, "page_chars", _review.PAGE_CHARS))
        verdict = judge(cards, reports, trajs if cfg.replay else None,
                        aggregate=cfg.aggregate, use_replay=cfg.replay)
        entry["reports"] = {lab: sum(r.label == lab for r in reports)
                            for lab in _review.LABELS}
        entry["hypotheses"] = [h.to_dict() for h in verdict.hypotheses]
        entry["rejections"] = _judge.rejection_counts(entry["hypotheses"])
        if cfg.reference_mislabel is not None and hasattr(backend, "mislabel"):
            # the same trajectories read by an annotator that mislabels at the
            # reference rate (scoring only: its verdict is never used)
            ref = type(backend)(backend.seed, cfg.reference_mislabel)
            ref.round = getattr(backend, "round", 0)
            rrep = review(trajs, cards, ref, paginated=cfg.review)
            rver = judge(cards, rrep, trajs if cfg.replay else None,
                         aggregate=cfg.aggregate, use_replay=cfg.replay)
            rf = [c.task_id for c in cards if c.reward == 0]
            entry["attribution_reference"] = {
                "mislabel": cfg.reference_mislabel,
                "judge": attribution_scores({t: a for t, a in rver.attributions.items()
                                             if t in rf}, runner.truths_of(spec, rf)),
                "annotation": attribution_scores({r.task_id: r.label for r in rrep
                                                  if r.task_id in rf},
                                                 runner.truths_of(spec, rf))}
        failed = [c.task_id for c in cards if c.reward == 0]
        truths = runner.truths_of(spec, failed)
        entry["attribution"] = attribution_scores(
            {t: a for t, a in verdict.attributions.items() if t in failed}, truths)
        entry["annotation"] = attribution_scores(
            {r.task_id: r.label for r in reports if r.task_id in failed}, truths)
        new_specs, entry["changesets"], entry["sources"] = [], [], {}
        if cfg.update:
            # exactly ``candidates`` specs not evaluated before: the back-end's
            # proposals, then the next-ranked hypotheses' moves, then untried grammar
            # moves (:func:`sim.evolve.contextevo.budget.candidate_stream`)
            # the ``hypotheses`` strongest, in the judge's order
            top = {id(h) for h in rank_hypotheses(verdict.hypotheses)[:cfg.hypotheses]}
            tried_h = _judge.Judgement([h for h in verdict.hypotheses if id(h) in top],
                                       verdict.attributions)
            entry["hypotheses_tried"] = len(top)
            picks = backend.propose(tried_h, spec, cfg.candidates + len(tried))
            seen = tried | {_unnamed(spec)}
            for lab, edits, ev, source in candidate_stream(tried_h, spec, picks, rng,
                                                           seen, cfg.exposed):
                out = apply_changeset(spec, edits, cfg.exposed)
                fresh = not out.rejected and out.applied and _unnamed(out.spec) not in seen
                if fresh or out.rejected or not out.applied:
                    entry["changesets"].append({"move": lab, "edits": len(edits),
                                                "surfaces": len(diff(spec, out.spec)),
                                                "applied": out.applied,
                                                "discarded": out.discarded,
                                                "rejected": out.rejected})
                if not fresh:
                    continue  # refused, changed nothing, or evaluated before
                seen.add(_unnamed(out.spec))
                new_specs.append((lab, ProgramSpec.from_dict(
                    {**out.spec.to_dict(), "name": f"{base}+evo{i}"})))
                entry["sources"][lab], evidence[lab] = source, ev
                if len(new_specs) == cfg.candidates:
                    break
    scored, keys = _evaluate(runner, new_specs, held_in, evidence)
    tried.update(_unnamed(s) for _, s, _ in scored)
    label, chosen, score = select_candidate(("keep", spec), scored, cur, keys)
    entry.update(candidates={lab: sc for lab, _, sc in scored}, selected=label,
                 held_in_score=score, diff=[list(d) for d in diff(spec, chosen)],
                 evaluated=len(scored), **tie_record(scored, keys, label))
    if label == "keep":
        chosen = spec
    return entry, chosen

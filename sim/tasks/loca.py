"""A LOCA-bench-like generator: exact evidence among bulky results, superseded values
and distractors, and questions that need the exact latest value (VISTA §3.3, Fig. 4;
LOCA-bench's 75-task suite is 15 families x 5 seeds, reproduced here).

Context growth ``growth`` (tokens of tool results over the whole task, 8K..256K) is the
pressure knob; each instance realises ``growth * U(1 - j, 1 + j)`` (``j`` =
``TaskParams.growth_jitter``). The structure of each family is a documented parameter
set (:mod:`sim.tasks.families`); what makes a task hard is that structure, never a
hint:

* every tool result, evidence included, has a size drawn from the empirical law of the
  shipped trajectories' tool results (:mod:`sim.tasks.size_law`: their ln-shape, spread
  ``TaskParams.size_sd`` of ln tokens, median the family's), so some evidence is large
  and size-driven archiving can hit it; a buried family's evidence is a table ``buried_scale`` times larger;
* the call that returns a value looks like every other call (``search_rows
  {"page": 7}``): the record id appears in the result the agent reads, never in the
  call or the question, unless the family's ``source_named`` says so;
* a value can be superseded: a later result carries a newer record for the same key
  and the latest is right (stale families: every value; others: ``p_superseded``);
* a value of an overflow or churn family may sit in bulk data (``p_late_reuse``,
  :func:`bulk_facts`): its result is drawn from the size-biased law
  (:func:`sim.tasks.size_law.draw_size`), so it is among the largest results when
  pressure builds, and it is needed again late;
* distractors carry the same field for other entities (``record ACC-5512 total:
  ...``), ``distractors_per_fact`` per fact on average.

Everything is deterministic from ``(base_seed, family, seed, growth)`` and the
:class:`~sim.tasks.families.TaskParams`.
"""

from __future__ import annotations

import numpy as np

from sim.tasks.base import FINAL, OBSERVE, USE, Fact, Step, Task
from sim.tasks.families import FAMILIES, TaskParams, family_params, family_spec
from sim.tasks.size_law import draw_size
from sim.tasks.tokens import count_tokens, default_vocab

__all__ = ["FAMILIES", "GROWTH_LEVELS", "SEEDS_PER_FAMILY", "bulk_facts", "family_params",
           "loca_task", "loca_suite", "TOOLS"]

SEEDS_PER_FAMILY = 5
#: The Fig. 4 pressure levels (tokens of context growth).
GROWTH_LEVELS = (8_000, 16_000, 32_000, 64_000, 128_000, 256_000)
#: the task tools, in rotation: evidence comes from the same calls as the rest
TOOLS = ("list_files", "query_logs", "fetch_page", "search_rows")

_PREFIX = ("INV", "ORD", "TKT", "EMP", "SHP", "ACC", "SKU", "REQ", "LAB", "CRS")
_FIELDS = ("total", "owner id", "approved amount", "batch code")
#: smallest tool result (tokens)
_MIN_RESULT = 40


def _value(rng: np.random.Generator, kind: int) -> str:
    if kind == 0:
        return f"{rng.integers(100, 99_999)}.{rng.integers(0, 100):02d}"
    if kind == 1:
        return f"{_PREFIX[rng.integers(0, 10)]}-{rng.integers(10_000, 99_999)}"
    return f"row{rng.integers(1, 5000)}/qty{rng.integers(1, 500)}"


def _insert(rng: np.random.Generator, body: str, lines: list[str]) -> str:
    """``body`` with each of ``lines`` at a random line boundary."""
    rows = body.splitlines(keepends=True)
    for line in lines:
        rows.insert(int(rng.integers(0, len(rows) + 1)), line)
    return "".join(rows)


def loca_task(family: int, seed: int, growth: int, base_seed: int = 0,
              params: TaskParams | None = None) -> Task:
    """One task instance.

    Args:
        family: family index 0..14 (:func:`sim.tasks.families.family_spec`).
        seed: instance seed (LOCA uses 5 per family).
        growth: target tool-result tokens over the task (the pressure level).
        base_seed: suite seed; changes every instance.
        params: the shared task parameters (default: the world table's defaults).

    Raises:
        ValueError: for a bad family or ``growth`` < 1000.
    """
    if isinstance(growth, bool) or not isinstance(growth, (int, np.integer)) or growth < 1000:
        raise ValueError(f"growth must be an int >= 1000 tokens, got {growth!r}")
    spec = family_spec(family)
    tp = params or TaskParams()
    vocab = default_vocab()
    rng_f = np.random.default_rng([base_seed, 1, family, seed])
    rng_d = np.random.default_rng([base_seed, 2, family, seed, growth])

    ids: set[str] = set()

    def entity(j: int) -> str:
        while True:
            rec = f"{_PREFIX[(family + j) % 10]}-{rng_f.integers(1000, 9999)}"
            if rec not in ids:
                ids.add(rec)
                return rec

    facts = []  # (key, record, field, kind, first value, latest value or None)
    for j in range(spec.n_facts):
        rec, field, kind = entity(j), _FIELDS[(family + j) % 4], (family + j) % 3
        old = _value(rng_f, kind)
        sup = spec.superseded or rng_f.random() < tp.p_superseded
        new = None
        while sup and (new is None or new == old):
            new = _value(rng_f, kind)
        facts.append((f"record {rec} {field}", rec, field, kind, old, new))

    total = int(growth * rng_d.uniform(1 - tp.growth_jitter, 1 + tp.growth_jitter))
    med = float(min(spec.median_tokens, max(100, total // 16)))
    # no one result may take more than its share of a small task's growth
    cap = max(2 * _MIN_RESULT, total // (2 * spec.n_facts + 2))

    def draw(scale: float = 1.0, biased: bool = False) -> int:
        m = med * scale
        return int(np.clip(draw_size(rng_d, m, tp.size_sd, biased), _MIN_RESULT,
                           min(tp.max_result_ratio * m, cap)))

    # evidence and update results: sizes from the same law as every result, a value
    # in bulk data from the size-biased law (one normal draw either way, so a task
    # with no such value is the task it was without the mechanism)
    scale = tp.buried_scale if spec.evidence == "table" else 1.0
    bulk = set(bulk_facts(family, seed, base_seed, tp))
    ev_sizes = [draw(1.0, True) if j in bulk and f[5] is None else draw(scale)
                for j, f in enumerate(facts)]
    upd_sizes = [draw() for f in facts if f[5] is not None]
    remaining = total - sum(ev_sizes) - sum(upd_sizes)
    sizes: list[int] = []
    while remaining > _MIN_RESULT:
        sizes.append(min(draw(), remaining))
        remaining -= sizes[-1]
    n_d = len(sizes)
    bodies = [vocab.compose(rng_d, s) for s in sizes]
    # distractors: the same field for other entities, in the bulky results
    extra: list[list[str]] = [[] for _ in bodies]
    for j, (_, _, field, kind, _, _) in enumerate(facts):
        for _ in range(int(rng_d.poisson(tp.distractors_per_fact)) if bodies else 0):
            other = entity(j + 1 + int(rng_d.integers(0, 5)))
            extra[int(rng_d.integers(0, n_d))].append(
                f"record {other} {field}: {_value(rng_d, kind)}\n")
    results = []  # (content, tokens, fact keys, record names)
    for (body, tok), lines in zip(bodies, extra):
        results.append((_insert(rng_d, body, lines), tok + sum(map(count_tokens, lines)),
                        (), ()))

    def evidence(size: int, key: str, rec: str, value: str):
        body, tok = vocab.compose(rng_d, size)
        line = f"{key}: {value}\n"
        return (_insert(rng_d, body, [line]), tok + count_tokens(line), (key,), (rec,))

    ev_at = min(n_d, int(round(spec.arrival * n_d)))
    up_at = max(ev_at + 1, min(n_d, int(round(spec.update_at * n_d))))
    ev = [evidence(s, k, rec, old) for s, (k, rec, _, _, old, _) in zip(ev_sizes, facts)]
    upd = [evidence(s, k, rec, new) for s, (k, rec, _, _, _, new) in
           zip(upd_sizes, [f for f in facts if f[5] is not None])]
    ordered = results[:ev_at] + ev + results[ev_at:up_at] + upd + results[up_at:]
    last = max(ev_at + len(ev) + (up_at - ev_at + len(upd) if upd else 0), 1)
    n_all = len(ordered)
    use_at = sorted({min(n_all, int(round(x))) for x in
                     np.linspace(last, 0.9 * n_all, spec.n_uses + 2)[1:-1]})

    steps: list[Step] = []
    sources: dict[str, int] = {}
    for i, (content, tok, keys, recs) in enumerate(ordered):
        if i in use_at:
            steps.append(Step(USE, "update_record", needs=tuple(f[0] for f in facts),
                              phase=len(steps) // tp.phase_steps))
        tool = TOOLS[i % len(TOOLS)]
        args = f'{{"page": {i}}}'
        if spec.source_named and recs:
            tool, args = "lookup", f'{{"record": "{recs[0]}"}}'
        for k in keys:
            sources[k] = len(steps)  # the latest result with the key is right
        steps.append(Step(OBSERVE, tool, args, content, tok, keys,
                          phase=len(steps) // tp.phase_steps))
    if n_all in use_at:
        steps.append(Step(USE, "update_record", needs=tuple(f[0] for f in facts),
                          phase=len(steps) // tp.phase_steps))
    steps.append(Step(FINAL, "answer", needs=tuple(f[0] for f in facts),
                      phase=len(steps) // tp.phase_steps))
    fact_objs = {k: Fact(k, new if new is not None else old, sources[k],
                         source_known=spec.source_named)
                 for k, _, _, _, old, new in facts}
    keys = ", ".join(f[0] for f in facts)
    name = spec.name
    statement = (f"Task ({name}): work through the {name.replace('_', ' ')} workflow. "
                 f"Find {keys}; later steps write these exact values, and the final "
                 f"answer must report them exactly. Where a record was updated, the "
                 f"latest record is right.\n")
    if spec.source_named:
        statement += "Each record is returned by lookup with its record id.\n"
    return Task(f"loca/{name}/s{seed}/{growth}", name, seed, growth, statement,
                tuple(steps), fact_objs)


def bulk_facts(family: int, seed: int, base_seed: int = 0,
               params: TaskParams | None = None) -> tuple[int, ...]:
    """The indexes (in the task's fact order) of the values of ``loca_task(family,
    seed, ..., base_seed, params)`` drawn to sit in bulk data: each with probability
    ``TaskParams.p_late_reuse`` in a family with ``bulk_reuse``, from its own stream
    (keyed by ``(base_seed, family, seed)``, not the growth, so the same values at
    every level, and no other draw of the task moves). A superseded value among them
    keeps an ordinary result (its early record is not needed again).

    Raises:
        ValueError: for a bad family (:func:`family_spec`).
    """
    spec = family_spec(family)
    tp = params or TaskParams()
    if not spec.bulk_reuse:
        return ()
    u = np.random.default_rng([base_seed, 3, family, seed]).random(spec.n_facts)
    return tuple(int(j) for j in np.flatnonzero(u < tp.p_late_reuse))


def loca_suite(seeds: int = SEEDS_PER_FAMILY,
               families: int = len(FAMILIES)) -> list[tuple[int, int]]:
    """The ``(family, seed)`` pairs of a LOCA suite (75 by default), the same at every
    growth level and sweep seed (those are :func:`loca_task`'s own arguments); build
    each with :func:`loca_task` where it runs, so tasks are generated once per worker.

    Raises:
        ValueError: for ``seeds < 1`` or ``families`` outside ``1..len(FAMILIES)``.
    """
    if seeds < 1:
        raise ValueError(f"seeds must be >= 1, got {seeds}")
    if not 1 <= families <= len(FAMILIES):
        raise ValueError(f"families must be in 1..{len(FAMILIES)}, got {families}")
    return [(f, s) for f in range(families) for s in range(seeds)]

"""A LOCA-bench-like generator: early exact evidence, bulky distractors, a final
question that needs the exact evidence (VISTA §3.3, Fig. 4; LOCA-bench's 75-task suite
is 15 families x 5 seeds, reproduced here).

Context growth ``growth`` (tokens of tool results over the whole task, 8K..256K) is the
pressure knob; each instance realises ``growth * U(0.75, 1.25)`` so the failure onset
is gradual rather than a cliff at the budget. Families differ in the number of facts,
whether evidence sits in a small lookup result or is buried in a bulky table, where it
arrives (early or mid-task), how many intermediate writes need it, and the distractor
size scale. Everything is deterministic from ``(base_seed, family, seed, growth)``.
"""

from __future__ import annotations

import numpy as np

from sim.tasks.base import FINAL, OBSERVE, USE, Fact, Step, Task
from sim.tasks.tokens import count_tokens, default_vocab

#: 15 families, named after LOCA-bench-like workflows (names are labels only).
FAMILIES = ("canvas_grades", "orders_reconcile", "calendar_merge", "inventory_audit",
            "ticket_triage", "payroll_check", "shipment_trace", "crm_dedupe",
            "invoice_match", "sheet_rollup", "repo_release", "lab_results",
            "travel_budget", "course_enroll", "vendor_quotes")
SEEDS_PER_FAMILY = 5
#: The Fig. 4 pressure levels (tokens of context growth).
GROWTH_LEVELS = (8_000, 16_000, 32_000, 64_000, 128_000, 256_000)

_PREFIX = ("INV", "ORD", "TKT", "EMP", "SHP", "ACC", "SKU", "REQ", "LAB", "CRS")


def family_params(family: int) -> dict:
    """The fixed parameters of family ``family`` (0..14).

    Returns a dict: ``n_facts`` (1..3), ``buried`` (evidence inside a bulky table),
    ``mid`` (evidence arrives mid-task), ``n_uses`` (intermediate writes needing
    evidence, 0..2), ``distractor_mean`` (tokens per bulky result).

    Raises:
        ValueError: for a family outside ``range(15)``.
    """
    if not 0 <= family < len(FAMILIES):
        raise ValueError(f"family must be in 0..{len(FAMILIES) - 1}, got {family}")
    return {
        "n_facts": 1 + family % 3,
        "buried": family % 5 in (1, 3),
        "mid": family % 4 == 3,
        "n_uses": family % 3 if family % 2 else 0,
        "distractor_mean": (1_500, 3_000, 5_000)[(family // 3) % 3],
    }


def _value(rng: np.random.Generator, kind: int) -> str:
    if kind == 0:
        return f"{rng.integers(100, 99_999)}.{rng.integers(0, 100):02d}"
    if kind == 1:
        return f"{_PREFIX[rng.integers(0, 10)]}-{rng.integers(10_000, 99_999)}"
    return f"row{rng.integers(1, 5000)}/qty{rng.integers(1, 500)}"


def loca_task(family: int, seed: int, growth: int, base_seed: int = 0) -> Task:
    """One task instance.

    Args:
        family: family index 0..14.
        seed: instance seed (LOCA uses 5 per family).
        growth: target tool-result tokens over the task (the pressure level).
        base_seed: suite seed; changes every instance.

    Raises:
        ValueError: for a bad family or ``growth`` < 1000.
    """
    if growth < 1000:
        raise ValueError(f"growth must be >= 1000 tokens, got {growth}")
    p = family_params(family)
    name = FAMILIES[family]
    vocab = default_vocab()
    rng_f = np.random.default_rng([base_seed, 1, family, seed])
    rng_d = np.random.default_rng([base_seed, 2, family, seed, growth])

    facts: list[tuple[str, str]] = []
    for j in range(p["n_facts"]):
        rec = f"{_PREFIX[(family + j) % 10]}-{rng_f.integers(1000, 9999)}"
        field = ("total", "owner id", "approved amount", "batch code")[(family + j) % 4]
        facts.append((f"record {rec} {field}", _value(rng_f, (family + j) % 3)))

    total = int(growth * rng_d.uniform(0.75, 1.25))
    dmean = min(p["distractor_mean"], max(400, total // 5))
    # Evidence results: a short lookup (fact first, then context rows) or a bulky
    # table with the fact buried at a random row.
    evidence: list[tuple[str, str, int]] = []
    for key, val in facts:
        line = f"{key}: {val}\n"
        if p["buried"]:
            body, btok = vocab.compose(rng_d, max(200, int(dmean * rng_d.uniform(0.8, 1.6))))
            lines = body.splitlines(keepends=True)
            pos = int(rng_d.integers(1, max(2, len(lines))))
            content = "".join(lines[:pos]) + line + "".join(lines[pos:])
            tokens = btok + count_tokens(line)
        else:
            body, btok = vocab.compose(rng_d, int(rng_d.integers(80, 300)))
            content = line + body
            tokens = count_tokens(line) + btok
        evidence.append((key, content, tokens))
    ev_tokens = sum(t for _, _, t in evidence)

    distractors: list[tuple[str, int]] = []
    remaining = total - ev_tokens
    while remaining > 100:
        size = int(np.clip(rng_d.lognormal(np.log(dmean), 0.5), 100, 4 * dmean))
        size = min(size, remaining)
        distractors.append(vocab.compose(rng_d, size))
        remaining -= distractors[-1][1]

    n_d = len(distractors)
    ev_at = n_d // 2 if p["mid"] else min(1, n_d)
    steps: list[Step] = []
    fact_objs: dict[str, Fact] = {}
    phase_len = 6

    def add_observe(tool, args, content, tokens, keys=()):
        steps.append(Step(OBSERVE, tool, args, content, tokens, tuple(keys),
                          phase=len(steps) // phase_len))

    use_at = sorted({int(n_d * x) for x in (0.6, 0.85)[:p["n_uses"]]})
    for i in range(n_d + 1):
        if i == ev_at:
            for (key, content, tokens) in evidence:
                rec = key.split()[1]
                fact_objs[key] = Fact(key, dict(facts)[key], len(steps))
                add_observe("lookup" if not p["buried"] else "export_table",
                            f'{{"record": "{rec}"}}', content, tokens, [key])
        if i in use_at:
            steps.append(Step(USE, "update_record", needs=tuple(k for k, _ in facts),
                              phase=len(steps) // phase_len))
        if i < n_d:
            content, tokens = distractors[i]
            tool = ("list_files", "query_logs", "fetch_page", "search_rows")[i % 4]
            add_observe(tool, f'{{"page": {i}}}', content, tokens)
    steps.append(Step(FINAL, "answer", needs=tuple(k for k, _ in facts),
                      phase=len(steps) // phase_len))
    keys = ", ".join(k for k, _ in facts)
    statement = (f"Task ({name}): work through the {name.replace('_', ' ')} workflow. "
                 f"Look up {keys}; later steps write these exact values, and the final "
                 f"answer must report them exactly.\n")
    task = Task(f"loca/{name}/s{seed}/{growth}", name, seed, growth, statement,
                tuple(steps), fact_objs)
    return task


def loca_suite(growth: int, seeds: int = SEEDS_PER_FAMILY, families: int = len(FAMILIES),
               base_seed: int = 0) -> list[tuple[int, int]]:
    """The ``(family, seed)`` pairs of one pressure level (75 by default); build each
    with :func:`loca_task` where it runs, so tasks are generated once per worker."""
    return [(f, s) for f in range(families) for s in range(seeds)]

"""A retrieval-then-synthesis generator (BrowseComp-Plus-like; VISTA §3.3, Fig. 6).

The agent retrieves documents; two or three of them are gold: each holds one exact
value the answer needs (a key ``"<subject> <id> <attribute>"``, e.g. ``"vessel
VS-4821 registry number"``). The first gold document arrives at a depth (tokens
retrieved before it) drawn lognormal with median ``depth_median`` (the paper's median
first-retrieval depth, ~17K tokens), the others 1 to ``max_gap`` documents later;
retrieval goes on for a lognormal ``after_median`` tokens more, then one synthesis
step needs every gold value at once. Every number is a field of
:class:`BrowseParams`, with its prior range and source in :mod:`sim.world`
(``browse.<field>``; ``ctxsim world``).

What makes a query hard is its structure, never a hint (issue 17, as the LOCA-like
families, :mod:`sim.tasks.loca`):

* every document, gold included, has a size drawn from the empirical law of the
  shipped trajectories' tool results (:mod:`sim.tasks.size_law`; spread ``size_sd`` of
  ln tokens, median ``doc_median``, clipped to ``[MIN_DOC, max_doc_ratio x doc_median]``), so some
  gold documents are large and size-driven archiving can hit them;
* every call is ``search {"q": "q7", "page": 12}``: the entity id appears in the
  document the agent reads, never in the call or the question, unless
  ``source_named`` says so (then a gold document comes from ``fetch {"doc": id}``
  and ``Fact.source_known`` is True);
* a value can be superseded (probability ``p_superseded``): a later document, after
  the last gold one, revises it, and the revised value is right;
* distractors carry the same attribute for other entities of the same kind,
  ``distractors_per_fact`` per fact on average (Poisson), in any document.

The agent does not know in advance which documents are gold: it knows only what it
read, so a gold document it never saw in full (offloaded on entry at a tiny window)
must be searched for in its archive.

The window W is the sweep coordinate (budget = W) and does not change the task.
Expected pattern: at large W nothing is evicted and every program ties; at mid W
ReAct's truncation drops the early gold documents while VISTA can archive and recover
them; at tiny W the synthesis working set plus the fixed protocol overhead plus the
dashboard no longer fits, so recovery is refused and VISTA fails too. Whether it
shows is what the sweep finds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sim.tasks.base import FINAL, OBSERVE, Fact, Step, Task
# one way to place lines in a result, shared with the LOCA-like generator
from sim.tasks.loca import _insert
from sim.tasks.size_law import draw_size
from sim.tasks.tokens import count_tokens, default_vocab
from sim.world_param import PROBABILITY, world_param

#: the Fig. 6 window sweep (tokens)
WINDOWS = (4_000, 8_000, 12_000, 16_000, 24_000, 32_000, 64_000)
#: smallest document (tokens): a title and a snippet
MIN_DOC = 60

_SUBJECTS = (("vessel", "VS"), ("album", "AL"), ("station", "ST"), ("patent", "PT"),
             ("author", "AU"))
_ATTRIBUTES = ("registry number", "catalog number", "record number", "filing code")


@dataclass(frozen=True)
class BrowseParams:
    """The parameters of the BrowseComp-like generator. Each numeric field is a row
    of the world table (``browse.<field>``, :mod:`sim.world`), its default, prior
    range, unit and source declared once here (:func:`sim.world_param.world_param`).

    Attributes:
        depth_median: median tokens retrieved before the first gold document.
        depth_sd: sd of ln(depth).
        after_median: median tokens retrieved after the last gold document.
        after_sd: sd of ln(after).
        max_gap: gold documents lie 1..max_gap documents apart (uniform).
        doc_median: median document size (tokens).
        size_sd: sd of ln(tokens) of every document (the size law's spread).
        max_doc_ratio: largest document relative to ``doc_median``.
        p_superseded: P(a gold value is revised by a later document).
        distractors_per_fact: mean lines with the same attribute for another entity.
        phase_steps: documents per phase (a scope: folding folds each finished one).
        source_named: the calls and the question name the document holding each
            value (not a number; False by default, no default task names it).
    """

    depth_median: float = world_param(
        17_000.0, 12_000.0, 24_000.0, "tokens",
        "VISTA §3.3: the first gold document is retrieved at a median depth of "
        "~17K tokens on BrowseComp-Plus; the range allows for the paper's rounding "
        "and backbone differences",
        "median tokens retrieved before the first gold document")
    depth_sd: float = world_param(
        0.5, 0.2, 1.0, "sd of ln tokens",
        "guess: the paper reports a median depth only", "spread of that depth")
    after_median: float = world_param(
        14_000.0, 5_000.0, 30_000.0, "tokens",
        "guess: retrieval goes on after the last gold document until the agent "
        "synthesises; no measurement", "median tokens retrieved after the last gold "
        "document")
    after_sd: float = world_param(
        0.4, 0.1, 0.8, "sd of ln tokens",
        "guess: no measurement", "spread of that tail")
    max_gap: int = world_param(
        3, 1, 6, "documents",
        "guess: gold documents of one question are found close together",
        "gold documents lie 1..max_gap documents apart", integer=True)
    doc_median: float = world_param(
        900.0, 300.0, 2_500.0, "tokens",
        "guess: BrowseComp-Plus documents are web pages of a few K tokens; 900 "
        "gives the previous generator's mean document (~2.3K tokens) under the "
        "size law", "median document size")
    size_sd: float = world_param(
        1.637, 1.0, 2.2, "sd of ln tokens",
        "the size law is the empirical distribution of the 418 real tool results in "
        "the shipped trajectories (sim/tasks/size_law.py; no fitted law passes KS, "
        "lognormal D 0.189 vs 0.044: experiments/priors/sizes.py), whose ln-sd is "
        "1.637; guess: the range stretches that shape for web pages differing from "
        "those tools", "spread of every document's size, gold included")
    max_doc_ratio: float = world_param(
        12.0, 4.0, 50.0, "ratio",
        "guess: retrievers truncate long pages; the shipped trajectories' largest "
        "result is ~400x their median, so this clip is a choice",
        "largest document relative to the median", log=True)
    p_superseded: float = world_param(
        0.15, 0.02, 0.5, PROBABILITY,
        "guess: how often a later page revises a value an earlier one gave",
        "a gold value is revised by a later document (the revision is right)")
    distractors_per_fact: float = world_param(
        3.0, 0.5, 10.0, "lines per fact",
        "guess: pages on similar entities list the same attribute",
        "mean number of distractor lines (same attribute, other entity)", log=True)
    # issue 31: the length of a query's phase (a constant 6 before)
    phase_steps: int = world_param(
        6, 3, 24, "steps",
        "guess: how many documents one retrieval scope spans; no measurement",
        "documents per phase (the scope Context-Folding folds on return)",
        integer=True)
    #: not a number, so not a row of the world table
    source_named: bool = False

    def with_(self, **changes) -> "BrowseParams":
        """A copy with ``changes`` applied."""
        return replace(self, **changes)


#: median first-retrieval depth of the first gold document (tokens), VISTA §3.3
MEDIAN_DEPTH = int(BrowseParams().depth_median)
#: median retrieval after the last gold document (tokens)
MEDIAN_AFTER = int(BrowseParams().after_median)


def browse_task(query: int, seed: int = 0, base_seed: int = 0,
                params: BrowseParams | None = None) -> Task:
    """One query with ``2 + query % 2`` gold documents.

    Args:
        query: query index (also sets the number of gold documents).
        seed: instance seed.
        base_seed: sweep seed.
        params: the generator's parameters (default: the world table's defaults).

    Returns:
        a :class:`Task` (``level`` 0: the window is the sweep's, not the task's).

    Raises:
        ValueError: for a negative ``query`` or a ``params.doc_median`` below
            ``MIN_DOC`` tokens.
    """
    bp = params or BrowseParams()
    if isinstance(query, bool) or not isinstance(query, (int, np.integer)) or query < 0:
        raise ValueError(f"query must be an int >= 0, got {query!r}")
    if bp.doc_median < MIN_DOC:
        raise ValueError(f"doc_median must be >= {MIN_DOC} tokens, got {bp.doc_median}")
    rng_f = np.random.default_rng([base_seed, 3, query, seed])
    rng_d = np.random.default_rng([base_seed, 4, query, seed])
    vocab = default_vocab()
    n_gold = 2 + query % 2

    subject, prefix = _SUBJECTS[query % len(_SUBJECTS)]
    ids: set[str] = set()

    def entity() -> str:
        while True:
            e = f"{prefix}-{rng_f.integers(1000, 9999)}"
            if e not in ids:
                ids.add(e)
                return e

    def value() -> str:
        return f"{rng_f.integers(1000, 9999)}-{rng_f.integers(100, 999)}"

    facts = []  # (key, entity, attribute, first value, revised value or None)
    for j in range(n_gold):
        ent, attr = entity(), _ATTRIBUTES[(query + j) % len(_ATTRIBUTES)]
        old, new = value(), None
        revised = rng_f.random() < bp.p_superseded
        while revised and (new is None or new == old):
            new = value()
        facts.append((f"{subject} {ent} {attr}", ent, attr, old, new))

    depth = float(rng_d.lognormal(np.log(bp.depth_median), bp.depth_sd))
    gaps = rng_d.integers(1, bp.max_gap + 1, size=n_gold - 1)
    tail = float(rng_d.lognormal(np.log(bp.after_median), bp.after_sd))
    hi = bp.max_doc_ratio * bp.doc_median

    # documents in retrieval order: sizes from the size law; gold positions from the
    # depth and the gaps (measured on the bodies, before any line is inserted)
    bodies: list[tuple[str, int]] = []
    gold_at: list[int] = []
    acc, since, end = 0.0, 0, None
    while end is None or acc < end:
        size = int(np.clip(draw_size(rng_d, bp.doc_median, bp.size_sd), MIN_DOC, hi))
        bodies.append(vocab.compose(rng_d, size))
        if len(gold_at) < n_gold and acc >= depth and (
                not gold_at or since >= gaps[len(gold_at) - 1]):
            gold_at.append(len(bodies) - 1)
            since = 0
            if len(gold_at) == n_gold:
                end = acc + bodies[-1][1] + tail
        else:
            since += 1
        acc += bodies[-1][1]
    if any(f[4] is not None for f in facts) and len(bodies) == gold_at[-1] + 1:
        bodies.append(vocab.compose(rng_d, int(bp.doc_median)))  # room for a revision

    lines: list[list[str]] = [[] for _ in bodies]
    keys_of: list[list[str]] = [[] for _ in bodies]
    sources: dict[str, int] = {}
    for (key, _, _, old, new), at in zip(facts, gold_at):
        lines[at].append(f"{key}: {old}\n")
        keys_of[at].append(key)
        sources[key] = at
        if new is not None:
            up = int(rng_d.integers(gold_at[-1] + 1, len(bodies)))
            lines[up].append(f"{key}: {new}\n")
            keys_of[up].append(key)
            sources[key] = up  # the revision is right
    for _, _, attr, _, _ in facts:
        for _ in range(int(rng_d.poisson(bp.distractors_per_fact))):
            other = entity()
            lines[int(rng_d.integers(0, len(bodies)))].append(
                f"{subject} {other} {attr}: {value()}\n")

    steps: list[Step] = []
    for i, ((body, tok), extra) in enumerate(zip(bodies, lines)):
        content = _insert(rng_d, body, extra)
        tool, args = "search", f'{{"q": "q{query}", "page": {i}}}'
        if bp.source_named and keys_of[i]:
            ent = next(f[1] for f in facts if f[0] == keys_of[i][0])
            tool, args = "fetch", f'{{"doc": "{ent}"}}'
        steps.append(Step(OBSERVE, tool, args, content,
                          tok + sum(map(count_tokens, extra)), tuple(keys_of[i]),
                          phase=i // bp.phase_steps))
    keys = [f[0] for f in facts]
    steps.append(Step(FINAL, "answer", needs=tuple(keys),
                      phase=len(steps) // bp.phase_steps))
    fact_objs = {key: Fact(key, new if new is not None else old, sources[key],
                           source_known=bp.source_named)
                 for key, _, _, old, new in facts}
    statement = (f"Research question Q{query}: find {', '.join(keys)} in the retrieved "
                 "documents and report each exactly. Where a later document revises "
                 "a value, the revised value is right.\n")
    if bp.source_named:
        statement += "Each gold document is returned by fetch with its id.\n"
    return Task(f"browse/q{query}/s{seed}", "browse", seed, 0, statement, tuple(steps),
                fact_objs)

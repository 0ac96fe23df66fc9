"""A retrieval-then-synthesis generator (BrowseComp-Plus-like; VISTA §3.3, Fig. 6).

The agent retrieves documents of a few K tokens each. Two or three of them are gold:
each holds one exact value the answer needs. The first gold document arrives at a
depth (tokens retrieved before it) drawn lognormal with median ~17K tokens (the
paper's median first-retrieval depth), the others a few documents later; retrieval
goes on for a lognormal ~14K tokens more, then one synthesis step needs every gold
value at once. The agent does not know in advance which documents are gold
(``source_known=False``): it knows only what it read, so a gold document it never saw
in full (offloaded on entry at a tiny window) must be searched for in its archive.

The window W is the sweep coordinate (budget = W). Why accuracy peaks in the middle
for VISTA: at large W nothing is evicted and every program ties; at mid W ReAct's
truncation drops the early gold documents while VISTA archives and recovers them;
at tiny W the synthesis working set (the gold documents recovered together) plus the
fixed protocol overhead plus the dashboard (a row per registered block) no longer
fits, so recovery is refused and VISTA fails too.
"""

from __future__ import annotations

import numpy as np

from sim.tasks.base import FINAL, OBSERVE, Fact, Step, Task
from sim.tasks.tokens import count_tokens, default_vocab

#: median first-retrieval depth of the first gold document (tokens), VISTA §3.3
MEDIAN_DEPTH = 17_000
#: median retrieval after the last gold document (tokens)
MEDIAN_AFTER = 14_000
#: the Fig. 6 window sweep (tokens)
WINDOWS = (4_000, 8_000, 12_000, 16_000, 24_000, 32_000, 64_000)


def browse_task(query: int, seed: int = 0, doc_mean: int = 2_200,
                after: int = MEDIAN_AFTER, base_seed: int = 0) -> Task:
    """One query with ``2 + query % 2`` gold documents.

    Args:
        query: query index (also sets the number of gold documents).
        seed: instance seed.
        doc_mean: median document size (tokens; lognormal, sigma 0.35).
        after: median tokens retrieved after the last gold document.
        base_seed: sweep seed.

    Raises:
        ValueError: if ``doc_mean`` < 100.
    """
    if doc_mean < 100:
        raise ValueError(f"doc_mean must be >= 100 tokens, got {doc_mean}")
    rng = np.random.default_rng([base_seed, 3, query, seed])
    vocab = default_vocab()
    n_gold = 2 + query % 2
    depth = float(rng.lognormal(np.log(MEDIAN_DEPTH), 0.5))
    # gold documents 1-3 documents apart, so they are read close together
    gaps = rng.integers(1, 4, size=n_gold - 1)
    tail = float(rng.lognormal(np.log(after), 0.4))
    keys = [f"doc fact Q{query}-{seed}-{j}" for j in range(n_gold)]
    values = [f"{rng.integers(1000, 9999)}-{rng.integers(100, 999)}" for _ in keys]
    steps: list[Step] = []
    facts: dict[str, Fact] = {}
    acc, next_gold, since, end = 0.0, 0, 0, None
    while end is None or acc < end:
        size = int(np.clip(rng.lognormal(np.log(doc_mean), 0.35), 300, 3 * doc_mean))
        body, tok = vocab.compose(rng, size)
        gold = next_gold < n_gold and acc >= depth and (
            next_gold == 0 or since >= gaps[next_gold - 1])
        key = ()
        if gold:
            k, v = keys[next_gold], values[next_gold]
            lines = body.splitlines(keepends=True)
            pos = int(rng.integers(0, len(lines)))
            line = f"{k}: {v}\n"
            body = "".join(lines[:pos]) + line + "".join(lines[pos:])
            tok += count_tokens(line)
            facts[k] = Fact(k, v, len(steps), source_known=False)
            key, next_gold, since = (k,), next_gold + 1, 0
            if next_gold == n_gold:
                end = acc + tok + tail
        else:
            since += 1
        steps.append(Step(OBSERVE, "search", f'{{"q": "q{query}", "page": {len(steps)}}}',
                          body, tok, key, phase=len(steps) // 6))
        acc += tok
    steps.append(Step(FINAL, "answer", needs=tuple(keys), phase=len(steps) // 6))
    statement = (f"Research question Q{query}: find {', '.join(keys)} in the retrieved "
                 "documents and report each exactly.\n")
    return Task(f"browse/q{query}/s{seed}", "browse", seed, 0, statement, tuple(steps),
                facts)

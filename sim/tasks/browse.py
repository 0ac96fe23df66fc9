"""A retrieval-then-synthesis generator (BrowseComp-Plus-like; VISTA §3.3, Fig. 6).

The agent retrieves documents; the gold document, which holds the exact answer,
arrives at a depth (tokens retrieved before it) drawn lognormal with median ~17K
tokens; more retrieval follows, then a synthesis step needs the exact value. The agent
does not know which document was gold (``source_known=False``), so after losing it a
recovering agent must search its archive. The window W is the sweep coordinate.
"""

from __future__ import annotations

import numpy as np

from sim.tasks.base import FINAL, OBSERVE, Fact, Step, Task
from sim.tasks.tokens import count_tokens, default_vocab

#: median first-retrieval depth of the gold document (tokens), VISTA §3.3
MEDIAN_DEPTH = 17_000
#: the Fig. 6 window sweep (tokens)
WINDOWS = (4_000, 8_000, 12_000, 16_000, 24_000, 32_000, 64_000)


def browse_task(query: int, seed: int = 0, doc_mean: int = 1_800, after: int = 14_000,
                base_seed: int = 0) -> Task:
    """One query: documents of ~``doc_mean`` tokens, gold at a lognormal depth
    (median :data:`MEDIAN_DEPTH`), then about ``after`` more tokens of retrieval.

    Raises:
        ValueError: if ``doc_mean`` < 100.
    """
    if doc_mean < 100:
        raise ValueError(f"doc_mean must be >= 100 tokens, got {doc_mean}")
    rng = np.random.default_rng([base_seed, 3, query, seed])
    vocab = default_vocab()
    depth = float(rng.lognormal(np.log(MEDIAN_DEPTH), 0.5))
    key = f"doc fact Q{query}-{seed}"
    value = f"{rng.integers(1000, 9999)}-{rng.integers(100, 999)}"
    steps: list[Step] = []
    acc, gold_at, total = 0, None, depth + after
    while acc < total or gold_at is None:
        size = int(np.clip(rng.lognormal(np.log(doc_mean), 0.4), 200, 4 * doc_mean))
        body, tok = vocab.compose(rng, size)
        if gold_at is None and acc >= depth:
            lines = body.splitlines(keepends=True)
            pos = int(rng.integers(0, len(lines)))
            line = f"{key}: {value}\n"
            body = "".join(lines[:pos]) + line + "".join(lines[pos:])
            tok += count_tokens(line)
            gold_at = len(steps)
        steps.append(Step(OBSERVE, "search", f'{{"q": "q{query}", "page": {len(steps)}}}',
                          body, tok, (key,) if gold_at == len(steps) else (),
                          phase=len(steps) // 6))
        acc += tok
    steps.append(Step(FINAL, "answer", needs=(key,), phase=len(steps) // 6))
    fact = Fact(key, value, gold_at, source_known=False)
    statement = (f"Research question Q{query}: find the {key} in the retrieved documents "
                 "and report it exactly.\n")
    return Task(f"browse/q{query}/s{seed}", "browse", seed, 0, statement, tuple(steps),
                {key: fact})

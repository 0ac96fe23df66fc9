"""Text similarity for Evo-Harness retrieval (Select) and merging (curation).

Three scorers, compared on a labelled set
(``tests/evolve/data/evoharness_retrieval.json``; table by
``python3 -m experiments.evoharness.similarity_table``):

* ``fuzz``: rapidfuzz ``token_set_ratio`` / 100. It scores 1.0 whenever one text's
  words are a subset of the other's, so a trigger of "the" matches every task and
  "restart the service" matches "do not restart the service";
* ``bm25``: Okapi BM25+ (rank-bm25's ``BM25Plus``: its IDF ``log((N+1)/df)`` stays
  positive on the handful of skills a harness holds, where plain Okapi IDF goes
  negative) of the query against the skill texts. A pair score is BM25 of one text
  against the other normalised by the other's self-score, the smaller of the two
  directions (0..1), so a text whose words are a subset of the other's does not score
  as a duplicate;
* ``combined``: reciprocal-rank fusion (k = 60) of the two rankings for retrieval, the
  mean of the two pair scores for merging.

Measured (45 queries over 17 skills, 26 labelled pairs): retrieval MRR fuzz 0.506,
bm25 0.941, combined 0.885; merge R-precision with the opposite-directive guard fuzz
1.000, bm25 0.917, combined 0.917 (precision at the F1-best threshold 1.000 / 0.857 /
0.923). Each job ships its winner: :data:`RETRIEVAL` (``bm25``) for Select and
:data:`MERGING` (``fuzz``) for the curator's duplicate test, at :data:`MERGE_AT`, the
F1-best fuzz threshold on the set (0.728) rounded down. Opposing directives are never
merged whatever the score (:func:`sim.evolve.evoharness.skills.conflict`).
"""

from __future__ import annotations

import functools
import re

from rank_bm25 import BM25Plus
from rapidfuzz import fuzz as _fuzz
from rapidfuzz import utils

METHODS = ("fuzz", "bm25", "combined")
#: the shipped scorers (module docstring: the measured winners per job)
RETRIEVAL = "bm25"
MERGING = "fuzz"
#: pair similarity at which a proposal is a duplicate of a held skill
MERGE_AT = 0.72
#: reciprocal-rank fusion constant (Cormack et al. 2009)
RRF_K = 60
_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> tuple[str, ...]:
    """Lowercase alphanumeric words of ``text``."""
    return tuple(_WORD.findall(text.lower()))


def fuzz(a: str, b: str) -> float:
    """rapidfuzz ``token_set_ratio`` of two texts after default processing (0..1)."""
    return float(_fuzz.token_set_ratio(a, b, processor=utils.default_process)) / 100.0


@functools.lru_cache(maxsize=4096)
def _bm25(docs: tuple[tuple[str, ...], ...]) -> BM25Plus:
    return BM25Plus([list(d) or ["_"] for d in docs])


def bm25_scores(query: str, docs) -> list[float]:
    """BM25+ scores of ``query`` against each text of ``docs`` (corpus = ``docs``)."""
    docs = tuple(tokens(d) for d in docs)
    if not docs:
        return []
    return [float(x) for x in _bm25(docs).get_scores(list(tokens(query)))]


def _rrf(*rankings: list[float]) -> list[float]:
    out = [0.0] * len(rankings[0])
    for scores in rankings:
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        for r, i in enumerate(order):
            out[i] += 1.0 / (RRF_K + r + 1)
    return out


def scores(query: str, docs, method: str = RETRIEVAL) -> list[float]:
    """Retrieval scores of ``query`` against each of ``docs`` (higher: more relevant).

    Raises:
        ValueError: for an unknown method (names it).
    """
    docs = list(docs)
    if method == "fuzz":
        return [fuzz(query, d) for d in docs]
    if method == "bm25":
        return bm25_scores(query, docs)
    if method == "combined":
        return _rrf([fuzz(query, d) for d in docs], bm25_scores(query, docs)) if docs \
            else []
    raise ValueError(f"unknown similarity method {method!r}; expected one of "
                     f"{list(METHODS)}")


def pair_similarity(a: str, b: str, corpus=(), method: str = MERGING) -> float:
    """How alike texts ``a`` and ``b`` are (0..1), with ``corpus`` (other texts, e.g.
    the harness's skills) supplying the term statistics for BM25.

    Raises:
        ValueError: for an unknown method (names it).
    """
    if method == "fuzz":
        return fuzz(a, b)
    docs = [a, b] + [c for c in corpus if c not in (a, b)]
    s = bm25_scores(a, docs)
    t = bm25_scores(b, docs)
    ab = s[1] / t[1] if t[1] > 0 else 0.0
    ba = t[0] / s[0] if s[0] > 0 else 0.0
    bm = min(1.0, ab, ba)
    if method == "bm25":
        return bm
    if method == "combined":
        return 0.5 * (bm + fuzz(a, b))
    raise ValueError(f"unknown similarity method {method!r}; expected one of "
                     f"{list(METHODS)}")

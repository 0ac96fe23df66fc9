"""Task generators: exact token counts (additivity against the real tokenizer),
determinism, structure."""

import numpy as np
import pytest

from sim.tasks.browse import MEDIAN_DEPTH, browse_task
from sim.tasks.loca import loca_suite, loca_task
from sim.tasks.tokens import count_tokens, default_vocab


def test_vocab_counts_are_additive(seed):
    vocab = default_vocab()
    rng = np.random.default_rng(seed)
    for target in (1, 50, 3_000):
        text, n = vocab.compose(rng, target)
        assert n == count_tokens(text) and n >= target


@pytest.mark.parametrize("family", [0, 1, 3, 7, 14])
def test_loca_step_tokens_exact_and_deterministic(family):
    t1, t2 = loca_task(family, 2, 16_000), loca_task(family, 2, 16_000)
    t1.validate()
    assert t1 == t2
    for s in t1.steps:
        assert s.tokens == count_tokens(s.content)
    assert 0.7 * 16_000 <= t1.observation_tokens <= 1.3 * 16_000


def test_loca_suite_is_75_and_errors():
    assert len(loca_suite()) == 75 and loca_suite()[:2] == [(0, 0), (0, 1)]
    assert loca_suite(seeds=1, families=2) == [(0, 0), (1, 0)]
    assert len(loca_suite(families=15)) == 75
    for bad in (dict(seeds=0), dict(families=0), dict(families=16)):
        with pytest.raises(ValueError, match=str(next(iter(bad.values())))):
            loca_suite(**bad)
    with pytest.raises(ValueError):
        loca_task(15, 0, 8_000)
    with pytest.raises(ValueError):
        loca_task(0, 0, 10)


def test_browse_depth_median():
    """The first gold document (the first result showing any answer line) sits at
    a median depth near ``MEDIAN_DEPTH``; step tokens are exact."""
    depths = []
    for q in range(40):
        t = browse_task(q)
        t.validate()
        first = min(i for i, s in enumerate(t.steps)
                    if any(f.line.split(": ")[0] + ": " in s.content
                           for f in t.facts.values()))
        depths.append(sum(s.tokens for s in t.steps[:first]))
        if q < 4:
            assert all(s.tokens == count_tokens(s.content) for s in t.steps)
    assert 0.6 * MEDIAN_DEPTH < np.median(depths) < 1.6 * MEDIAN_DEPTH


def test_browse_errors_and_determinism():
    assert browse_task(5, 1) == browse_task(5, 1) != browse_task(5, 2)
    with pytest.raises(ValueError, match="query"):
        browse_task(-1)
    from sim.tasks.browse import BrowseParams
    with pytest.raises(ValueError, match="doc_median"):
        browse_task(0, params=BrowseParams(doc_median=10))

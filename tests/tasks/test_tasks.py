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
    assert len(loca_suite(8_000)) == 75
    with pytest.raises(ValueError):
        loca_task(15, 0, 8_000)
    with pytest.raises(ValueError):
        loca_task(0, 0, 10)


def test_browse_depth_median():
    depths = []
    for q in range(40):
        t = browse_task(q)
        t.validate()
        f = next(iter(t.facts.values()))
        depths.append(sum(s.tokens for s in t.steps[: f.source]))
    assert 0.6 * MEDIAN_DEPTH < np.median(depths) < 1.6 * MEDIAN_DEPTH

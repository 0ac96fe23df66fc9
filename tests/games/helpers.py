"""Exact binomial checks for simulated success rates.

A normal approximation with the plug-in or the exact SE fails for rare events:
2 successes in 1500 trials at p = 2.44e-4 is z = 6.1 but has probability 0.05. These
helpers use the binomial law itself (scipy.stats.binom), so their false-alarm
probability is what they state, whatever p.
"""

from scipy import stats

#: Two-sided false-alarm probability of the normal 5-sigma rule, kept as the level.
ALPHA_EXACT = 5.7e-7
#: One-sided level of the normal 4-sigma rule, for "at most the bound" checks.
ALPHA_BOUND = 3.2e-5


def binomial_two_sided_p(successes: int, trials: int, p: float) -> float:
    """Two-sided p-value of ``successes`` in ``trials`` under Binomial(trials, p):
    twice the smaller tail, capped at 1."""
    low = stats.binom.cdf(successes, trials, p)
    high = stats.binom.sf(successes - 1, trials, p)
    return min(1.0, 2.0 * min(low, high))


def assert_binomial_matches(successes: int, trials: int, p: float, what, alpha=ALPHA_EXACT):
    """``successes`` is a plausible Binomial(trials, p) draw (exact two-sided test)."""
    pval = binomial_two_sided_p(int(successes), int(trials), p)
    assert pval >= alpha, (f"{what}: {successes}/{trials} successes vs exact p={p:.6g} "
                           f"(two-sided binomial p-value {pval:.3g} < {alpha:.2g})")


def assert_binomial_at_most(successes: int, trials: int, bound: float, what,
                            alpha=ALPHA_BOUND):
    """``successes`` is consistent with a success probability <= ``bound``: the exact
    upper tail P(X >= successes | p = bound) is at least ``alpha``."""
    if bound >= 1.0:
        return
    tail = stats.binom.sf(int(successes) - 1, int(trials), max(bound, 0.0))
    assert tail >= alpha, (f"{what}: {successes}/{trials} successes above the bound "
                           f"{bound:.6g} (binomial tail {tail:.3g} < {alpha:.2g})")

"""Boundaries of the games' small formulas that an exact edit (issue 38's mutation
run) could move without failing a test: the Bernstein half-width's ``b/3`` term,
the list channel's rounding of ``n 2^-r``, the quadrature's reported error and the
violation test's upper tail P(X >= s). Each against an independent route."""

import math

import numpy as np
import pytest
from scipy import optimize, stats

from fractions import Fraction

from sim.games.burden_law import Z_moments, Z_variance, mc_halfwidth, uniform_Z_moments
from sim.games.channels import Ledger
from sim.games.channels import Content, ListChannel
from sim.games.content_rate import content_rate_exact
from sim.games.information import rate_bits
from sim.games.recovery_strategies import Compressor, evaluate


def _bernstein_t(variance, trials, b, alpha):
    """The t solving 2 exp(-N t^2 / (2 var + 2 b t / 3)) = alpha, by root finding on
    the inequality itself (no shared algebra with the closed form)."""
    f = lambda t: 2 * math.exp(-trials * t * t / (2 * variance + 2 * b * t / 3)) - alpha  # noqa: E731
    return optimize.brentq(f, 1e-15, 1e6, xtol=1e-15, rtol=1e-13)


@pytest.mark.parametrize("variance,trials,b", [
    (0.0, 100, 1.0),        # only the b/3 term: t = 2 b L / (3 N)
    (1e-6, 1000, 4.0),      # the b term dominates
    (0.25, 50, 1.0),        # both terms matter
    (2.0, 10_000, 10.0),
])
def test_bernstein_halfwidth_solves_the_inequality(variance, trials, b):
    alpha = 6.3e-5
    t = mc_halfwidth(variance, trials, b, alpha)
    assert t == pytest.approx(_bernstein_t(variance, trials, b, alpha), rel=1e-9)
    # at t the bound equals alpha; just inside t it exceeds alpha (both sides)
    bound = lambda s: 2 * math.exp(-trials * s * s / (2 * variance + 2 * b * s / 3))  # noqa: E731
    assert bound(t) == pytest.approx(alpha, rel=1e-9)
    assert bound(t * 0.99) > alpha > bound(t * 1.01)


def test_bernstein_halfwidth_without_variance_is_the_range_term():
    L = math.log(2 / 6.3e-5)
    assert mc_halfwidth(0.0, 30, 3.0) == pytest.approx(2 * 3.0 * L / (3 * 30), rel=1e-12)


@pytest.mark.parametrize("n,r,m", [
    (10, math.log2(10 / 2.7), 3),   # n 2^-r = 2.7: rounds up (flooring gives 2)
    (10, math.log2(10 / 2.3), 2),   # 2.3: rounds down (ceiling gives 3)
    (10, math.log2(10 / 3.0), 3),   # an integer is kept
    (10, math.log2(10), 1),         # 1.0: the smallest list
    (10, math.log2(10 / 0.6), 1),   # below 1 rounds to 1 (and never to 0)
    (100, math.log2(100 / 49.51), 50),
    (100, math.log2(100 / 49.49), 49),
])
def test_list_size_rounds_to_nearest(n, r, m):
    ch = ListChannel(r=r)
    assert ch.list_size(n) == m
    assert ch.exact_rate_bits(n, 4) == pytest.approx(math.log2(n / m), abs=0)


@pytest.mark.parametrize("n,r,m", [
    (6, 2, 2),      # n 2^-r = 1.5 exactly: to the even neighbour, up
    (10, 2, 2),     # 2.5: to the even neighbour, down (not 3)
    (5, 1, 2),      # 2.5 again, from another n and r
    (14, 2, 4),     # 3.5: up
    (9, 1, 4),      # 4.5: down (not 5)
    (100, 3, 12),   # 12.5: down (not 13)
])
def test_list_size_sends_an_exact_tie_to_the_even_neighbour(n, r, m):
    """Python's round (banker's rounding), as ListChannel.list_size documents: pinned
    so that a change to round-half-up is a visible decision, not a silent shift."""
    ch = ListChannel(r=r)
    ch.validate(n)                               # a legal rate for this n
    assert n * 2.0 ** (-r) % 1 == 0.5 and m % 2 == 0   # an exact tie, sent to even m
    assert ch.list_size(n) == m
    assert ch.exact_rate_bits(n, 4) == math.log2(n / m)


@pytest.mark.parametrize("n,kappa,sigma", [(2, 4, 1.0), (8, 4, 1.0), (64, 16, 2.0)])
def test_content_rate_reports_the_quadratures_error(n, kappa, sigma):
    est = rate_bits(n, kappa, Content(sigma))
    bits, err = content_rate_exact(n, kappa, sigma)
    assert est.method == "quadrature" and est.trials == 0
    assert (est.bits, est.se_bits) == (bits, err)
    assert est.se_bits > 0          # an error estimate, not a claim of exactness
    assert rate_bits(n, kappa, ListChannel(m=2)).se_bits == 0.0  # closed form: exact


class _Cheater(Compressor):
    """Reads the blocks from a side channel: succeeds on every trial (a bug that the
    violation flag must catch when the count is implausible under the bound)."""

    name = "cheater"

    def encode(self, blocks):
        self._stash = blocks
        return np.zeros(0, np.uint8)

    def decode(self, representation, target_index):
        return self._stash[target_index]


@pytest.mark.parametrize("trials,flagged", [(10, False), (14, False), (15, True), (30, True)])
def test_violation_is_the_upper_tail_at_or_above_the_count(trials, flagged):
    """T(4, 4, 4): bound 1/2. All ``trials`` succeed: P(X >= trials) = 2^-trials,
    which is below 3.2e-5 from 15 trials on (2^-14 = 6.1e-5, 2^-15 = 3.05e-5).
    P(X > trials) is 0 for every trial count: a test with it would flag them all."""
    ev = evaluate(_Cheater(), 4, 4, 4, trials, seed=1)
    assert ev.bound == 0.5 and ev.successes == trials
    assert (2.0 ** -trials < 3.2e-5) is flagged                       # the exact tail
    assert bool(stats.binom.sf(trials - 1, trials, 0.5) < 3.2e-5) is flagged
    assert ev.violation is flagged


def test_channel_params_as_reported():
    from sim.games.channels import WindowedLedger

    assert Content(0.25).param(8) == 0.25
    assert WindowedLedger(3).param(8) == 3.0
    assert ListChannel(m=2).param(8) == 2.0           # log2(8 / 2)
    assert ListChannel(r=math.log2(10 / 2.7)).param(10) == math.log2(10 / 3)


def test_rate_bits_of_a_closed_form_is_exact_and_passes_kappa():
    from sim.games.channels import Blind, Channel, Ledger, WindowedLedger

    for ch in (Ledger(), Blind(), ListChannel(m=2), WindowedLedger(3)):
        est = rate_bits(8, 4, ch)
        assert (est.bits, est.se_bits, est.trials, est.method) == \
            (ch.exact_rate_bits(8, 4), 0.0, 0, "exact")

    class KappaRate(Channel):
        """A plug-in channel whose closed form depends on kappa."""

        name = "kappa-rate"

        def exact_rate_bits(self, n, kappa):
            return kappa / 8

    assert rate_bits(8, 4, KappaRate()).bits == 0.5
    assert rate_bits(8, 6, KappaRate()).bits == 0.75

    class NoRate(Channel):
        name = "no-rate"

    with pytest.raises(ValueError, match=r"^no rate available for channel "):
        rate_bits(8, 4, NoRate())


def test_recoverable_archive_state_bits_and_budget_messages():
    from sim.games.recovery import address_bits, handle_bits
    from sim.games.recovery_strategies import BudgetExceeded, Game, RecoverableArchive

    arch = RecoverableArchive()
    assert arch.store == {} and arch.last_prompt is None and arch.exact_success() == 1.0
    game = Game(8, 4, 8 * handle_bits(8) + 4)            # exactly room for one reload
    rng = np.random.default_rng(3)
    arch.prepare(game, rng)
    blocks = rng.integers(0, 2, size=(8, 4), dtype=np.uint8)
    rep = arch.encode(blocks.copy())
    assert rep.dtype == np.uint8 and rep.shape == (8 * handle_bits(8),)
    assert set(np.unique(rep)) <= {0, 1}
    for t in range(8):
        assert np.array_equal(arch.decode(rep, t), blocks[t])
        assert arch.last_prompt.size == game.B          # table + one block, at B
    with pytest.raises(BudgetExceeded, match=rf"^prompt after reload is {game.B + 1} > "
                                             rf"B={game.B} bits$"):
        arch.decode(np.concatenate([rep, np.zeros(1, np.uint8)]), 0)
    small = Game(8, 4, 8 * handle_bits(8) + 3)           # one bit short
    need = 8 * handle_bits(8) + 4
    with pytest.raises(BudgetExceeded, match=rf"^B={small.B} bits cannot hold 8 handles of "
                                             rf"{handle_bits(8)} bits plus one 4-bit block "
                                             rf"\({need} bits\)$"):
        RecoverableArchive().prepare(small, rng)
    assert address_bits(8) == 3


@pytest.mark.parametrize("call,name", [
    (lambda: uniform_Z_moments(True, 2), "M"), (lambda: uniform_Z_moments(3, True), "kappa"),
    (lambda: mc_halfwidth(1.0, True, 1.0), "trials"),
    (lambda: mc_halfwidth(1.0, 5, -1e-12), "value_range"),
    (lambda: mc_halfwidth(1.0, 5, 1.0, alpha=1.0), "alpha"),
])
def test_the_games_refuse_a_bool_count_and_the_bounds_edges(call, name):
    """A bool is no count (True == 1 would pass the integer test); value_range just
    below 0 and alpha = 1 (a level that bounds nothing) are refused, naming the value."""
    with pytest.raises(ValueError, match=rf"^{name} must .*, got "):
        call()


def test_the_halfwidths_edges_are_accepted():
    """One trial, a zero or sub-unit value range and alpha just below 1 are valid:
    the closed form against root finding on Bernstein's inequality itself."""
    L = math.log(2 / 6.3e-5)
    assert mc_halfwidth(0.25, 1, 1.0) == pytest.approx(_bernstein_t(0.25, 1, 1.0, 6.3e-5),
                                                       rel=1e-9)
    assert mc_halfwidth(0.25, 40, 0.0) == pytest.approx(math.sqrt(2 * 40 * 0.25 * L) / 40,
                                                        rel=1e-12)
    assert mc_halfwidth(0.25, 40, 0.5) == pytest.approx(_bernstein_t(0.25, 40, 0.5, 6.3e-5),
                                                        rel=1e-9)
    assert mc_halfwidth(0.25, 40, 1.0, alpha=0.999) > 0


@pytest.mark.parametrize("M,kappa", [(419_511_225_273, 419_510_398_235),
                                     (1_000_000_007, 1_000_000_000),
                                     (100_000_007, 100_000_007)])
def test_uniform_moments_are_exact_for_huge_counts(M, kappa):
    """Faulhaber's sums in integers, one correctly rounded division: against exact
    Fractions of the direct definition's sums (a float division earlier loses the
    last bits once K^2 or K^3 passes 2^53)."""
    K = min(M - 1, kappa)
    s1 = Fraction(K * (K + 1), 2) + (M - 1 - K) * kappa
    s2 = Fraction(K * (K + 1) * (2 * K + 1), 6) + (M - 1 - K) * kappa ** 2
    assert uniform_Z_moments(M, kappa) == (float(s1 / M), float(s2 / M))


def test_z_variance_follows_the_order_it_is_given():
    """Under the full ledger the Bayes order archives J* first (Z = 0, variance 0);
    the random order ignores the channel: the blind law's variance, from its
    moments over U ~ Uniform{0..n-1} enumerated directly."""
    n, kappa = 10, 4
    assert Z_variance(n, kappa, Ledger(), "bayes") == 0.0
    z = np.minimum(np.arange(n), kappa)
    assert Z_variance(n, kappa, Ledger(), "random") == pytest.approx(z.var(), rel=1e-12)


def test_a_rate_list_channels_moments_use_its_list_size_at_n():
    """ListChannel(r): m = round(n 2^-r) blocks, uniform among them: Z's moments are
    the uniform law's over m (16 blocks at r = 2: m = 4), enumerated directly."""
    z = np.minimum(np.arange(4), 3)
    assert Z_moments(16, 3, ListChannel(r=2.0)) == pytest.approx((z.mean(), (z * z).mean()),
                                                                rel=1e-12)


def test_a_channel_with_no_known_law_is_named():
    """Z_moments knows the laws of the bundled channels only: another channel code is
    refused with a message naming the channel."""
    from sim.games.channels import Blind

    class Unknown(Blind):
        code = 99

        def __repr__(self):
            return "Unknown()"

    with pytest.raises(ValueError, match=r"^no law of Z known for channel Unknown\(\)$"):
        Z_moments(10, 3, Unknown())

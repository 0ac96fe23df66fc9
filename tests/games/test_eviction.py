"""Eviction game E(n, kappa, channel): kernels against closed forms, quadrature,
plain references, and the Theorem 1 bound (VISTA §2.6; THEORY.md §2-§3).

Every Monte Carlo comparison of E[Z] allows the Bernstein half-width of the exact
Var Z (sim.games.burden_law.mc_halfwidth: false-alarm probability <= 6.3e-5 per
comparison, also in rare-event rows where a sample SD would be 0 or far too small).
"""

import math

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim import pcg64
from sim.games.channels import Blind, Content, Ledger, ListChannel, WindowedLedger
from sim.games.content_burden import content_EZ
from sim.games.eviction import Z_moments, play, play_exact_many, seed_chunks
from sim.games.kernels import brute_tau_discrete, censored_binomial
from sim.games.information import rate_bits
from sim.games.reference import (bayes_order_tau, exact_content_tau_python,
                                 numpy_exact_content_tau)
from sim.rng import chunk_seeds
from theory.bounds import (blind_EZ, bound_affine, bound_sum, list_achievability_EZ_m,
                           windowed_EZ)

Z4 = 4.0  # standard errors allowed


def assert_close_mc(estimate, halfwidth, reference, what):
    assert abs(estimate - reference) <= halfwidth + 1e-12, (
        f"{what}: {estimate:.6g} vs {reference:.6g} differs by "
        f"{abs(estimate - reference):.3g} > half-width {halfwidth:.3g}")


@pytest.mark.parametrize("method", ["exact", "brute"])
def test_ledger_never_archives_load_bearing_blocks(method):
    r = play(200, 8, Ledger(), trials=3000, seed=1, method=method)
    assert np.all(r.tau == 1)
    assert np.all(r.Z == 0) and np.all(r.archives == 1)


@pytest.mark.parametrize("method", ["exact", "brute"])
@pytest.mark.parametrize("n,kappa", [(3, 2), (17, 4), (100, 16), (513, 8)])
def test_blind_matches_closed_form(method, n, kappa):
    r = play(n, kappa, Blind(), trials=40_000, seed=n * kappa, method=method)
    assert_close_mc(r.EZ, r.EZ_halfwidth(), blind_EZ(n, kappa), f"blind {method} n={n} k={kappa}")


@pytest.mark.parametrize("method", ["exact", "brute"])
@pytest.mark.parametrize("n,kappa,m", [(64, 4, 1), (64, 4, 3), (64, 4, 5), (64, 4, 16),
                                       (256, 16, 17), (256, 16, 8), (256, 2, 256)])
def test_list_channel_matches_achievability(method, n, kappa, m):
    r = play(n, kappa, ListChannel(m=m), trials=40_000, seed=m + n, method=method)
    assert_close_mc(r.EZ, r.EZ_halfwidth(), list_achievability_EZ_m(m, kappa),
                    f"list {method} n={n} k={kappa} m={m}")


@pytest.mark.parametrize("method", ["exact", "brute"])
@pytest.mark.parametrize("n,kappa,w", [(64, 4, 0), (64, 4, 20), (64, 4, 59), (128, 16, 100),
                                       (128, 16, 128), (40, 8, 35)])
def test_windowed_ledger_matches_closed_form(method, n, kappa, w):
    r = play(n, kappa, WindowedLedger(w=w), trials=40_000, seed=w + 7, method=method)
    assert_close_mc(r.EZ, r.EZ_halfwidth(), windowed_EZ(n, kappa, w),
                    f"windowed {method} n={n} k={kappa} w={w}")


@pytest.mark.parametrize("n,kappa,sigma", [(3, 2, 0.25), (16, 2, 4.0), (64, 4, 1.0),
                                           (300, 8, 0.5), (1000, 16, 2.0), (4096, 4, 1.0)])
def test_content_brute_exact_and_quadrature_agree(n, kappa, sigma):
    reference = content_EZ(n, kappa, sigma)
    exact = play(n, kappa, Content(sigma), trials=100_000, seed=11, method="exact")
    brute = play(n, kappa, Content(sigma), trials=max(2000, 4_000_000 // n), seed=12,
                 method="brute")
    assert_close_mc(exact.EZ, exact.EZ_halfwidth(), reference, "exact sampler vs quadrature")
    assert_close_mc(brute.EZ, brute.EZ_halfwidth(), reference, "brute force vs quadrature")


@pytest.mark.parametrize("n,kappa,sigma", [(2**20, 8, 1.0), (2**32, 16, 0.5), (2**40, 4, 0.25)])
def test_exact_sampler_reaches_huge_n(n, kappa, sigma):
    r = play(n, kappa, Content(sigma), trials=200_000, seed=5, method="exact")
    assert_close_mc(r.EZ, r.EZ_halfwidth(), content_EZ(n, kappa, sigma),
                    f"n=2^{math.log2(n):.0f}")


def test_exact_sampler_matches_numpy_reference_distribution(rng):
    # Compare the full law of min(tau, kappa + 2), not only the mean, by a chi-square
    # homogeneity test between the numba sampler and the vectorised NumPy one.
    from scipy import stats

    n, kappa, sigma, trials = 500, 4, 0.75, 200_000
    a = play(n, kappa, Content(sigma), trials=trials, seed=3).tau
    assert a.max() == kappa + 1  # censored where the game stops
    b = np.minimum(numpy_exact_content_tau(n, kappa, sigma, trials, rng), kappa + 1)
    table = np.array([np.bincount(a, minlength=kappa + 2)[1:],
                      np.bincount(b, minlength=kappa + 2)[1:]])
    assert stats.chi2_contingency(table)[1] > 1e-4


@pytest.mark.parametrize("channel", [Blind(), Ledger(), ListChannel(m=7),
                                     WindowedLedger(w=9), WindowedLedger(w=0)])
def test_brute_kernel_matches_explicit_sorting_reference(channel, rng):
    from scipy import stats

    n, kappa, trials = 24, 4, 6000
    # The kernel itself, uncensored, so the whole law of tau is compared.
    code, _, ipar = channel.kernel_args(n, kappa)
    seeds, chunk, _ = seed_chunks(8, trials, n)
    kernel = brute_tau_discrete(n, code, ipar, seeds, chunk, trials)
    ref = np.array([bayes_order_tau(n, kappa, channel, rng) for _ in range(trials)])
    table = np.array([np.bincount(kernel, minlength=n + 1)[1:],
                      np.bincount(ref, minlength=n + 1)[1:]])
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] == 1:  # degenerate law (ledger): both must be the same point mass
        assert np.array_equal(np.unique(kernel), np.unique(ref))
    else:
        assert stats.chi2_contingency(table)[1] > 1e-4


@pytest.mark.parametrize("N,q,cap", [(10, 0.3, 4), (3, 0.9, 8), (1000, 0.004, 8),
                                     (2**40, 3e-12, 16), (2**40, 0.5, 4), (5, 0.0, 3),
                                     (7, 1.0, 3)])
def test_censored_binomial_has_the_binomial_law(N, q, cap):
    from numba import njit
    from scipy import stats

    @njit
    def draws(seeds, size):
        s = pcg64.new_state(seeds, 0)
        out = np.empty(size, dtype=np.int64)
        for i in range(size):
            out[i] = censored_binomial(s, N, q, cap)
        return out

    x = draws(chunk_seeds(1, 1), 50_000)
    law = stats.binom(N, q)
    expected = np.append(law.pmf(np.arange(cap)), law.sf(cap - 1)) * x.size
    observed = np.bincount(x, minlength=cap + 1)
    assert observed.size == cap + 1  # never above the cap
    keep = expected > 0
    assert np.all(observed[~keep] == 0)
    if keep.sum() > 1:
        assert stats.chisquare(observed[keep], expected[keep] * observed.sum()
                               / expected[keep].sum()).pvalue > 1e-4


@pytest.mark.parametrize("n,kappa,sigma", [(10, 2, 0.5), (300, 8, 1.0), (2**40, 16, 0.25)])
def test_exact_kernel_reproduces_plain_python_draw_for_draw(n, kappa, sigma):
    # One chunk: the kernel consumes Generator(PCG64(SeedSequence(s).spawn(1)[0]))
    # exactly as this plain loop does, so the arrays must be equal, not just close.
    trials = 3000
    kernel = play(n, kappa, Content(sigma), trials=trials, seed=21).tau
    g = np.random.Generator(np.random.PCG64(np.random.SeedSequence(21).spawn(1)[0]))
    ref = np.array([exact_content_tau_python(n, kappa, sigma, g) for _ in range(trials)])
    assert np.array_equal(kernel, ref)


def test_brute_kernel_reproduces_plain_numpy_draw_for_draw():
    n, kappa, sigma, trials = 200, 4, 1.0, 300
    result = play(n, kappa, Content(sigma), trials=trials, seed=4, method="brute")
    g = np.random.Generator(np.random.PCG64(np.random.SeedSequence(4).spawn(1)[0]))
    shift = math.log(kappa) / sigma
    ref = []
    for _ in range(trials):
        zj = shift + g.standard_normal()
        ref.append(min(1 + int(np.sum(g.standard_normal(n - 1) > zj)), kappa + 1))
    assert np.array_equal(result.tau, np.array(ref))


def test_random_order_is_uniform_whatever_the_channel():
    for method in ("exact", "brute"):
        r = play(50, 4, Content(0.1), order="random", trials=40_000, seed=2, method=method)
        assert_close_mc(r.EZ, r.EZ_halfwidth(), blind_EZ(50, 4), f"random order ({method})")


@settings(max_examples=20, deadline=None)
@given(log2n=st.integers(3, 14), kappa=st.sampled_from([2, 3, 4, 8, 16]),
       which=st.sampled_from(["blind", "ledger", "content", "list", "windowed"]),
       frac=st.floats(0.0, 1.0), sigma=st.sampled_from([0.25, 0.5, 1.0, 2.0, 4.0]))
def test_simulated_burden_respects_theorem1_bound(log2n, kappa, which, frac, sigma):
    n = 2**log2n
    if n <= kappa:
        n = 2 * kappa
    channel = {"blind": Blind(), "ledger": Ledger(), "content": Content(sigma),
               "list": ListChannel(r=frac * math.log2(n)),
               "windowed": WindowedLedger(w=int(frac * n))}[which]
    rate = rate_bits(n, kappa, channel, trials=400, seed=1)
    r = play(n, kappa, channel, trials=20_000, seed=2)
    # The bound decreases in the rate, so an upper rate error only loosens it.
    upper_rate = min(rate.bits + Z4 * rate.se_bits, math.log2(n))
    bound = bound_sum(upper_rate, n, kappa)
    assert r.EZ + r.EZ_halfwidth() >= bound
    assert bound >= bound_affine(upper_rate, n, kappa) - 1e-12


def test_counts_follow_from_tau():
    r = play(40, 4, Blind(), trials=5000, seed=3)
    assert np.array_equal(r.Z, np.minimum(r.tau - 1, 4))
    assert np.array_equal(r.archives - r.Z, (r.tau <= 4).astype(np.int64))
    assert np.array_equal(r.retrieves, r.Z)
    assert r.tau.min() >= 1 and r.tau.max() == 5  # censored at kappa + 1


@pytest.mark.parametrize("method", ["exact", "brute"])
@pytest.mark.parametrize("channel", [Content(1.0), Blind(), ListChannel(r=2.0),
                                     WindowedLedger(w=10)])
def test_same_seed_same_arrays_for_any_thread_count(method, channel):
    before = numba.get_num_threads()
    try:
        runs = []
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS),
                               numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            runs.append(play(64, 4, channel, trials=20_000, seed=42, method=method).tau)
    finally:
        numba.set_num_threads(before)
    for other in runs[1:]:
        assert np.array_equal(runs[0], other)
    different = play(64, 4, channel, trials=20_000, seed=43, method=method).tau
    assert not np.array_equal(runs[0], different)


def test_generator_and_seedsequence_seeds_are_reproducible():
    a = play(64, 4, Blind(), trials=1000, seed=np.random.SeedSequence(9)).tau
    b = play(64, 4, Blind(), trials=1000, seed=np.random.SeedSequence(9)).tau
    assert np.array_equal(a, b)
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    assert np.array_equal(play(64, 4, Blind(), trials=1000, seed=g1).tau,
                          play(64, 4, Blind(), trials=1000, seed=g2).tau)


@pytest.mark.parametrize("kwargs,name", [
    (dict(n=10, kappa=1, channel=Blind()), "kappa"),
    (dict(n=10, kappa=2.5, channel=Blind()), "kappa"),
    (dict(n=10, kappa=True, channel=Blind()), "kappa"),
    (dict(n=4, kappa=4, channel=Blind()), "n"),
    (dict(n=3, kappa=4, channel=Blind()), "n"),
    (dict(n=10.5, kappa=4, channel=Blind()), "n"),
    (dict(n=16, kappa=4, channel=ListChannel(r=4.5)), "r"),
    (dict(n=16, kappa=4, channel=ListChannel(r=-0.1)), "r"),
    (dict(n=16, kappa=4, channel=ListChannel(m=17)), "m"),
    (dict(n=16, kappa=4, channel=WindowedLedger(w=17)), "w"),
    (dict(n=16, kappa=4, channel=WindowedLedger(w=-1)), "w"),
    (dict(n=16, kappa=4, channel=Blind(), order="greedy"), "order"),
    (dict(n=16, kappa=4, channel=Blind(), method="fast"), "method"),
    (dict(n=16, kappa=4, channel=Blind(), trials=0), "trials"),
])
def test_bad_parameters_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        play(**kwargs)


@pytest.mark.parametrize("sigma", [0.0, -1.0, math.inf, math.nan, "1"])
def test_bad_sigma_is_rejected(sigma):
    with pytest.raises(ValueError, match="sigma"):
        Content(sigma)


@pytest.mark.parametrize("trials", [1, 2, 3, 4096, 20000])
def test_Z_moments_equal_each_results_EZ_and_sample_se_bit_for_bit(trials):
    """The batch's E[Z] and plug-in SE (one pass over reused buffers) are exactly
    the per-result properties (ndarray.mean and .std(ddof=1) of Z) at every kappa,
    with constant rows (the ledger) and for one trial (SE inf); and on draws above
    the censoring point kappa + 1, Z = min(tau - 1, kappa) as the property has it."""
    games = [(n, kappa, ch) for n, kappa in ((16, 2), (64, 4), (2**20, 16), (40, 39))
             for ch in (Ledger(), Blind(), Content(0.5), Content(4.0),
                        ListChannel(m=n // 4), WindowedLedger(w=n // 2))]
    results = play_exact_many(games, list(range(len(games))), trials=trials)
    tau = np.stack([r.tau for r in results])
    ez, se = Z_moments(tau, [kappa for _, kappa, _ in games])
    assert ez.tolist() == [r.EZ for r in results]
    assert se.tolist() == [r.EZ_se_sample for r in results]
    assert trials < 4096 or len(set(ez.tolist())) > 5      # not a degenerate batch
    raw = np.random.default_rng(trials).integers(1, 60, size=(3, trials))
    kappas = np.array([2, 8, 16])
    Z = np.minimum(raw - 1, kappas[:, None])
    ez, se = Z_moments(raw, kappas)
    assert ez.tolist() == [float(z.mean()) for z in Z]
    assert se.tolist() == [float(z.std(ddof=1)) / math.sqrt(trials) if trials > 1
                           else math.inf for z in Z]

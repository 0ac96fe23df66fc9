"""The plain references of the eviction games (sim/games/reference.py) pinned where
their first mutation runs (issue 38) found the statistical comparisons with the
kernels too loose to see an edit: the branches at q = 0 and q = 1 of the exact
content samplers (driven by a generator whose normal draw is fixed), the inversion's
boundary u = CDF, the list channel given by its rate, the degenerate ledger at
kappa = 2, the brute-force sampler's batching, counts, dtypes and rates against
an explicit softmax, and the adaptive quadrature's default power, its power check and
its error threshold at equality."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.games import reference
from sim.games.channels import Content, Ledger, ListChannel
from sim.games.reference import (bayes_order_tau, content_moment_quad, exact_content_tau_python,
                                 numpy_brute_content, numpy_exact_content_tau)


class FixedNormal:
    """A generator whose normal draws are all ``eps`` (uniforms: ``u``; binomials
    from a real generator)."""

    def __init__(self, eps: float, u: float = 0.5):
        self.eps, self.u = eps, u
        self._g = np.random.default_rng(0)

    def standard_normal(self, size=None):
        return self.eps if size is None else np.full(size, self.eps)

    def random(self, size=None):
        return self.u if size is None else np.full(size, self.u)

    def binomial(self, n, p):
        return self._g.binomial(n, p)


@pytest.mark.parametrize("n, kappa, want", [(3, 5, 3), (10, 2, 3), (4, 3, 4)])
def test_exact_samplers_at_q_one_give_every_block_up_to_the_cap(n, kappa, want):
    """eps = -50: q = 1, every other block outranks J*: min(n, kappa + 1) when
    censored at kappa + 1 (the Python sampler), n uncensored (the NumPy one)."""
    assert exact_content_tau_python(n, kappa, 1.0, FixedNormal(-50.0)) == want
    taus = numpy_exact_content_tau(n, kappa, 1.0, 5, FixedNormal(-50.0))
    assert taus.dtype == np.int64 and (taus == n).all()


def test_exact_samplers_at_q_zero_put_j_star_first():
    assert exact_content_tau_python(10, 3, 1.0, FixedNormal(50.0)) == 1
    assert (numpy_exact_content_tau(10, 3, 1.0, 5, FixedNormal(50.0)) == 1).all()


def test_inversion_takes_the_first_count_whose_cdf_reaches_u():
    """At q = 1/2 (eps = -shift) and n = 3, P(C = 0) = 1/4: u equal to that CDF
    (computed the sampler's way) gives tau = 1; just above it, tau = 2."""
    n, kappa, sigma = 3, 2, 1.0
    shift = math.log(kappa) / sigma
    cdf0 = math.exp(math.lgamma(n) - math.lgamma(1) - math.lgamma(n)
                    + (n - 1) * math.log1p(-0.5))
    assert exact_content_tau_python(n, kappa, sigma, FixedNormal(-shift, cdf0)) == 1
    assert exact_content_tau_python(n, kappa, sigma,
                                    FixedNormal(-shift, math.nextafter(cdf0, 1))) == 2


def test_list_channel_by_rate_and_the_ledger_at_kappa_two(rng):
    ch = ListChannel(r=2.0)                       # m = round(16 / 4) = 4
    taus = [bayes_order_tau(16, 3, ch, rng) for _ in range(400)]
    assert max(taus) <= ch.list_size(16) == 4 and min(taus) == 1
    # the ledger shows J*'s size kappa = 2 against 1 everywhere else: always first
    assert {bayes_order_tau(9, 2, Ledger(), rng) for _ in range(200)} == {1}
    with pytest.raises(ValueError, match="unsupported channel"):
        bayes_order_tau(9, 2, Content(1.0), rng)


def test_brute_content_batches_counts_and_rates():
    """130 trials span three batches of 64; tau = 1 + #{j > 0: z_j > z_0} from the
    same draws; rates are log2(n p(J* | Y)) by an explicit softmax, NaN without
    ``want_rate``."""
    n, kappa, sigma, trials = 6, 3, 0.8, 130
    taus, rates = numpy_brute_content(n, kappa, sigma, trials, np.random.default_rng(4))
    assert taus.shape == rates.shape == (trials,) and taus.dtype == np.int64
    g = np.random.default_rng(4)
    shift = math.log(kappa) / sigma
    want_t, want_r = [], []
    for b in (64, 64, 2):
        z = g.standard_normal((b, n))
        z[:, 0] += shift
        for row in z:
            want_t.append(1 + int(np.sum(row[1:] > row[0])))
            p = np.exp(shift * row) / np.exp(shift * row).sum()
            want_r.append(math.log2(n * p[0]))
    np.testing.assert_array_equal(taus, want_t)
    np.testing.assert_allclose(rates, want_r, rtol=1e-12, atol=1e-12)
    t2, r2 = numpy_brute_content(n, kappa, sigma, trials, np.random.default_rng(4),
                                 want_rate=False)
    np.testing.assert_array_equal(t2, taus)
    assert r2.shape == (trials,) and np.isnan(r2).all()


def test_the_quadrature_gives_the_first_moment_by_default():
    first, second = content_moment_quad(50, 3, 2.0, 1), content_moment_quad(50, 3, 2.0, 2)
    assert content_moment_quad(50, 3, 2.0) == first and second > first * 1.5
    for bad in (0, 3, 1.5):
        with pytest.raises(ValueError) as info:
            content_moment_quad(50, 3, 2.0, bad)
        assert str(info.value) == f"power must be 1 or 2, got {bad!r}"


@pytest.mark.parametrize("power", [1, 2])
def test_the_quadrature_refuses_an_error_estimate_above_1e_8_kappa_to_the_power_minus_1(
        monkeypatch, power):
    # quad's error estimate is set here, so the threshold is met exactly: at
    # 1e-8 kappa^(power - 1) the value is returned, one ulp above it is refused
    kappa = 4
    limit = 1e-8 * float(kappa) ** (power - 1)
    for err, refused in ((limit, False), (math.nextafter(limit, 1.0), True)):
        monkeypatch.setattr(reference.integrate, "quad",
                            lambda *args, _err=err, **kwargs: (0.25, _err))
        if refused:
            with pytest.raises(RuntimeError, match=r"^content_moment_quad error .* too large "
                                                   r"for n=50, kappa=4, sigma=2.0$"):
                content_moment_quad(50, kappa, 2.0, power)
        else:
            assert content_moment_quad(50, kappa, 2.0, power) == 0.25

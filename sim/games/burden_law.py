"""The exact law of the recovery burden Z in the eviction game: E[Z], Var Z, and a
Monte Carlo tolerance valid in rare-event rows (THEORY.md §2-§3).

Every channel's Bayes order gives a known law of tau, the archive position of J*
(:func:`sim.games.kernels.exact_tau`), and Z = min(tau - 1, kappa):

* ledger: Z = 0;
* blind, or any channel in random order: tau - 1 ~ Uniform{0..n-1};
* list of size m: tau - 1 ~ Uniform{0..m-1};
* windowed ledger with w rows: Z = 0 with probability w/n, else tau - 1 ~
  Uniform{0..n-w-1};
* content: tau - 1 | eps ~ Binomial(n - 1, q(eps)), both moments by one tabulated
  quadrature (:func:`sim.games.content_burden.content_Z_moments`).

So the standard error of a Monte Carlo mean of ``trials`` draws is
sqrt(Var Z / trials) exactly, also in rows where every draw happened to be equal
(the sample SD is then 0 although Var Z > 0). For a test "the simulation agrees with
theory", :func:`mc_halfwidth` turns the exact variance into a half-width with
guaranteed coverage (Bernstein's inequality for bounded draws), which the normal
approximation does not give when Z is rarely non-zero.
"""

from __future__ import annotations

import math

from sim.games.channels import BLIND, CONTENT, LEDGER, LIST, WINDOWED, Channel, validate_game
from sim.games.content_burden import content_Z_moments


def uniform_Z_moments(M: int, kappa: int) -> tuple[float, float]:
    """(E[Z], E[Z^2]) for Z = min(U, kappa), U ~ Uniform{0..M-1}.

    With K = min(M - 1, kappa): sum_{u<=K} u^p plus (M - 1 - K) kappa^p, over M
    (Faulhaber's sums, exact in integers before the one division).

    Raises:
        ValueError: naming M (integer >= 1) or kappa (integer >= 0).
    """
    if isinstance(M, bool) or int(M) != M or M < 1:
        raise ValueError(f"M must be an integer >= 1, got {M!r}")
    if isinstance(kappa, bool) or int(kappa) != kappa or kappa < 0:
        raise ValueError(f"kappa must be an integer >= 0, got {kappa!r}")
    M, kappa = int(M), int(kappa)
    K = min(M - 1, kappa)
    s1 = K * (K + 1) // 2 + (M - 1 - K) * kappa
    s2 = K * (K + 1) * (2 * K + 1) // 6 + (M - 1 - K) * kappa * kappa
    return s1 / M, s2 / M


def Z_moments(n: int, kappa: int, channel: Channel, order: str = "bayes"
              ) -> tuple[float, float]:
    """(E[Z], E[Z^2]) of the eviction game E(n, kappa, channel) under ``order``.

    Args:
        n: blocks (> kappa); kappa: integer >= 2; channel: the observation channel;
        order: "bayes" or "random" (random ignores the channel: the blind law).

    Returns:
        The first two moments of Z (blocks, blocks^2).

    Raises:
        ValueError: naming n, kappa, order or the channel's parameter.
    """
    n, kappa = validate_game(n, kappa)
    channel.validate(n)
    if order not in ("bayes", "random"):
        raise ValueError(f"order must be 'bayes' or 'random', got {order!r}")
    code = channel.code if order == "bayes" else BLIND
    if code == LEDGER:
        return 0.0, 0.0
    if code == BLIND:
        return uniform_Z_moments(n, kappa)
    if code == LIST:
        return uniform_Z_moments(channel.list_size(n), kappa)
    if code == WINDOWED:
        w = int(channel.w)
        if w == n:
            return 0.0, 0.0
        m1, m2 = uniform_Z_moments(n - w, kappa)
        return (1 - w / n) * m1, (1 - w / n) * m2
    if code == CONTENT:
        return content_Z_moments(n, kappa, channel.sigma)
    raise ValueError(f"no law of Z known for channel {channel!r}")


def Z_variance(n: int, kappa: int, channel: Channel, order: str = "bayes") -> float:
    """Var Z (blocks^2), exact (quadrature for the content channel); clipped at 0
    against round-off of E[Z^2] - E[Z]^2."""
    m1, m2 = Z_moments(n, kappa, channel, order)
    return max(m2 - m1 * m1, 0.0)


def mc_halfwidth(variance: float, trials: int, value_range: float,
                 alpha: float = 6.3e-5) -> float:
    """Half-width t with P(|mean - E| >= t) <= alpha for the mean of ``trials`` iid
    draws of known variance confined to an interval of length ``value_range``.

    Bernstein's inequality P(|mean - E| >= t) <= 2 exp(-N t^2 / (2 var + 2 b t / 3))
    with b = value_range bounds |draw - E|; solving for t gives
    t = (b L / 3 + sqrt((b L / 3)^2 + 2 N var L)) / N, L = ln(2 / alpha). For
    common events this is about sqrt(2 L) ~ 4.6 standard errors at the default alpha
    (the two-sided 4-sigma normal level); for rare ones the b L / N term keeps the
    coverage where the normal approximation fails.

    Raises:
        ValueError: naming trials, variance, value_range or alpha.
    """
    if isinstance(trials, bool) or int(trials) != trials or trials < 1:
        raise ValueError(f"trials must be an integer >= 1, got {trials!r}")
    if not variance >= 0:
        raise ValueError(f"variance must be >= 0, got {variance!r}")
    if not value_range >= 0:
        raise ValueError(f"value_range must be >= 0, got {value_range!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    L = math.log(2.0 / alpha)
    a = value_range * L / 3.0
    return (a + math.sqrt(a * a + 2.0 * trials * variance * L)) / trials

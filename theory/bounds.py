"""Numeric Theorem 1 / Proposition 2 formulas: the one implementation everyone imports.

Every function here is a plain numpy function that broadcasts its arguments
(scalars in -> Python ``float``/``int`` out; arrays in -> ``ndarray`` out, shaped by
numpy broadcasting). Each is spot-checked against the lambdified sympy statement in
:mod:`theory.statements` by a check in ``theory/`` and against brute-force
references in ``tests/theory``.

Conventions (THEORY.md): logs are base 2 unless written ``ln``; rates are in
**bits**; E[Z] is a count of load-bearing blocks (dimensionless).

Validation (all raise ``ValueError`` whose message starts with the parameter name):

* ``kappa`` must be an integer >= 2, ``n`` an integer > ``kappa`` (the eviction game
  E(n, kappa) of THEORY.md §2 needs a bulky block worth kappa >= 2 load-bearing ones
  and more blocks than kappa);
* rates (``I_bits``, ``r``) must lie in [0, log2 n] (a rate about J* ~ Uniform{1..n}
  cannot exceed H(J*) = log2 n; a relative slack of 1e-12 absorbs round-off of
  callers that compute log2 n themselves);
* ``sigma`` must be finite and > 0; ``w`` an integer in 0..n; ``m`` an integer in 1..n;
  ``delta`` in [0, 1]; ``Delta`` in [0, kappa].
"""

from __future__ import annotations

import numpy as np

#: Relative slack allowed above log2 n for a rate (round-off of the caller's log2 n).
_RATE_RTOL = 1e-12
#: Number of t values summed per block in :func:`bound_sum` (bounds memory use).
_T_BLOCK = 4096


# ----------------------------------------------------------------------------- validation

def _first_bad(arr: np.ndarray, bad: np.ndarray):
    """The first offending value, for error messages."""
    return float(arr[bad].flat[0] if np.ndim(arr) else arr)


def _real(name: str, value) -> np.ndarray:
    """``value`` as a finite float array, or ValueError naming ``name``."""
    arr = np.asarray(value, dtype=float)
    bad = ~np.isfinite(arr)
    if np.any(bad):
        raise ValueError(f"{name} must be finite, got {_first_bad(arr, bad)!r}")
    return arr


def _in_range(name: str, arr: np.ndarray, low, high, what: str) -> np.ndarray:
    """Check ``low <= arr <= high`` elementwise (bounds broadcast)."""
    bad = (arr < low) | (arr > high)
    if np.any(bad):
        arr_b = np.broadcast_to(arr, np.shape(bad))
        raise ValueError(f"{name} must be {what}, got {_first_bad(arr_b, bad)!r}")
    return arr


def _integer(name: str, value, minimum: float) -> np.ndarray:
    """``value`` as a float array of integers >= ``minimum``, or ValueError naming ``name``.

    Floats are accepted when integral (so ``n = 2.0**40`` works); they are exact up
    to 2**53.
    """
    arr = _real(name, value)
    bad = arr != np.floor(arr)
    if np.any(bad):
        raise ValueError(f"{name} must be an integer, got {_first_bad(arr, bad)!r}")
    return _in_range(name, arr, minimum, np.inf, f"an integer >= {minimum:g}")


def _game(n, kappa) -> tuple[np.ndarray, np.ndarray]:
    """Validate the eviction game E(n, kappa): integer kappa >= 2, integer n > kappa."""
    kappa = _integer("kappa", kappa, 2)
    n = _integer("n", n, 3)
    bad = np.broadcast_to(n, np.broadcast_shapes(n.shape, kappa.shape)) <= kappa
    if np.any(bad):
        nb = np.broadcast_to(n, bad.shape)
        raise ValueError(f"n must exceed kappa (n > kappa), got n={_first_bad(nb, bad)!r}")
    return n, kappa


def _rate(name: str, value, n: np.ndarray) -> np.ndarray:
    """Validate a rate in bits, 0 <= rate <= log2 n; clip the round-off slack."""
    rate = _real(name, value)
    top = np.log2(n)
    _in_range(name, rate, 0.0, top * (1 + _RATE_RTOL), "in [0, log2 n] bits")
    return np.minimum(rate, top)


def _out(x):
    """Python scalar for 0-d results, array otherwise."""
    x = np.asarray(x)
    return x.item() if x.ndim == 0 else x


def _uniform_burden(m: np.ndarray, kappa: np.ndarray) -> np.ndarray:
    """E[min(U - 1, kappa)] for U ~ Uniform{1..m} (THEORY.md §2, Achievability).

    Piecewise: kappa - kappa(kappa+1)/(2m) for m >= kappa + 1 and (m - 1)/2 for
    m <= kappa + 1 (the pieces agree at m = kappa and m = kappa + 1, proved in
    :mod:`theory.list_channel`). ``m = 0`` (nothing to draw from) gives 0. Accepts
    real m (then it is THEORY's formula evaluated at real m, not an expectation).
    """
    safe_m = np.where(m > 0, m, 1.0)      # avoid 0-division warnings; masked below
    high = kappa - kappa * (kappa + 1) / (2 * safe_m)
    low = (m - 1) / 2
    return np.where(m <= 0, 0.0, np.where(m >= kappa + 1, high, low))


# ----------------------------------------------------------------------------- Theorem 1

def nu_bits(n, kappa):
    """nu = log2(n / kappa) in bits: the make-room threshold of Theorem 1 (eq. 12).

    Args: ``n`` (integer > kappa), ``kappa`` (integer >= 2); broadcast.
    Returns: float bits, > 0. Raises: ValueError naming ``n``/``kappa``.
    Source: THEORY.md §2 "Bound"; VISTA App. C (eq. 12).
    """
    n, kappa = _game(n, kappa)
    return _out(np.log2(n / kappa))


def list_fano_bound(I_bits, n, m):
    """List-Fano bound on P(J* in L_m): min(1, (I + 1) / log2(n / m)).

    The lemma's right-hand side can exceed 1 (and is +inf at m = n), where it says
    nothing; it is clipped to 1, the trivial bound on a probability.

    Args: ``I_bits`` = I(J*; Y) in bits in [0, log2 n]; ``n`` integer >= 2 (number of
    blocks); ``m`` integer list size in 1..n; broadcast.
    Returns: probability in (0, 1]. Raises: ValueError naming ``n``, ``m`` or ``I_bits``.
    Source: THEORY.md §2 "List-Fano lemma"; VISTA Lemma 1 / App. A.
    """
    n = _integer("n", n, 2)
    m = _integer("m", m, 1)
    _in_range("m", m, 1, n, "an integer in 1..n")
    I_bits = _rate("I_bits", I_bits, n)
    denom = np.log2(n / m)
    with np.errstate(divide="ignore"):
        raw = np.where(denom > 0, (I_bits + 1) / np.where(denom > 0, denom, 1.0), np.inf)
    return _out(np.minimum(1.0, raw))


def bound_sum(I_bits, n, kappa):
    """Sum-form lower bound on E[Z]: sum_{t=1}^{kappa} max(0, 1 - (I+1)/log2(n/t)).

    Args: ``I_bits`` in [0, log2 n] bits; ``n`` integer > kappa; ``kappa`` integer
    >= 2; broadcast. Work is O(size x max(kappa)), memory O(size x 4096).
    Returns: float in [0, kappa) (a count of load-bearing blocks).
    Raises: ValueError naming ``n``, ``kappa`` or ``I_bits``.
    Source: THEORY.md §2 "Bound" (sum form); VISTA Theorem 1, App. B.
    """
    n, kappa = _game(n, kappa)
    I_bits = _rate("I_bits", I_bits, n)
    I_bits, n, kappa = np.broadcast_arrays(I_bits, n, kappa)
    total = np.zeros(I_bits.shape)
    kmax = int(kappa.max()) if kappa.size else 0
    for start in range(1, kmax + 1, _T_BLOCK):
        t = np.arange(start, min(start + _T_BLOCK, kmax + 1), dtype=float)
        terms = 1 - (I_bits[..., None] + 1) / np.log2(n[..., None] / t)
        terms = np.where(t <= kappa[..., None], np.maximum(terms, 0.0), 0.0)
        total += terms.sum(axis=-1)
    return _out(total)


def bound_affine(I_bits, n, kappa):
    """Affine floor of Theorem 1 (eq. 12): kappa * max(0, 1 - (I + 1)/nu), nu = log2(n/kappa).

    Always <= :func:`bound_sum` (proved in :mod:`theory.theorem1_bound`).
    Args/Raises: as :func:`bound_sum`. Returns: float in [0, kappa).
    Source: THEORY.md §2 "Bound" (affine floor); VISTA Theorem 1, eq. (12).
    """
    n, kappa = _game(n, kappa)
    I_bits = _rate("I_bits", I_bits, n)
    return _out(kappa * np.maximum(0.0, 1 - (I_bits + 1) / np.log2(n / kappa)))


def blind_EZ(n, kappa):
    """E[Z] of the size-blind endpoint (I = 0, uniformly random order): kappa - kappa(kappa+1)/(2n).

    Args: ``n`` integer > kappa, ``kappa`` integer >= 2; broadcast.
    Returns: float (blocks). Raises: ValueError naming ``n``/``kappa``.
    Source: THEORY.md §2 "Corollaries: Endpoints"; VISTA App. C(i).
    """
    n, kappa = _game(n, kappa)
    return _out(_uniform_burden(n, kappa))


def list_achievability_EZ_m(m, kappa):
    """E[Z] of the rate-log2(n/m) list channel with integer list size m.

    Y is a uniformly random m-subset containing J*; archiving Y in random order puts
    J* at a uniform position tau in 1..m, so E[Z] = E[min(tau - 1, kappa)] =
    kappa - kappa(kappa+1)/(2m) if m >= kappa + 1, else (m - 1)/2. Its rate is exactly
    log2(n/m) bits (see :func:`list_size_for_rate`); n does not enter E[Z].

    Args: ``m`` integer >= 1, ``kappa`` integer >= 2; broadcast.
    Returns: float (blocks). Raises: ValueError naming ``m``/``kappa``.
    Source: THEORY.md §2 "Achievability"; VISTA App. D.
    """
    kappa = _integer("kappa", kappa, 2)
    m = _integer("m", m, 1)
    return _out(_uniform_burden(m, kappa))


def list_achievability_EZ(n, kappa, r):
    """THEORY's achievability curve at rate r bits, evaluated at the real m = n 2^-r.

    For integer m = n 2^-r this is the exact E[Z] of the list channel. For other r it
    evaluates the same piecewise formula at real m (split at m = kappa + 1 as in
    THEORY.md, so on kappa <= m <= kappa+1 it is the straight line (m-1)/2 between the
    two integer values): a smooth curve for plots, not the E[Z] of a realisable
    channel. Simulations use integer m from :func:`list_size_for_rate` and
    :func:`list_achievability_EZ_m`.

    Args: ``n`` integer > kappa, ``kappa`` integer >= 2, ``r`` bits in [0, log2 n];
    broadcast. Returns: float (blocks). Raises: ValueError naming ``n``/``kappa``/``r``.
    Source: THEORY.md §2 "Achievability"; VISTA App. D.
    """
    n, kappa = _game(n, kappa)
    r = _rate("r", r, n)
    return _out(_uniform_burden(n * np.exp2(-r), kappa))


def list_size_for_rate(n, r):
    """Integer list size and its exact rate for a target rate r: (m, log2(n/m)).

    m = round(n 2^-r) clipped to 1..n; the realised rate r_eff = log2(n/m) bits is
    what the list channel carries (I(J*; Y) = log2(n/m) exactly).

    Args: ``n`` integer >= 2, ``r`` bits in [0, log2 n]; broadcast.
    Returns: (m as int / int64 array, r_eff float bits). Raises: ValueError naming ``n``/``r``.
    Source: THEORY.md §2 "Achievability".
    """
    n = _integer("n", n, 2)
    r = _rate("r", r, n)
    m = np.clip(np.rint(n * np.exp2(-r)), 1, n)
    return _out(m.astype(np.int64)), _out(np.log2(n / m))


def windowed_rate_bits(n, w):
    """Rate of the windowed ledger (w of n rows shown): log2 n - (1 - w/n) log2(n - w) bits.

    At w = n the second term is 0 * log2 0, defined as its limit 0 (rate log2 n).
    Args: ``n`` integer >= 1, ``w`` integer in 0..n; broadcast.
    Returns: float bits in [0, log2 n]. Raises: ValueError naming ``n``/``w``.
    Source: THEORY.md §2 "Windowed ledger".
    """
    n = _integer("n", n, 1)
    w = _integer("w", w, 0)
    _in_range("w", w, 0, n, "an integer in 0..n")
    # Cancellation-free form (w/n) log2 n - (1 - w/n) log2(1 - w/n), proved equal in
    # theory.windowed_ledger: the textbook form loses ~log2(n) * 1e-16 absolute,
    # i.e. all relative accuracy when w << n is large.
    frac = w / n
    tail = np.log1p(-np.where(frac < 1, frac, 0.0)) / np.log(2)   # w = n: 0 * log2 0 := 0
    return _out(frac * np.log2(n) - (1 - frac) * tail)


def windowed_EZ(n, kappa, w):
    """E[Z] of the windowed ledger policy: (1 - w/n) E[min(U - 1, kappa)], U ~ Uniform{1..n-w}.

    If J* is among the w listed blocks it is archived first (Z = 0); otherwise the
    n - w unlisted blocks are archived in random order. This is THEORY's
    (1 - w/n)[kappa - kappa(kappa+1)/(2(n - w))] when n - w >= kappa (exact validity,
    proved in :mod:`theory.windowed_ledger`) and (1 - w/n)(n - w - 1)/2 when
    n - w <= kappa + 1; 0 at w = n.

    Args: ``n`` integer > kappa, ``kappa`` integer >= 2, ``w`` integer in 0..n; broadcast.
    Returns: float (blocks). Raises: ValueError naming ``n``/``kappa``/``w``.
    Source: THEORY.md §2 "Windowed ledger".
    """
    n, kappa = _game(n, kappa)
    w = _integer("w", w, 0)
    _in_range("w", w, 0, n, "an integer in 0..n")
    return _out((1 - w / n) * _uniform_burden(n - w, kappa))


def threshold_rate_bits(n, kappa, delta):
    """Rate forced by E[Z] <= delta * kappa: I >= (1 - delta) nu - 1 bits, nu = log2(n/kappa).

    Not clipped: a value <= 0 means the bound forces nothing.
    Args: ``n`` integer > kappa, ``kappa`` integer >= 2, ``delta`` in [0, 1]; broadcast.
    Returns: float bits. Raises: ValueError naming ``n``/``kappa``/``delta``.
    Source: THEORY.md §2 "Corollaries: Threshold"; VISTA App. C(ii).
    """
    n, kappa = _game(n, kappa)
    delta = _in_range("delta", _real("delta", delta), 0.0, 1.0, "in [0, 1]")
    return _out((1 - delta) * np.log2(n / kappa) - 1)


def price_rate_bits(n, kappa, Delta):
    """Rate forced by E[Z] <= kappa - Delta: I >= Delta nu / kappa - 1 bits.

    The affine floor falls at kappa/nu blocks per bit. Not clipped (<= 0: no constraint).
    Args: ``n`` integer > kappa, ``kappa`` integer >= 2, ``Delta`` in [0, kappa]; broadcast.
    Returns: float bits. Raises: ValueError naming ``n``/``kappa``/``Delta``.
    Source: THEORY.md §2 "Corollaries: Price"; VISTA App. C(iii).
    """
    n, kappa = _game(n, kappa)
    Delta = _in_range("Delta", _real("Delta", Delta), 0.0, kappa, "in [0, kappa]")
    return _out(Delta * np.log2(n / kappa) / kappa - 1)


# ----------------------------------------------------------------------------- Proposition 2

def _sigma(sigma) -> np.ndarray:
    """Validate a noise scale sigma > 0."""
    sigma = _real("sigma", sigma)
    bad = sigma <= 0
    if np.any(bad):
        raise ValueError(f"sigma must be > 0, got {_first_bad(sigma, bad)!r}")
    return sigma


def prop2_paper_bound_bits(kappa, sigma):
    """The paper's content-channel bound: (ln 2)(log2 kappa)^2 / sigma^2 bits.

    Equals (ln kappa)^2/sigma^2 nats (the pairwise Gaussian KL) converted to bits;
    constant in n. Args: ``kappa`` integer >= 2, ``sigma`` > 0; broadcast.
    Returns: float bits. Raises: ValueError naming ``kappa``/``sigma``.
    Source: THEORY.md §3; VISTA Proposition 2 (App. A, Steps 1-3).
    """
    kappa = _integer("kappa", kappa, 2)
    sigma = _sigma(sigma)
    return _out(np.log(2) * np.log2(kappa) ** 2 / sigma ** 2)


def prop2_centroid_bound_bits(n, kappa, sigma):
    """Centroid bound: (1 - 1/n)(ln kappa)^2 / (2 sigma^2 ln 2) bits.

    E_j KL(P_j || N((ln kappa / n) 1, sigma^2 I)) in bits; equals the paper's bound
    times (n-1)/(2n), so it is below it for every n >= 2.
    Args: ``n`` integer > kappa, ``kappa`` integer >= 2, ``sigma`` > 0; broadcast.
    Returns: float bits. Raises: ValueError naming ``n``/``kappa``/``sigma``.
    Source: THEORY.md §3 "Tighter centroid bound".
    """
    n, kappa = _game(n, kappa)
    sigma = _sigma(sigma)
    return _out((1 - 1 / n) * np.log(kappa) ** 2 / (2 * sigma ** 2 * np.log(2)))

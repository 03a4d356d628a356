"""Mean and Student-t confidence interval of the runs of one point (several seeds).

    mean = sum(x) / n
    s    = sqrt(sum((x - mean)^2) / (n - 1))          (sample standard deviation)
    half = t(1 - (1 - level) / 2, n - 1) * s / sqrt(n)  (the interval is mean +- half)

t(p, dof) is the quantile of Student's t distribution, computed here (no SciPy): the CDF from
the regularized incomplete beta function (continued fraction, Numerical Recipes' betacf), the
quantile by bisection to 1e-12.  One sample gives no interval (half is None).
"""
from __future__ import annotations

import math
from functools import lru_cache

LEVEL = 0.95


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, dof: int) -> float:
    x = dof / (dof + t * t)
    tail = 0.5 * betainc(dof / 2.0, 0.5, x)
    return 1.0 - tail if t >= 0 else tail


@lru_cache(maxsize=None)
def t_quantile(p: float, dof: int) -> float:
    """The p-quantile of Student's t with dof degrees of freedom (0.5 < p < 1)."""
    if not 0.5 <= p < 1.0 or dof < 1:
        raise ValueError(f"t_quantile needs 0.5 <= p < 1 and dof >= 1, got p={p}, dof={dof}")
    lo, hi = 0.0, 1.0
    while t_cdf(hi, dof) < p:
        hi *= 2.0
    while hi - lo > 1e-12 * max(1.0, hi):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, dof) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def mean_ci(samples, level: float = LEVEL) -> tuple[float | None, float | None, int]:
    """(mean, half-width of the two-sided `level` interval, n) of the numbers among samples
    (None, bools and text are left out; true/false count as 1/0).  Mean None when no number;
    half None when fewer than two."""
    xs = [float(x) for x in samples
          if isinstance(x, (int, float)) and (isinstance(x, bool) or math.isfinite(x))]
    n = len(xs)
    if n == 0:
        return None, None, 0
    mean = math.fsum(xs) / n
    if n < 2:
        return mean, None, n
    s = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, t_quantile(1.0 - (1.0 - level) / 2.0, n - 1) * s / math.sqrt(n), n

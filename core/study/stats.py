"""Statistics the study and the comparison report: Mann–Whitney U, Holm, IQR, intervals.

Why our own code: the paper tests every improvement with a two-sided
Mann–Whitney U test and Holm's correction over 15 runs per setting; the
numbers have to be reproducible and explainable without a statistics package
in the loop, so the formulas are written out here and checked against scipy in
tests/test_study_stats.py.

Conventions (scipy's defaults, so results agree):
- U is the statistic of the first sample: U1 = R1 - n1(n1+1)/2, R1 the rank sum
  of `x` in the pooled sample (ties get average ranks).
- Two-sided p-value. `method="exact"` enumerates the null distribution of U
  (valid without ties); `"asymptotic"` is the normal approximation with the tie
  correction of the variance and a continuity correction of 0.5; `"auto"` is
  exact when one of the samples has at most 8 values and there are no ties.
- Holm: step-down adjusted p-values, monotone, capped at 1.
- The normal tail and quantiles come from the standard library (math.erfc,
  statistics.NormalDist) and the binomial tail is summed exactly, so reading
  and drawing stored results never imports scipy.stats (1-2 s on 2 cores);
  only the t interval's quantile still loads it, on first use.
- Relative improvement, as the paper reports it: (new - base) / base, in
  percent; averaged over settings by taking the mean of per-setting values.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np


@dataclass(frozen=True)
class MannWhitney:
    u: float  # statistic of the first sample
    p: float  # two-sided p-value
    method: str  # exact | asymptotic
    n1: int
    n2: int


def rankdata(values: Sequence[float]) -> np.ndarray:
    """Ranks 1..n with ties given their average rank."""
    a = np.asarray(values, dtype=float)
    order = np.argsort(a, kind="mergesort")
    ranks = np.empty(len(a), dtype=float)
    i = 0
    sorted_a = a[order]
    while i < len(a):
        j = i
        while j + 1 < len(a) and sorted_a[j + 1] == sorted_a[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


@lru_cache(maxsize=256)
def _u_counts(n1: int, n2: int) -> tuple[int, ...]:
    """Number of arrangements giving each U = 0..n1*n2 (no ties).

    They are the coefficients of the Gaussian binomial [n1 + n2 choose n1]_q =
    prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i) with m = min(n1, n2), n = max: m
    polynomial products and exact divisions, O(m² n) integer additions, so an
    exact test of 8 runs against hundreds stays instant.
    """
    m, n = sorted((n1, n2))
    size = m * n + m + 1  # room for the products before each division
    c = [0] * size
    c[0] = 1
    for i in range(1, m + 1):
        step = n + i
        for k in range(size - 1, step - 1, -1):  # times (1 - q^(n+i))
            c[k] -= c[k - step]
        for k in range(i, size):  # divided by (1 - q^i): exact, the quotient is a polynomial
            c[k] += c[k - i]
    return tuple(c[: m * n + 1])


def _exact_p(u1: float, n1: int, n2: int) -> float:
    counts = _u_counts(n1, n2)
    total = math.comb(n1 + n2, n1)
    u = max(u1, n1 * n2 - u1)
    k = int(math.ceil(u - 1e-9))
    upper = sum(counts[k:]) / total  # P(U >= u)
    return min(1.0, 2.0 * upper)


def _asymptotic_p(u1: float, ranks_all: np.ndarray, n1: int, n2: int) -> float:
    n = n1 + n2
    mu = n1 * n2 / 2.0
    _, t = np.unique(ranks_all, return_counts=True)
    tie_term = float((t**3 - t).sum()) / (n * (n - 1)) if n > 1 else 0.0
    var = n1 * n2 / 12.0 * ((n + 1) - tie_term)
    if var <= 0:
        return 1.0
    u = max(u1, n1 * n2 - u1)
    z = (u - mu - 0.5) / math.sqrt(var)
    return float(min(1.0, math.erfc(z / math.sqrt(2.0))))  # 2 · P(Z > z)


def mann_whitney_u(x: Sequence[float], y: Sequence[float], method: str = "auto") -> MannWhitney:
    """Two-sided Mann–Whitney U test of `x` against `y` (see the module docstring)."""
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        raise ValueError("Mann–Whitney U needs two non-empty samples")
    ranks = rankdata(list(x) + list(y))
    u1 = float(ranks[:n1].sum() - n1 * (n1 + 1) / 2.0)
    ties = len(np.unique(ranks)) < n1 + n2
    if method == "auto":
        method = "exact" if (min(n1, n2) <= 8 and not ties) else "asymptotic"
    if method == "exact":
        p = _exact_p(u1, n1, n2)
    elif method == "asymptotic":
        p = _asymptotic_p(u1, ranks, n1, n2)
    else:
        raise ValueError(f"unknown method {method!r}; expected auto, exact or asymptotic")
    return MannWhitney(u1, p, method, n1, n2)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in the input order.

    Sorted ascending p(1) <= ... <= p(m): adj(i) = max over j <= i of
    min(1, (m - j + 1) * p(j)).
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(pvalues[i])))
        adjusted[i] = running
    return adjusted


def iqr(values: Sequence[float]) -> float:
    """Interquartile range q75 - q25 (linear interpolation, numpy's default)."""
    if len(values) == 0:
        return float("nan")
    q75, q25 = np.percentile(np.asarray(values, dtype=float), [75, 25])
    return float(q75 - q25)


def relative_improvement(new: float, base: float) -> float:
    """(new - base) / base in percent; NaN when base is 0 (the paper's "improves TS by X%")."""
    if base == 0:
        return float("nan") if new == 0 else float("inf")
    return (new - base) / base * 100.0


def mean_relative_improvement(pairs: Sequence[tuple[float, float]]) -> float:
    """Average of per-setting relative improvements (new, base), skipping undefined ones."""
    vals = [relative_improvement(n, b) for n, b in pairs]
    vals = [v for v in vals if math.isfinite(v)]
    return float(np.mean(vals)) if vals else float("nan")


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    n: int
    method: str

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0


def t_interval(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """Mean ± Student-t half-width (sd with n-1); a single value gives a zero-width interval."""
    a = np.asarray(values, dtype=float)
    n = len(a)
    if n == 0:
        nan = float("nan")
        return Interval(nan, nan, nan, 0, "t")
    mean = float(a.mean())
    if n == 1:
        return Interval(mean, mean, mean, 1, "t")
    from scipy import stats  # here, not at import: scipy.stats takes 1-2 s to load

    half = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1) * a.std(ddof=1) / math.sqrt(n))
    return Interval(mean, mean - half, mean + half, n, "t")


def bootstrap_interval(
    values: Sequence[float], confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> Interval:
    """Percentile bootstrap interval of the mean (seeded, so reports are reproducible)."""
    a = np.asarray(values, dtype=float)
    n = len(a)
    if n == 0:
        nan = float("nan")
        return Interval(nan, nan, nan, 0, "bootstrap")
    rng = np.random.default_rng(seed)
    means = a[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    lo, hi = np.percentile(means, [50 * (1 - confidence), 50 * (1 + confidence)])
    return Interval(float(a.mean()), float(lo), float(hi), n, "bootstrap")


def cluster_bootstrap_interval(
    clusters: Sequence[Sequence[float]], confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> Interval:
    """Percentile bootstrap interval of the mean over all values, resampling whole clusters.

    Why: the same test task measured with two target agents gives two values that share the
    task's difficulty; resampling values one by one would count them as independent and make the
    interval too narrow. Resampling tasks, each with all its values, keeps that dependence.
    """
    sums = np.asarray([float(sum(c)) for c in clusters], dtype=float)
    sizes = np.asarray([len(c) for c in clusters], dtype=float)
    k = len(sums)
    if k == 0 or sizes.sum() == 0:
        nan = float("nan")
        return Interval(nan, nan, nan, 0, "cluster bootstrap")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, k, size=(resamples, k))
    means = sums[picks].sum(axis=1) / sizes[picks].sum(axis=1)
    lo, hi = np.percentile(means, [50 * (1 - confidence), 50 * (1 + confidence)])
    return Interval(
        float(sums.sum() / sizes.sum()), float(lo), float(hi), int(sizes.sum()), "cluster bootstrap"
    )


def paired_delta(variant: Sequence[float], base: Sequence[float], confidence: float = 0.95) -> Interval:
    """Interval of the mean difference variant - base over paired repeats (same seeds)."""
    if len(variant) != len(base):
        raise ValueError(f"paired samples differ in length: {len(variant)} vs {len(base)}")
    return t_interval([v - b for v, b in zip(variant, base, strict=True)], confidence)


def per_task_differences(
    variant: Sequence[dict[str, float]], base: Sequence[dict[str, float]]
) -> list[float]:
    """Each task's mean difference variant - base over the repeats (paired by index) that hold it in both."""
    k = min(len(variant), len(base))
    tasks = (
        sorted(set().union(*(set(v) for v in variant[:k])) & set().union(*(set(b) for b in base[:k])))
        if k
        else []
    )
    diffs = []
    for t in tasks:
        pairs = [(v[t], b[t]) for v, b in zip(variant[:k], base[:k], strict=True) if t in v and t in b]
        if pairs:
            diffs.append(sum(v - b for v, b in pairs) / len(pairs))
    return diffs


def paired_task_delta(
    variant: Sequence[dict[str, float]],
    base: Sequence[dict[str, float]],
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> Interval:
    """Mean per-task difference variant - base with a paired bootstrap over tasks.

    `variant[r]` and `base[r]` map task id -> success (0/1) in repeat r; repeats
    are paired by index (same seed). Each task's difference is its mean over the
    paired repeats, and tasks are resampled, so the interval reflects which tasks
    were drawn as well as sampling noise — unlike an interval over repeats,
    which collapses to zero width when the repeats happen to agree.
    """
    out = bootstrap_interval(per_task_differences(variant, base), confidence, resamples, seed)
    return Interval(out.mean, out.low, out.high, out.n, "paired bootstrap over tasks")


@dataclass(frozen=True)
class McNemar:
    """Exact McNemar test on paired binary outcomes: b = only the new method passes, c = only the base."""

    b: int
    c: int
    p: float


def mcnemar_exact(new: Sequence[bool], base: Sequence[bool]) -> McNemar:
    """Two-sided exact McNemar test (binomial on the discordant pairs, p = 0.5).

    Pairs are tasks evaluated under both methods; concordant pairs carry no
    information about the difference, so only b and c enter the test.
    """
    if len(new) != len(base):
        raise ValueError(f"paired samples differ in length: {len(new)} vs {len(base)}")
    b = sum(1 for x, y in zip(new, base, strict=True) if x and not y)
    c = sum(1 for x, y in zip(new, base, strict=True) if y and not x)
    n = b + c
    if n == 0:
        return McNemar(b, c, 1.0)
    p = float(min(1.0, 2 * sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2**n))
    return McNemar(b, c, p)


def minimum_detectable_effect(
    diffs: Sequence[float] | None = None,
    n: int | None = None,
    *,
    sd: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> float:
    """Smallest true mean paired difference a two-sided test at `alpha` detects with `power`.

    From the per-task differences (their SD and count) or an assumed `sd` and
    `n`: MDE = (z_{1-α/2} + z_{power}) · sd / √n. With paired binary outcomes
    the SD of a per-task difference is at most 1 (every pair discordant), so
    `sd=1` gives the worst case before any data exists.
    """
    if diffs is not None:
        a = np.asarray(diffs, dtype=float)
        n = len(a)
        sd = float(a.std(ddof=1)) if n > 1 else float("nan")
    if not n or sd is None or not math.isfinite(sd):
        return float("nan")
    z = statistics.NormalDist().inv_cdf(1 - alpha / 2) + statistics.NormalDist().inv_cdf(power)
    return float(z * sd / math.sqrt(n))

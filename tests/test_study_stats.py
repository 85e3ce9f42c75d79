"""The study statistics against scipy and against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as st

from core.study.stats import (
    bootstrap_interval,
    holm,
    iqr,
    mann_whitney_u,
    mean_relative_improvement,
    paired_delta,
    rankdata,
    relative_improvement,
    t_interval,
)


def test_rankdata_averages_ties():
    assert list(rankdata([3, 1, 3, 2])) == [3.5, 1.0, 3.5, 2.0]


def test_exact_hand_computed():
    # x = [1, 2], y = [3, 4]: U1 = 0; of the C(4,2)=6 arrangements one gives U=0 and one U=4,
    # so the two-sided p = 2 * 1/6.
    r = mann_whitney_u([1, 2], [3, 4], method="exact")
    assert r.u == 0 and r.p == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    "x,y",
    [
        ([0.1, 0.4, 0.35, 0.8], [0.5, 0.9, 0.7, 0.65, 0.95]),
        ([1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]),
        ([0.2, 0.25, 0.3], [0.22, 0.27, 0.31]),
    ],
)
def test_exact_matches_scipy(x, y):
    ours = mann_whitney_u(x, y, method="exact")
    ref = st.mannwhitneyu(x, y, alternative="two-sided", method="exact")
    assert ours.u == pytest.approx(ref.statistic)
    assert ours.p == pytest.approx(ref.pvalue, rel=1e-12)


def test_asymptotic_with_ties_matches_scipy():
    rng = np.random.default_rng(3)
    for _ in range(25):
        x = list(rng.integers(0, 6, size=rng.integers(3, 16)) / 5)
        y = list(rng.integers(1, 7, size=rng.integers(3, 16)) / 5)
        if len(set(x + y)) == 1:
            continue
        ours = mann_whitney_u(x, y, method="asymptotic")
        ref = st.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic", use_continuity=True)
        assert ours.u == pytest.approx(ref.statistic)
        assert ours.p == pytest.approx(ref.pvalue, rel=1e-9)


def test_auto_picks_like_scipy():
    x, y = [0.5, 0.6, 0.6, 0.7], [0.8, 0.9, 0.95]
    assert mann_whitney_u(x, y).method == "asymptotic"  # ties
    assert mann_whitney_u([1, 2, 3], [4, 5, 6]).method == "exact"
    ref = st.mannwhitneyu(x, y, alternative="two-sided")
    assert mann_whitney_u(x, y).p == pytest.approx(ref.pvalue)


def test_all_equal_gives_p_one():
    assert mann_whitney_u([0.5, 0.5], [0.5, 0.5, 0.5]).p == 1.0


def test_holm_hand_computed():
    # sorted p: 0.01, 0.02, 0.03, 0.5 with m=4 -> 0.04, 0.06, 0.06 (monotone), 0.5
    assert holm([0.03, 0.01, 0.5, 0.02]) == pytest.approx([0.06, 0.04, 0.5, 0.06])
    assert holm([0.4, 0.5]) == pytest.approx([0.8, 0.8])
    assert holm([]) == []


def test_iqr_and_relative_improvement():
    assert iqr([1, 2, 3, 4, 5]) == pytest.approx(2.0)
    assert iqr([0.2, 0.2, 0.4, 0.6]) == pytest.approx(
        np.subtract(*np.percentile([0.2, 0.2, 0.4, 0.6], [75, 25]))
    )
    assert relative_improvement(0.47, 0.24) == pytest.approx(95.8333, rel=1e-4)
    assert np.isnan(relative_improvement(0.0, 0.0))
    assert mean_relative_improvement([(0.3, 0.2), (0.2, 0.2), (0.1, 0.0)]) == pytest.approx(25.0)


def test_intervals():
    iv = t_interval([0.1, 0.2, 0.3])
    half = st.t.ppf(0.975, 2) * 0.1 / np.sqrt(3)
    assert iv.mean == pytest.approx(0.2) and iv.high - iv.mean == pytest.approx(half)
    assert t_interval([0.4]).low == 0.4
    d = paired_delta([0.5, 0.6, 0.4], [0.4, 0.4, 0.4])
    assert d.mean == pytest.approx(0.1)
    b = bootstrap_interval([0.1, 0.2, 0.3, 0.4], seed=1)
    assert b.low <= b.mean <= b.high
    assert bootstrap_interval([0.1, 0.2, 0.3, 0.4], seed=1) == b


def test_paired_task_delta_resamples_tasks_with_per_task_means():
    from core.study.stats import paired_task_delta

    # three repeats that agree exactly: an interval over repeats would have zero width
    base = [{"a": 0, "b": 1, "c": 0, "d": 0}] * 3
    variant = [{"a": 1, "b": 1, "c": 0, "d": 1}] * 3
    d = paired_task_delta(variant, base, resamples=4000, seed=1)
    assert d.n == 4 and d.mean == pytest.approx(0.5)  # per-task diffs 1, 0, 0, 1
    assert d.low < 0.5 < d.high and d.high - d.low > 0.2
    assert d.method == "paired bootstrap over tasks"
    # per-task means over paired repeats: task a is +1 in one repeat of two
    two = paired_task_delta([{"a": 1, "b": 0}, {"a": 0, "b": 0}], [{"a": 0, "b": 0}, {"a": 0, "b": 0}])
    assert two.mean == pytest.approx(0.25)
    # only tasks present on both sides are paired
    assert paired_task_delta([{"a": 1, "x": 1}], [{"a": 1}]).n == 1


def test_mcnemar_exact_by_hand_and_against_scipy():
    from scipy.stats import binomtest

    from core.study.stats import mcnemar_exact

    new = [True] * 7 + [False] * 2 + [True] * 5 + [False] * 6
    base = [False] * 7 + [True] * 2 + [True] * 5 + [False] * 6
    m = mcnemar_exact(new, base)
    assert (m.b, m.c) == (7, 2)
    # by hand: 2 * P(X <= 2), X ~ Bin(9, 0.5) = 2 * (1 + 9 + 36) / 512
    assert m.p == pytest.approx(2 * 46 / 512)
    assert m.p == pytest.approx(binomtest(2, 9, 0.5).pvalue)
    assert mcnemar_exact([True, False], [True, False]).p == 1.0


def test_minimum_detectable_effect_shrinks_with_more_pairs():
    from core.study.stats import minimum_detectable_effect

    z = 1.959963984540054 + 0.8416212335729143
    assert minimum_detectable_effect(n=100, sd=1.0) == pytest.approx(z / 10)
    assert minimum_detectable_effect(n=400, sd=1.0) == pytest.approx(z / 20)
    diffs = [1, 0, 0, -1, 1, 0, 1, 0]
    sd = float(np.std(diffs, ddof=1))
    assert minimum_detectable_effect(diffs) == pytest.approx(z * sd / np.sqrt(8))


def test_paired_evidence_of_a_comparison_by_hand():
    from core.study.compare_rows import Point, paired_evidence

    def point(run, outcomes):
        return Point("m", 0, run, 0.0, 0.0, len(outcomes), f"r{run}", "d", dict(outcomes), dict(outcomes))

    # DC on two evaluation runs, OG on one; per-task means: DC a=1, b=0.5, c=1, d=0 ; OG a=0, b=0, c=1, d=1
    dc = [point(0, {"a": 1, "b": 1, "c": 1, "d": 0}), point(1, {"a": 1, "b": 0, "c": 1, "d": 0})]
    og = [point(0, {"a": 0, "b": 0, "c": 1, "d": 1})]
    e = paired_evidence(dc, og, "ts")
    assert e["paired_n"] == 4
    assert e["paired_delta"] == pytest.approx((1 + 0.5 + 0 - 1) / 4)
    # majority outcomes: DC passes a, b (0.5 counts), c; OG passes c, d -> b = 2 (a, b), c = 1 (d)
    assert (e["mcnemar_b"], e["mcnemar_c"]) == (2, 1)
    assert e["mcnemar_p"] == pytest.approx(1.0)  # 2 * P(X <= 1 | n=3) = 2 * 4/8, capped at 1
    sd = float(np.std([1, 0.5, 0, -1], ddof=1))
    assert e["mde"] == pytest.approx((1.959963984540054 + 0.8416212335729143) * sd / 2)
    assert e["paired_low"] <= e["paired_delta"] <= e["paired_high"]
    assert paired_evidence(dc, [], "ts")["paired_n"] == 0


def test_auto_is_exact_when_one_sample_is_small_like_scipy() -> None:
    """scipy's 'auto' is exact when one sample has at most 8 values (the other may be long)."""
    rng = np.random.default_rng(3)
    for n2 in (9, 40, 300):
        x, y = rng.normal(size=5), rng.normal(size=n2) + 0.3
        ours, ref = mann_whitney_u(x, y), st.mannwhitneyu(x, y, alternative="two-sided")
        assert ours.method == "exact"
        assert ours.u == ref.statistic and ours.p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12)


def test_mcnemar_and_detectable_effect_without_scipy_agree_with_it() -> None:
    from core.study.stats import mcnemar_exact, minimum_detectable_effect

    for b, c in [(0, 0), (14, 1), (30, 41), (200, 170)]:
        p = mcnemar_exact([True] * b + [False] * c, [False] * b + [True] * c).p
        assert p == pytest.approx(min(1.0, 2 * st.binom.cdf(min(b, c), b + c, 0.5)) if b + c else 1.0)
    z = st.norm.ppf(0.975) + st.norm.ppf(0.8)
    assert minimum_detectable_effect(n=40, sd=1.0) == pytest.approx(z / np.sqrt(40))


def test_reading_results_does_not_import_scipy_stats() -> None:
    """The dashboard's pages and the results report read stored tests: scipy.stats (1-2 s) stays unloaded."""
    import subprocess
    import sys

    code = (
        "import sys; import core.ui.app, core.ui.views.compare, core.ui.views.impact, core.study.report, "
        "core.study.compare_report, core.study.compare_across; from core.ui.stats import versus; versus('a', {'a': [1, 2, 3], 'b': [2, 3, 4]}); "
        "print('scipy.stats' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"

"""core.ui.chartview: a chart's Vega-Lite spec is built and validated once per input, then kept."""

from __future__ import annotations

import altair as alt
import pandas as pd
import pytest

from core.ui import charts, chartview


def test_the_spec_is_the_charts_own_and_is_built_once_per_input(monkeypatch: pytest.MonkeyPatch) -> None:
    chartview.spec.clear()
    df = pd.DataFrame({"i": [0, 1, 2], "ts": [0.1, 0.2, 0.4], "s": ["a", "a", "a"]})
    args = ("i", "ts", "s", "Iteration", "TS")
    with alt.theme.enable("none"):
        expected = charts.curves(df, *args).to_dict()
    built = []
    original = charts.curves
    monkeypatch.setattr(charts, "curves", lambda *a, **k: built.append(a) or original(*a, **k))
    first = chartview.spec("core.ui.charts", "curves", (df, *args), {})
    again = chartview.spec("core.ui.charts", "curves", (df.copy(), *args), {})
    assert first == again == expected and len(built) == 1  # the same input: kept
    chartview.spec("core.ui.charts", "curves", (df.assign(ts=[0.3, 0.2, 0.1]), *args), {})
    assert len(built) == 2  # other data: built again
    assert "view" not in expected.get("config", {}) or "continuousWidth" not in expected["config"]["view"]

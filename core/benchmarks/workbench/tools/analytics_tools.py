"""Analytics tools (SPEC 3.3). Date bounds are plain string comparisons on `date_of_visit`."""

from __future__ import annotations

from typing import Any

import pandas as pd

from core.benchmarks.workbench.tables import Tables, append_row

PLOT_VALUES = (
    "total_visits",
    "session_duration_seconds",
    "user_engaged",
    "visits_direct",
    "visits_referral",
    "visits_search_engine",
    "visits_social_media",
)
PLOT_TYPES = ("bar", "line", "scatter", "histogram")
VALUE_ERROR = (
    "Value to plot must be one of 'total_visits', 'session_duration_seconds', 'user_engaged', "
    "'direct', 'referral', 'search engine', 'social media'"
)
TYPE_ERROR = "Plot type must be one of 'bar', 'line', 'scatter', or 'histogram'"


def _in_range(df: pd.DataFrame, time_min: Any, time_max: Any) -> pd.DataFrame:
    if time_min:
        df = df[df["date_of_visit"] >= time_min]
    if time_max:
        df = df[df["date_of_visit"] <= time_max]
    return df


def get_visitor_information_by_id(t: Tables, /, visitor_id: Any = None) -> Any:
    if not visitor_id:
        return "Visitor ID not provided."
    df = t.analytics
    rows = df[df["visitor_id"] == visitor_id]
    if rows.empty:
        return "Visitor not found."
    return rows.to_dict(orient="records")


def create_plot(
    t: Tables, /, time_min: Any = None, time_max: Any = None, value_to_plot: Any = None, plot_type: Any = None
) -> Any:
    if not time_min:
        return "Start date not provided."
    if not time_max:
        return "End date not provided."
    if value_to_plot not in PLOT_VALUES:
        return VALUE_ERROR
    if plot_type not in PLOT_TYPES:
        return TYPE_ERROR
    path = f"plots/{time_min}_{time_max}_{value_to_plot}_{plot_type}.png"
    t.set("plots", append_row(t.plots, [path], len(t.plots)))
    return path


def total_visits_count(t: Tables, /, time_min: Any = None, time_max: Any = None) -> Any:
    return _in_range(t.analytics, time_min, time_max).groupby("date_of_visit").size().to_dict()


def engaged_users_count(t: Tables, /, time_min: Any = None, time_max: Any = None) -> Any:
    data = _in_range(t.analytics, time_min, time_max)
    return {k: int(v) for k, v in data.groupby("date_of_visit")["user_engaged"].sum().to_dict().items()}


def traffic_source_count(
    t: Tables, /, time_min: Any = None, time_max: Any = None, traffic_source: Any = None
) -> Any:
    data = _in_range(t.analytics, time_min, time_max)
    if not traffic_source:
        return data.groupby("date_of_visit").size().to_dict()
    hits = (data["traffic_source"] == traffic_source).groupby(data["date_of_visit"]).sum()
    return {k: int(v) for k, v in hits.to_dict().items()}


def get_average_session_duration(t: Tables, /, time_min: Any = None, time_max: Any = None) -> Any:
    if not time_min and not time_max:
        # Upstream converts the episode's global column in place (Q13); later reads show floats.
        t.analytics = t.analytics.assign(
            session_duration_seconds=t.analytics["session_duration_seconds"].astype(float)
        )
        data = t.analytics
    else:
        data = _in_range(t.analytics, time_min, time_max)
        data = data.assign(session_duration_seconds=data["session_duration_seconds"].astype(float))
    means = data.groupby("date_of_visit")["session_duration_seconds"].mean()
    return {k: float(v) for k, v in means.to_dict().items()}

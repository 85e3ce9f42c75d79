"""Cached read queries of the dashboard: all of its SQL lives in these modules."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd


def json_value(value: Any, default: Any) -> Any:
    """A JSON column as Python: DuckDB hands JSON back as text, NULL as None or NaN in a frame."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return default
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return default
    return value

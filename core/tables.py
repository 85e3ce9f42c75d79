"""Markdown tables from data frames, for the results document, the CLI and the dashboard.

A leaf module (imports nothing of ours) so every layer can render a table.
"""

from __future__ import annotations

import pandas as pd


def markdown_table(df: pd.DataFrame, floatfmt: str = ".1f") -> str:
    """A Markdown table without extra dependencies (floats formatted, NaN left blank)."""
    if df.empty:
        return "_no rows_"
    cols = list(df.columns)
    lines = ["| " + " | ".join(str(c) for c in cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        cells = []
        for v in row:
            if isinstance(v, float):
                cells.append("" if pd.isna(v) else format(v, floatfmt))
            else:
                cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)

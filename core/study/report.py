"""Field-impact tables as text: one row per field, in taxonomy order (the paper's Fig. 1 as a table).

The CLI prints these and the results document embeds them; the dashboard
draws the same rows (`core.study.fields.latest_impacts`) as a bar chart.
"""

from __future__ import annotations

import json
import math

import pandas as pd

from core.fields import CODES


def _pp(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:+.1f}"


def _pct(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * value:.1f}%"


def impact_table(rows: pd.DataFrame) -> list[list[str]]:
    """Rows [field, op, tools, base TS, variant TS, ΔTS pp, 95% CI, ΔTC pp] in taxonomy order."""
    order = {c: i for i, c in enumerate(CODES)}
    frame = rows.sort_values("field", key=lambda s: s.map(order))
    out = []
    for r in frame.itertuples(index=False):
        ci = "–" if _pp(r.ci_low) == "–" else f"[{_pp(r.ci_low)}, {_pp(r.ci_high)}]"
        label = r.field if r.operation != "add" else f"+{r.field}"
        out.append(
            [
                label,
                r.operation,
                str(r.n_tools),
                _pct(r.base_ts),
                _pct(r.variant_ts),
                _pp(r.delta_pp),
                ci,
                _pp(getattr(r, "delta_tc_pp", None)),
            ]
        )
    return out


HEADER = ["field", "op", "tools", "TS orig", "TS variant", "ΔTS pp", "95% CI", "ΔTC pp"]


def markdown(rows: pd.DataFrame) -> str:
    body = impact_table(rows)
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join(["---"] * 2 + ["---:"] * 6) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines)


def text(rows: pd.DataFrame) -> str:
    body = impact_table(rows)
    widths = [max(len(x[i]) for x in [HEADER, *body]) for i in range(len(HEADER))]
    fmt = [str.ljust, str.ljust] + [str.rjust] * 6
    lines = ["  ".join(f(h, w) for f, h, w in zip(fmt, HEADER, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(f(c, w) for f, c, w in zip(fmt, r, widths, strict=True)).rstrip() for r in body]
    return "\n".join(lines)


def _measured(rows: pd.DataFrame) -> int:
    """Paired episodes behind a study's table: tasks × repeats (the larger, the narrower its intervals)."""
    try:
        d = json.loads(rows["detail"].iloc[0]) if isinstance(rows["detail"].iloc[0], str) else {}
    except (ValueError, TypeError, KeyError):
        d = {}
    return int(d.get("n_tasks") or 0) * int(rows["repeats"].max() or 0)


def current_studies(rows: pd.DataFrame) -> tuple[list[pd.DataFrame], list[str]]:
    """Per cell (benchmark, domain, model, paradigm), the study measured on the most episodes; others' ids.

    A cell re-measured at a larger size keeps its smaller study in the
    warehouse; the results show the larger one and name the other.
    """
    if rows.empty:
        return [], []
    shown, older = [], []
    for _, cell in rows.groupby(["benchmark", "domain", "model", "paradigm"], sort=True):
        studies = [g for _, g in cell.groupby("study_id", sort=False)]
        studies.sort(key=lambda g: (_measured(g), g["created_at"].max()), reverse=True)
        shown.append(studies[0])
        older += [str(g["study_id"].iloc[0]) for g in studies[1:]]
    return shown, older


def title(rows: pd.DataFrame) -> str:
    r = rows.iloc[0]
    extra = ""
    try:
        d = json.loads(r["detail"]) if isinstance(r.get("detail"), str) else {}
        extra = f", {d.get('n_tasks')} tasks, T={d.get('temperature')}"
    except (ValueError, TypeError):
        pass
    reps = int(rows["repeats"].max())
    return f"{r['benchmark']}/{r['domain']} · {r['model']} · {r['paradigm']} · up to {reps} repeats{extra}"

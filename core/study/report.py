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


def measured(rows: pd.DataFrame) -> int:
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
        studies.sort(key=lambda g: (measured(g), g["created_at"].max()), reverse=True)
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


def _ci_text(r) -> str:
    return "–" if _pp(r.ci_low) == "–" else f"{_pp(r.delta_pp)} [{_pp(r.ci_low)}, {_pp(r.ci_high)}]"


def _sign(r) -> int:
    """+1 / -1 when the interval excludes zero on that side, 0 otherwise."""
    if r.ci_low is None or r.ci_high is None or math.isnan(r.ci_low) or math.isnan(r.ci_high):
        return 0
    return 1 if r.ci_low > 0 else -1 if r.ci_high < 0 else 0


def backbone_frames(shown: list[pd.DataFrame]) -> list[tuple[str, pd.DataFrame]]:
    """Per (benchmark, domain, paradigm) measured on several backbones: ΔTS per field side by side.

    `flip` marks a field whose effect has opposite signs on two backbones with
    both intervals excluding zero ("flips"), or opposite point estimates
    without that ("opposite, n.s.").
    """
    if not shown:
        return []
    rows = pd.concat(shown, ignore_index=True)
    rows = rows[rows["operation"].isin(["add", "remove"])]
    out = []
    order = {c: i for i, c in enumerate(CODES)}
    for (bench, domain, paradigm), cell in rows.groupby(["benchmark", "domain", "paradigm"], sort=True):
        models = sorted(cell["model"].unique())
        if len(models) < 2:
            continue
        table = []
        for code in sorted(cell["field"].unique(), key=lambda c: order.get(c, 99)):
            per = {m: cell[(cell["field"] == code) & (cell["model"] == m)] for m in models}
            line = {"field": code}
            signs, points = [], []
            for m in models:
                if per[m].empty:
                    line[m] = "–"
                    continue
                r = per[m].iloc[0]
                line[m] = ("+" if r.operation == "add" else "−") + " " + _ci_text(r)
                signs.append(_sign(r))
                points.append(r.delta_pp if r.delta_pp is not None and not math.isnan(r.delta_pp) else 0.0)
            if 1 in signs and -1 in signs:
                line["flip"] = "flips"
            elif points and max(points) > 0 > min(points):
                line["flip"] = "opposite, n.s."
            else:
                line["flip"] = ""
            table.append(line)
        out.append((f"{bench}/{domain} · {paradigm}", pd.DataFrame(table)))
    return out


def latest_impacts(warehouse, study_id: str | None = None) -> pd.DataFrame:
    """The current row per (study, field): see `core.warehouse.reads.current_field_impacts`.

    Here rather than in core.study.fields so the dashboard reads stored studies without importing the
    study runner (agents, benchmarks, scipy)."""
    from core.warehouse.reads import current_field_impacts

    return current_field_impacts(warehouse, study_id=study_id)

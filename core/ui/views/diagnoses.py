"""Diagnoses & plans: why each failed trace failed, which fields are implicated, what the optimizer planned.

Per optimization run: a heatmap of implicated fields across tools, then for one
tool and iteration the failed traces with their diagnosis, the merged
operation plan with its reasons, the candidate it produced, and the domain's
three memories with what changed since the previous iteration.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from core.fields import BY_CODE, CODES
from core.ui import actions, charts, chartview, docedit
from core.ui import components as ui
from core.ui.queries import diagnoses as q
from core.ui.queries import json_value
from core.ui.state import current_path, refresh, reviewer_name, wh
from core.ui.urlstate import UrlState

URL = UrlState(
    "diagnoses", {"run": "dg_run", "tool": "dg_tool", "iteration": "dg_iter"}, {"iteration": "all"}
)

# the page's views, one tab each (labels that do not name the tool: the open tab stays when it changes)
VIEWS = (
    "Failed traces",
    "Failed traces as a table",
    "Fields across tools",
    "Operation plan",
    "Candidate docs and their validation",
    "Memories",
)
MEMORY_KINDS = {
    "diagnosis": "Diagnosis memory — failure patterns",
    "planning": "Planning memory — effective and harmful operations",
    "generation": "Generation memory — editing experience and regressions",
}


def _loads(value: Any) -> Any:
    """A JSON column as Python; text that is not JSON stays as it is."""
    return json_value(value, value)


def memory_items(content: Any) -> list[str]:
    """Flatten a memory's JSON content into readable items (lists, dicts of lists, text)."""
    content = _loads(content)
    if content is None:
        return []
    if isinstance(content, str):
        return [line.strip() for line in content.splitlines() if line.strip()]
    if isinstance(content, dict):
        items = []
        for k, v in content.items():
            sub = memory_items(v) if isinstance(v, list | dict) else [str(v)]
            items += [f"{k}: {s}" for s in sub]
        return items
    if isinstance(content, list):
        out = []
        for item in content:
            if isinstance(item, dict):
                out.append(" · ".join(f"{k}: {v}" for k, v in item.items()))
            else:
                out.append(str(item))
        return out
    return [str(content)]


def operations(value: Any) -> pd.DataFrame:
    ops = _loads(value)
    if isinstance(ops, dict):
        ops = ops.get("operations", [ops])
    if not isinstance(ops, list):
        return pd.DataFrame()
    rows = []
    for o in ops:
        o = dict(o) if isinstance(o, dict) else {"operation": str(o)}
        if isinstance(o.get("support"), list):
            o["support"] = len(o["support"])  # episode ids behind the operation -> how many traces
        if "content" in o:
            text = docedit.format_value(o["content"]) if o["content"] is not None else ""
            o["content"] = text if len(text) <= 160 else text[:157] + "…"
        rows.append(o)
    df = pd.DataFrame(rows)
    for col in ("op", "operation"):
        if col in df.columns:
            df = df.rename(columns={col: "Operation"})
            break
    if "field" in df.columns:
        df["field"] = df["field"].map(lambda c: ui.field_label(str(c)) if str(c) in BY_CODE else c)
    first = [c for c in ("Operation", "field", "target", "reason", "support") if c in df.columns]
    df = df[first + [c for c in df.columns if c not in first]]
    return df.rename(columns={c: c.replace("_", " ").capitalize() for c in df.columns})


def heatmap(path: str, run_id: str, iteration: int | None) -> None:
    counts = q.field_counts(path, run_id, iteration)
    if counts.empty:
        st.caption("No implicated field in this selection.")
        return
    matrix = counts.pivot_table(index="tool", columns="field", values="n", aggfunc="sum", fill_value=0)
    matrix = matrix.reindex(columns=[c for c in CODES if c in matrix.columns])
    chartview.draw(
        charts.heatmap, matrix, "Implicated documentation field", "Tool", "Diagnoses", key="diag_heatmap"
    )


def _set_verdict(diagnosis_id: str, run_id: str, tool: str, verdict: str) -> None:
    note = st.session_state.get(f"dg_note_{diagnosis_id}", "") or ""
    if verdict == "note" and not note.strip():
        st.session_state["dg_flash"] = "Write the note first."
        return
    actions.record_verdict(wh(), diagnosis_id, run_id, tool, verdict, reviewer_name(), note)  # type: ignore[arg-type]
    refresh()
    st.session_state["dg_flash"] = f"Recorded: {verdict}" + (f" — {note.strip()}" if note.strip() else "")


def _plan_lines(value: Any) -> list[str]:
    ops = _loads(value)
    if isinstance(ops, dict):
        ops = ops.get("operations", [ops])
    out = []
    for o in ops if isinstance(ops, list) else []:
        if isinstance(o, dict):
            op = o.get("op") or o.get("operation") or "?"
            fld = o.get("field") or ""
            reason = o.get("reason") or ""
            out.append(
                f"**{str(op).capitalize()}** {ui.field_label(fld) if fld in BY_CODE else fld}"
                + (f" — {reason}" if reason else "")
            )
    return out


CARDS_PER_PAGE = 4


def trace_cards(path: str, run_id: str, tool: str, iteration: int | None, first: str | None = None) -> None:
    """Each failed trace as a card: implicated fields, the evidence quoted, the operations planned from
    it, the candidate they produced, and the analyst's verdict (agree / disagree / note).

    A few cards per page, with a pager below them: a card is a dozen elements and four widgets the
    browser lays out on every visit, and an analyst reads them one at a time; every failed trace stays
    reachable (the pager, and the table view with all of them at once).

    `first`: an episode whose card leads (the trace the analyst came from)."""
    df = q.diagnoses_of(path, run_id, tool, iteration)
    if first and not df.empty:
        df = pd.concat([df[df["episode_id"] == first], df[df["episode_id"] != first]])
    if df.empty:
        st.caption("No diagnosis for this tool in this selection.")
        return
    if "dg_flash" in st.session_state:
        st.toast(st.session_state.pop("dg_flash"), icon=":material/check_circle:")
    plans = q.plans_of(path, run_id, tool)
    plans = plans[(plans["scope"] == "trace") & plans["diagnosis_id"].notna()]
    planned = {r.diagnosis_id: r.operations for r in plans.itertuples()}  # diagnosis → its planned operations
    cands = q.candidates_of(path, run_id, tool)
    candidate = {int(r.iteration): r.doc_id for r in cands.itertuples()}
    n_pages = -(-len(df) // CARDS_PER_PAGE)
    pager = _pager(run_id, tool, iteration)
    page = min(int(st.session_state.get(pager) or 1), n_pages)
    start = (page - 1) * CARDS_PER_PAGE
    for r in df.iloc[start : start + CARDS_PER_PAGE].itertuples():
        with st.container(border=True):
            _card(r, run_id, tool, first, planned, candidate)
    c = st.columns([3, 2], vertical_alignment="center")
    c[0].caption(
        f"Failed traces {start + 1}–{min(start + CARDS_PER_PAGE, len(df))} of {len(df)}"
        + (" · all of them side by side in *Failed traces as a table*" if n_pages > 1 else "")
    )
    if n_pages > 1:
        with c[1]:
            st.pagination(n_pages, key=pager, max_visible_pages=5)


def _pager(run_id: str, tool: str, iteration: int | None) -> str:
    """The cards' pager key: another selection starts on its first page."""
    return f"dg_cards_{run_id}_{tool}_{iteration}"


def _card(r: Any, run_id: str, tool: str, first: str | None, planned: dict, candidate: dict) -> None:
    """One failed trace; the texts of a card are a few elements, not one per line (each is laid out)."""
    verdict = r.verdict if isinstance(r.verdict, str) else None
    mark = {"agree": ":green-badge[analyst agrees]", "disagree": ":red-badge[analyst disagrees]"}.get(
        verdict or "", ""
    )
    cause = "documentation" if r.doc_related else "not documentation"
    if r.episode_id == first:
        mark = f":blue-badge[the trace you came from] {mark}"
    fields = list(r.fields) if r.fields is not None else []
    st.markdown(
        f"**{r.task_id or r.episode_id[:8]}** · iteration {r.iteration} · `{r.failure_class}` · {cause} {mark}"
        + "  \nImplicated fields: "
        + (", ".join(f"**{ui.field_label(f)}**" for f in fields) if fields else "none")
    )
    context = [t for t in (r.query, f"Mismatch: {r.mismatch}" if _text(r.mismatch) else "") if _text(t)]
    if context:
        st.caption("  \n".join(context))
    if _text(r.evidence):
        st.text(f"“{r.evidence}”", width="stretch")  # quoted as recorded, never parsed as Markdown
    doc = candidate.get(int(r.iteration))
    links = f"[open the trace]({ui.link('traces', episode=r.episode_id)})"
    if doc:
        links += (
            f" · [candidate of iteration {r.iteration}: diff & review]({ui.link('review', tool=tool, b=doc)})"
        )
    lines = _plan_lines(planned.get(r.diagnosis_id))
    st.markdown(("Planned: " + " · ".join(lines) + "  \n" if lines else "") + links)
    if _text(r.verdict_note):
        st.caption(f"Note by {r.verdict_by}: {r.verdict_note}")
    c = st.columns([1, 1, 3, 1], vertical_alignment="bottom")
    key = r.diagnosis_id
    c[0].button("Agree", key=f"dg_agree_{key}", icon=":material/thumb_up:", width="stretch",
                on_click=_set_verdict, args=(key, run_id, tool, "agree"))  # fmt: skip
    c[1].button("Disagree", key=f"dg_disagree_{key}", icon=":material/thumb_down:", width="stretch",
                on_click=_set_verdict, args=(key, run_id, tool, "disagree"))  # fmt: skip
    # a note being written is kept while the analyst pages through other cards
    c[2].text_input("Note", key=f"dg_note_{key}", placeholder="why (kept with the verdict)",
                    label_visibility="collapsed", persist_state="page")  # fmt: skip
    c[3].button("Save note", key=f"dg_savenote_{key}", width="stretch",
                on_click=_set_verdict, args=(key, run_id, tool, "note"))  # fmt: skip


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def diagnoses_table(path: str, run_id: str, tool: str, iteration: int | None) -> None:
    df = q.diagnoses_of(path, run_id, tool, iteration)
    if df.empty:
        st.caption("No failed trace was diagnosed for this tool in this iteration.")
        return
    view = df.assign(
        fields=df["fields"].map(lambda f: list(f) if f is not None else []),
        trace=df["episode_id"].map(lambda e: ui.link("traces", episode=e)),
        kind=df["doc_related"].map({True: "documentation", False: "not documentation"}),
    )
    st.dataframe(
        view,
        hide_index=True,
        column_order=(
            "iteration",
            "task_id",
            "failure_class",
            "kind",
            "fields",
            "mismatch",
            "evidence",
            "trace",
        ),
        column_config={
            "iteration": st.column_config.NumberColumn("Iter.", width=50),
            "task_id": "Task",
            "failure_class": "Failure class",
            "kind": st.column_config.TextColumn("Cause", width=90),
            "fields": st.column_config.ListColumn("Implicated fields", width=180),
            "mismatch": st.column_config.TextColumn("Behaviour mismatch", width=200),
            "evidence": st.column_config.TextColumn("Evidence", width=200),
            "trace": st.column_config.LinkColumn("Trace", display_text="open"),
        },
    )
    share = df["doc_related"].mean()
    st.caption(f"{len(df)} diagnoses · {ui.pct(share, 0)} attributed to the documentation")


def plan_view(path: str, run_id: str, tool: str, iteration: int | None) -> None:
    plans = q.plans_of(path, run_id, tool)
    if plans.empty:
        st.caption("No plan recorded.")
        return
    merged = plans[plans["scope"] == "merged"]
    its = sorted(merged["iteration"].unique()) if not merged.empty else sorted(plans["iteration"].unique())
    shown = [iteration] if iteration is not None and iteration in its else its
    if len(shown) == 1:
        _plan_of_iteration(plans, merged, shown[0])
        return
    # one iteration's plan at a time (lazy tabs, the newest first): each table costs the browser its
    # drawing, and an analyst compares plans by switching tabs
    newest_first = list(reversed(shown))
    tabs = st.tabs(
        [f"Iteration {it}" for it in newest_first], key=f"dg_plan_tab_{run_id}_{tool}", on_change="rerun"
    )
    for tab, it in zip(tabs, newest_first, strict=True):
        if tab.open:
            with tab:
                _plan_of_iteration(plans, merged, it)


def _plan_of_iteration(plans: pd.DataFrame, merged: pd.DataFrame, it: int) -> None:
    """One iteration's merged plan (or its per-trace plans when none was merged)."""
    rows = merged[merged["iteration"] == it] if not merged.empty else plans[plans["iteration"] == it]
    n_trace = int(((plans["scope"] == "trace") & (plans["iteration"] == it)).sum())
    st.markdown(
        f"**Iteration {it}** — merged plan" + (f" (from {n_trace} per-trace plans)" if n_trace else "")
    )
    for value in rows["operations"]:
        ops = operations(value)
        if ops.empty:
            st.caption("Empty plan.")
        else:
            st.dataframe(
                ops,
                hide_index=True,
                column_config={  # long texts get a fixed width (the full text on hover)
                    "Reason": st.column_config.TextColumn("Reason", width=300),
                    "Content": st.column_config.TextColumn("Content", width=300),
                },
            )


def candidates_view(path: str, run_id: str, tool: str) -> None:
    cands = q.candidates_of(path, run_id, tool)
    if cands.empty:
        st.caption("No candidate doc yet.")
    else:
        view = cands.assign(
            version=cands["doc_id"].str[:8],
            review=cands["doc_id"].map(lambda d: ui.link("review", tool=tool, b=d)),
            regressions=cands["regressions"].map(lambda r: len(_loads(r) or [])),
        )
        st.dataframe(
            view,
            hide_index=True,
            column_order=(
                "iteration",
                "version",
                "val_ts",
                "base_val_ts",
                "accepted",
                "regressions",
                "tokens",
                "review",
            ),
            column_config={
                "iteration": "Iteration",
                "version": "Version",
                "val_ts": st.column_config.ProgressColumn(
                    "Validation TS", min_value=0.0, max_value=1.0, format="percent"
                ),
                "base_val_ts": st.column_config.NumberColumn("TS original", format="percent"),
                "accepted": st.column_config.CheckboxColumn("Accepted"),
                "regressions": "Regressions",
                "tokens": "Tokens",
                "review": st.column_config.LinkColumn("Review", display_text="diff & review"),
            },
        )


def memories(path: str, run_id: str, domain: str | None, iteration: int | None) -> None:
    mem = q.memories_of(path, run_id, domain)
    if mem.empty:
        st.caption(
            f"No memory recorded for domain {domain or 'all'} (memory may be switched off for this run)."
        )
        return
    its = sorted(mem["iteration"].unique())
    it = iteration if iteration in its else its[-1]
    st.caption(f"Domain **{domain or 'all'}** · iteration {it}, marked against the iteration before it")
    cols = st.columns(3)
    for col, (kind, title) in zip(cols, MEMORY_KINDS.items(), strict=True):
        with col:
            st.markdown(f"**{title}**")
            rows = mem[mem["kind"] == kind]
            now = [x for c in rows[rows["iteration"] == it]["content"] for x in memory_items(c)]
            prev_its = [i for i in its if i < it]
            before = (
                [x for c in rows[rows["iteration"] == prev_its[-1]]["content"] for x in memory_items(c)]
                if prev_its
                else []
            )
            now_u, before_u = list(dict.fromkeys(now)), set(before)
            items = [{"change": "new" if x not in before_u else "", "entry": x} for x in now_u]
            items += [{"change": "dropped", "entry": x} for x in dict.fromkeys(before) if x not in set(now_u)]
            if not items:
                st.caption("empty")
                continue
            st.dataframe(
                pd.DataFrame(items),
                hide_index=True,
                column_config={
                    "change": st.column_config.TextColumn("", width=60),
                    "entry": st.column_config.TextColumn(f"Iteration {it}"),
                },
            )


def render() -> None:
    ui.header(
        "Diagnoses & plans",
        "Field-level diagnoses of failed traces, the operations planned from them, and the optimizer's memories.",
    )
    path = current_path()
    runs = q.runs_with_diagnoses(path)
    if runs.empty:
        ui.empty(
            "No diagnosis yet.",
            "Run the optimizer (`docschisel optimize ...`) or the evidence-engine diagnosis on imported traces.",
        )
        return
    labels = {
        r.run_id: f"{r.label} · {r.benchmark or ''} · {int(r.diagnoses)} diagnoses" for r in runs.itertuples()
    }
    c = st.columns([3, 2, 1])
    URL.pull()
    URL.ensure("run", labels, next(iter(labels)))
    run_id = c[0].selectbox("Optimization run", list(labels), format_func=labels.get, key=URL.keys["run"])
    tools = q.tools_of_run(path, run_id)
    tool_labels = {r.tool: f"{r.tool} · {int(r.diagnoses)} diagnoses" for r in tools.itertuples()}
    URL.ensure("tool", tool_labels, next(iter(tool_labels)))
    tool = c[1].selectbox("Tool", list(tool_labels), format_func=tool_labels.get, key=URL.keys["tool"])
    n_it = int(tools["iterations"].max() or 1)
    it_options = ["all", *[str(i) for i in range(1, n_it + 1)]]
    URL.ensure("iteration", it_options, "all")
    it_value = c[2].selectbox(
        "Iteration", it_options, key=URL.keys["iteration"], format_func=lambda v: "All" if v == "all" else v
    )
    URL.push()
    iteration = None if it_value == "all" else int(it_value)

    domain = tools.set_index("tool").loc[tool, "domain"] if tool in set(tools["tool"]) else None
    domain = domain if isinstance(domain, str) else None
    # One row of lazy tabs: only the open view is built and sent. The cards come first; the same traces
    # as a table, the fields across tools, the plan, the candidates and the memories are each a chart or
    # tables the browser would otherwise lay out on every visit, and an analyst reads one at a time.
    first = st.query_params.get("episode")
    if first and first != st.session_state.get("dg_came_from"):  # a trace's link: its card, on page 1
        st.session_state["dg_came_from"] = first
        st.session_state["dg_tab"] = VIEWS[0]
        st.session_state.pop(_pager(run_id, tool, iteration), None)
    tabs = st.tabs(list(VIEWS), key="dg_tab", on_change="rerun")
    views = (
        lambda: trace_cards(path, run_id, tool, iteration, first=first),
        lambda: diagnoses_table(path, run_id, tool, iteration),
        lambda: heatmap(path, run_id, iteration),
        lambda: plan_view(path, run_id, tool, iteration),
        lambda: candidates_view(path, run_id, tool),
        lambda: memories(path, run_id, domain, iteration),
    )
    for tab, view in zip(tabs, views, strict=True):
        if tab.open:
            with tab:
                view()

"""Traces: filter episodes, step through them, read each one next to its ground truth.

Filters mirror URL query parameters (core/ui/urlstate.py), so a filtered view
is a link that can be shared, survives a reload, and stays put while the
analyst steps to the previous or next trace. The open trace is the `episode`
parameter.
"""

from __future__ import annotations

import functools
from typing import Any

import streamlit as st

from core.ui import components as ui
from core.ui import timeline as tl
from core.ui.callmatch import CallCheck, match_calls, render_call
from core.ui.queries import traces as q
from core.ui.state import current_path
from core.ui.urlstate import UrlState

PAGE_SIZE = 25
# The table fits 1280–1440 px with these; the others are one click away in the column picker.
COLUMNS = {
    "outcome": "Outcome", "task_id": "Task", "query": "Query", "domain": "Domain", "model": "Model",
    "tools": "Tool choice", "error_class": "Failure class", "n_steps": "Steps", "tokens": "Tokens",
    "latency_s": "Latency",
}  # fmt: skip
DEFAULT_COLUMNS = ["outcome", "task_id", "query", "tools", "error_class", "n_steps"]
PARAMS = ("q", "outcome", "failure", "benchmark", "domain", "tool", "model", "split", "run", "docset", "doc")
URL = UrlState("traces", {p: f"tr_{p}" for p in PARAMS}, {"outcome": "all"})


def current_filter() -> q.TraceFilter:
    def get(param: str, default: str = "") -> str:
        return st.session_state.get(URL.keys[param]) or default

    return q.TraceFilter(
        benchmark=get("benchmark"),
        domain=get("domain"),
        tool=get("tool"),
        model=get("model"),
        run=get("run"),
        docset=get("docset"),
        doc=get("doc"),
        split=get("split"),
        outcome=get("outcome", "all"),
        failure=get("failure"),
        search=get("q"),
    )


def _open(episode_id: str | None) -> None:
    """Open a trace (in the URL, and remembered for when the analyst comes back to the page)."""
    if episode_id:
        st.query_params["episode"] = episode_id
        st.session_state["trace_last"] = episode_id
    else:
        st.query_params.pop("episode", None)
        st.session_state.pop("trace_last", None)


def _step(delta: int) -> None:
    f = current_filter()
    path = current_path()
    current = st.query_params.get("episode")
    pos = q.trace_position(path, f, current) if current else None
    new = 0 if pos is None else pos + delta
    target = q.trace_at(path, f, new)
    if target:
        _open(target)
        st.session_state["trace_page"] = new // PAGE_SIZE + 1


def _on_filter_change() -> None:
    """New filters: back to the first page, and open the first matching trace."""
    st.session_state["trace_page"] = 1
    _open(None)


def _on_select(key: str, ids: list[str]) -> None:
    rows = st.session_state[key].selection.rows
    if rows:
        _open(ids[rows[0]])


def _clear_filters() -> None:
    for param in PARAMS:
        URL.set(param, URL.default(param))
    _on_filter_change()


def _select(label: str, param: str, options: list[str], labels: dict[str, str] | None = None) -> None:
    labels = labels or {}
    st.selectbox(
        label,
        ["", *options],
        key=URL.keys[param],
        format_func=lambda v: "Any" if v == "" else labels.get(v, v),
        on_change=_on_filter_change,
        persist_state="session",
    )


def filters(opts: dict[str, Any]) -> None:
    with st.container(border=True):
        c = st.columns([3, 2, 2])
        c[0].text_input(
            "Search task queries",
            key=URL.keys["q"],
            placeholder="words that must all appear, e.g. email budget",
            on_change=_on_filter_change,
            persist_state="session",
        )
        c[1].segmented_control(
            "Outcome",
            list(q.OUTCOMES),
            key=URL.keys["outcome"],
            required=True,
            format_func=str.capitalize,
            on_change=_on_filter_change,
            persist_state="session",
        )
        with c[2]:
            _select("Failure class", "failure", opts["failure"])
        c = st.columns(5)
        with c[0]:
            _select("Benchmark", "benchmark", opts["benchmark"])
        with c[1]:
            _select("Domain", "domain", opts["domain"])
        with c[2]:
            _select("Tool (in ground truth)", "tool", opts["tool"])
        with c[3]:
            _select("Model", "model", opts["model"])
        with c[4]:
            _select("Split", "split", opts["split"])
        c = st.columns([2, 2, 2, 1], vertical_alignment="bottom")
        with c[0]:
            _select("Run", "run", list(opts["run"]), opts["run"])
        with c[1]:
            _select("Doc set", "docset", list(opts["docset"]), opts["docset"])
        with c[2]:
            tool = st.session_state.get(URL.keys["tool"])
            versions = q.doc_versions_of_tool(current_path(), tool) if tool else {}
            _select("Doc version of the tool", "doc", list(versions), versions)
        c[3].button(
            "Clear filters", icon=":material/filter_alt_off:", on_click=_clear_filters, width="stretch"
        )


def trace_list(f: q.TraceFilter, path: str) -> tuple[int, str | None]:
    """The filtered table; returns (total, selected episode id)."""
    page = int(st.session_state.get("trace_page") or 1)
    total, df = q.trace_page(path, f, (page - 1) * PAGE_SIZE, PAGE_SIZE)
    if total == 0:
        ui.empty("No trace matches these filters.", "Clear a filter or widen the search.")
        return 0, None
    n_pages = max(1, -(-total // PAGE_SIZE))
    if page > n_pages:
        st.session_state["trace_page"] = page = 1
        total, df = q.trace_page(path, f, 0, PAGE_SIZE)
    ids = list(df["episode_id"])
    current = st.query_params.get("episode")
    # A table's selection cannot be set from code, so it is keyed by the open trace: after Next (or a
    # deep link) no stale row stays selected, and the ▶ column marks the trace that is open.
    key = f"trace_table_{page}_{abs(hash(f)) % 10**8}_{(current or '')[:12]}"
    view = ui.dashes(df, ["query", "domain", "model"]).assign(
        open=["▶" if i == current else "" for i in ids],
        outcome=df["success"].map({True: "success", False: "failed"}),
        tools=df["tool_correct"].map({True: "right tools", False: "wrong tools"}),
        error_class=df["error_class"].fillna("–"),
    )
    shown = [c for c in COLUMNS if c in (st.session_state.get("tr_columns") or DEFAULT_COLUMNS)]
    st.dataframe(
        view.style.map(ui.style_outcome, subset=["outcome", "tools"]),
        key=key,
        on_select=functools.partial(_on_select, key, ids),
        selection_mode="single-row",
        hide_index=True,
        height=min(38 + 35 * len(view), 420),
        column_order=("open", *shown),
        column_config={
            "open": st.column_config.TextColumn("", width=28, help="the open trace"),
            "outcome": st.column_config.TextColumn("Outcome", width="small"),
            "task_id": st.column_config.TextColumn("Task", width="medium"),
            "query": st.column_config.TextColumn("Query", width="large"),
            "domain": "Domain",
            "model": "Model",
            "tools": st.column_config.TextColumn("Tool choice", width="small"),
            "error_class": "Failure class",
            "n_steps": st.column_config.NumberColumn("Steps", width="small"),
            "tokens": st.column_config.NumberColumn("Tokens", format="compact"),
            "latency_s": st.column_config.NumberColumn("Latency", format="%.1f s"),
        },
    )
    c = st.columns([3, 1, 2], vertical_alignment="center")
    with c[1].popover("Columns", icon=":material/view_column:"):
        st.multiselect(
            "Columns", list(COLUMNS), DEFAULT_COLUMNS, format_func=COLUMNS.get, key="tr_columns",
            label_visibility="collapsed",
        )  # fmt: skip
    c[0].caption(
        ("1 trace matches" if total == 1 else f"{total:,} traces match")
        + f" · page {page} of {n_pages:,} · click a row to open it"
        + (f" · filters: {', '.join(f'{k}={v}' for k, v in f.active().items())}" if f.active() else "")
    )
    with c[2]:
        st.pagination(n_pages, key="trace_page", max_visible_pages=5)
    return total, st.query_params.get("episode")


def step_nav(f: q.TraceFilter, path: str, total: int, episode_id: str) -> None:
    pos = q.trace_position(path, f, episode_id)
    c = st.columns([1, 2, 1, 3], vertical_alignment="center")
    c[0].button(
        "Previous",
        icon=":material/chevron_left:",
        on_click=_step,
        args=(-1,),
        disabled=pos is not None and pos <= 0,
        key="prev_trace",
        width="stretch",
    )
    c[1].markdown(
        f"**Trace {pos + 1:,} of {total:,}**" if pos is not None else "*This trace is outside the filters*",
        text_alignment="center",
    )
    c[2].button(
        "Next",
        icon=":material/chevron_right:",
        icon_position="right",
        on_click=_step,
        args=(1,),
        disabled=pos is not None and pos + 1 >= total,
        key="next_trace",
        width="stretch",
    )
    params = {k: v for k, v in st.query_params.to_dict().items() if k != "episode"}
    c[3].markdown(
        f"[:material/link: Link to this trace]({ui.link('traces', **params, episode=episode_id)})",
        text_alignment="right",
    )


BADGES = {
    "match": ("matches ground truth", "green", ":material/check:"),
    "wrong_args": ("wrong arguments", "orange", ":material/rule:"),
    "error": ("error", "red", ":material/error:"),
    "unexpected": ("not in ground truth", "gray", ":material/info:"),
    "missing": ("never called", "red", ":material/block:"),
    "optional": ("not needed: an allowed look-up", "gray", ":material/info:"),
}


def _badge(check: CallCheck) -> None:
    label, color, icon = BADGES[check.status]
    if check.gold_index is not None and check.status not in ("missing", "optional"):
        label += f" · gold #{check.gold_index + 1}"
    st.badge(label, color=color, icon=icon)


def _long_text(text: str, limit: int = 600) -> None:
    if len(text) <= limit:
        ui.mono(text)
    else:
        ui.mono(text[:limit] + " …")
        with st.expander(f"Full text ({len(text):,} characters)"):
            ui.mono(text)


def step_timeline(detail: dict[str, Any]) -> None:
    """Model call → tool call → observation as rows with their start, latency and tokens."""
    rows = tl.timeline(detail["events"])
    if rows.empty:
        return
    longest = float(rows["latency_s"].max()) if rows["latency_s"].notna().any() else 0.0
    # lazy: the grid is built and sent only while the expander is open (a grid costs every reload)
    box = st.expander(f"Step timeline · {len(rows)} steps", key="tr_timeline", on_change="rerun")
    if not box.open:
        return
    with box:
        st.dataframe(
            rows,
            hide_index=True,
            column_config={
                "step": st.column_config.TextColumn("Step", width="medium"),
                "start_s": st.column_config.NumberColumn("Starts at", format="%.2f s"),
                "latency_s": st.column_config.ProgressColumn(
                    "Latency", format="%.2f s", min_value=0.0, max_value=longest or 1.0
                ),
                "tokens_in": st.column_config.NumberColumn("Tokens in", format="compact"),
                "tokens_out": st.column_config.NumberColumn("Tokens out", format="compact"),
                "result": st.column_config.TextColumn("Result", width="small"),
            },
        )


def steps(detail: dict[str, Any], show_model_calls: bool) -> None:
    events = detail["events"]
    tool_events = [e for e in events if e["kind"] == "tool_call"]
    checks, _ = match_calls(
        [{"tool": e["tool"], "args": e["args"] or {}, "error": e["error"]} for e in tool_events],
        detail["gold"],
    )
    check_of = {id(e): c for e, c in zip(tool_events, checks, strict=True)}
    if show_model_calls and not any(e["kind"] == "model_call" for e in events):
        st.caption("This trace recorded no model calls (an imported trace carries its tool spans only).")
    n = 0
    for step in tl.collapse(events, show_model_calls):
        e, kind = step.event, step.event["kind"]
        if kind == "model_call":
            st.caption(
                f":material/smart_toy: model call {e['text'] or ''} · {int(e['tokens_in'] or 0):,} → "
                f"{int(e['tokens_out'] or 0):,} tokens · {float(e['latency_s'] or 0):.1f} s"
                + (" · cached" if e["cache_hit"] else "")
            )
            out = ((e["payload"] or {}).get("message_out") or {}).get("content")
            if out:
                _long_text(str(out), 300)
            continue
        n += 1
        with st.container(border=True):
            if kind == "thought":
                st.markdown(f"**{n}. Thought** &nbsp; :material/psychology:")
                st.text(e["text"] or "", width="stretch")  # model text: never parsed as Markdown
            elif kind == "tool_call":
                check = check_of[id(e)]
                c = st.columns([2, 3], vertical_alignment="center")
                again = f" · :orange[× {step.repeats} identical calls]" if step.repeats > 1 else ""
                c[0].markdown(f"**{n}. Tool call** &nbsp; `{e['tool']}`{again}")
                with c[1]:
                    _badge(check)
                ui.mono(render_call(e["tool"] or "?", e["args"] or {}))
                for d in check.diffs:
                    st.markdown(f":orange[:material/arrow_right: {d.text()}]")
                if not tl.missing(e["error"]):
                    klass = e.get("error_class")
                    klass = f" `{klass}`" if not tl.missing(klass) else ""
                    st.markdown(f":red[**Error**]{klass} {e['error']}")
                if not tl.missing(e["output"]) and e["output"] != e["error"]:
                    st.caption("Observation")
                    _long_text(str(e["output"]))
            elif kind == "final_answer" and tl.looks_like_action(e["text"]):
                st.markdown(f"**{n}. Unparsed action** &nbsp; :material/code_off:")
                st.warning(
                    "The model wrote a tool call the agent could not read, so nothing was run.",
                    icon=":material/warning:",
                )
                st.text(e["text"], width="stretch")
            elif kind == "final_answer":
                st.markdown(f"**{n}. Final answer** &nbsp; :material/flag:")
                st.text(e["text"] or "(empty)", width="stretch")
            elif kind == "error":
                st.markdown(f"**{n}. Episode ended with an error** &nbsp; :material/report:")
                st.error(f"{e['text'] + ': ' if e['text'] else ''}{e['error'] or ''}")
    if n == 0:
        st.info("This episode recorded no steps.")


def failure_class(detail: dict[str, Any]) -> str:
    """The episode's failure class; a failed episode that ended on an unreadable call says so."""
    ep = detail["episode"]
    if not tl.missing(ep["error_class"]):
        return str(ep["error_class"])
    if not ep["success"] and any(
        e["kind"] == "final_answer" and tl.looks_like_action(e["text"]) for e in detail["events"]
    ):
        return "unparsed action"
    return "–"


def ground_truth(detail: dict[str, Any]) -> None:
    tool_events = [e for e in detail["events"] if e["kind"] == "tool_call"]
    _, gold_checks = match_calls(
        [{"tool": e["tool"], "args": e["args"] or {}, "error": e["error"]} for e in tool_events],
        detail["gold"],
        detail["score"].get("allowed_tools") or (),
    )
    st.markdown("##### Ground truth")
    if detail["score"].get("ground_truth") is False:  # an imported production trace
        st.caption(
            f"Production trace ({detail['score'].get('source', 'imported')}): no ground truth. Outcome from the "
            f"trace itself: {detail['score'].get('outcome', '–')}."
        )
        for f in detail["score"].get("feedback") or []:
            st.markdown(
                f"User feedback **{f.get('name')}** = {f.get('value')}"
                + (f" — {f['comment']}" if f.get("comment") else "")
            )
    elif not gold_checks:
        st.caption("This task expects no tool call.")
    for i, g in enumerate(gold_checks):
        with st.container(border=True):
            c = st.columns([1, 3], vertical_alignment="center")
            c[0].markdown(f"**#{i + 1}**")
            with c[1]:
                label, color, icon = BADGES[g.status]
                st.badge({"match": "made", "unexpected": "made"}.get(g.status, label), color=color, icon=icon)
            ui.mono(render_call(g.tool, g.args))
    labels = {k: v for k, v in detail["score"].items() if isinstance(v, bool)}
    if labels:
        st.markdown("##### Scorer labels")
        st.markdown(
            " ".join(
                f":{'green' if v else 'gray'}-badge[{'✓' if v else '✗'} {k.replace('_', ' ')}]"
                for k, v in labels.items()
            )
        )
    diags = detail["diagnoses"]
    if not diags.empty:
        st.markdown("##### Diagnoses")
        for d in diags.to_dict("records"):
            with st.container(border=True):
                fields = ", ".join(
                    ui.field_label(c) for c in (d["fields"] if d["fields"] is not None else [])
                )
                st.markdown(
                    f"**{d['failure_class']}** · iteration {d['iteration']} · "
                    + ("documentation-related" if d["doc_related"] else "not a documentation failure")
                )
                st.caption(f"Evidence: {d['evidence']}")
                st.caption(f"Mismatch: {d['mismatch']}")
                if fields:
                    st.markdown(f"Implicated fields: {fields}")
                if isinstance(d.get("run_id"), str) and isinstance(d.get("tool"), str):
                    where = ui.link(
                        "diagnoses",
                        run=d["run_id"],
                        tool=d["tool"],
                        iteration=int(d["iteration"]),
                        episode=detail["episode"]["episode_id"],
                    )  # the Diagnoses page shows this trace's card first, with its plan and candidate
                    st.markdown(
                        f"[:material/troubleshoot: Its diagnosis, planned operations and candidate]({where})"
                    )


def episode_view(detail: dict[str, Any]) -> None:
    ep = detail["episode"]
    st.subheader(f"{ep['task_id']}")
    st.markdown(f"> {detail['query'] or '*(task query not in the warehouse)*'}")
    m = st.columns(6)
    m[0].metric("Outcome", "Success" if ep["success"] else "Failed", border=True)
    m[1].metric("Tool choice", "Correct" if ep["tool_correct"] else "Wrong", border=True)
    drawn = sum(1 for e in detail["events"] if e["kind"] not in ("model_call",))
    m[2].metric("Steps", max(int(ep["n_steps"] or 0), drawn), border=True)
    tokens = int(ep["tokens_in"] or 0) + int(ep["tokens_out"] or 0)
    latency = float(ep["latency_s"] or 0)
    m[3].metric("Tokens", ui.number(tokens) if tokens else "–", border=True, help="– when not recorded")
    m[4].metric("Latency", f"{latency:.1f} s" if latency else "–", border=True, help="– when not recorded")
    m[5].metric("Failure class", failure_class(detail), border=True)
    st.caption(
        f"Model **{ep['model']}** · {ep['paradigm']} · run *{detail['run_label']}* · docs *{detail['docset_label']}*"
        f" · split {ep['split'] or '–'} · repeat {ep['repeat']} · source {ep['source']} · episode `{ep['episode_id']}`"
    )
    if ep["error"]:
        st.warning(f"Episode error: {ep['error']}", icon=":material/warning:")
    left, right = st.columns([3, 2], gap="large")
    with left:
        c = st.columns([2, 1], vertical_alignment="center")
        c[0].markdown("##### Steps")
        show = c[1].toggle("Show model calls", key="show_model_calls")
        step_timeline(detail)
        steps(detail, show)
    with right:
        ground_truth(detail)


def render() -> None:
    ui.header(
        "Traces", "Every recorded episode: filter, search, open one and compare it with the ground truth."
    )
    path = current_path()
    opts = q.filter_options(path)
    if not opts["benchmark"]:
        ui.empty(
            "No traces yet.",
            "Import the recorded WorkBench traces or run an evaluation to fill this page.",
            "data",
            "Import data",
        )
        return
    URL.pull(
        {
            "outcome": q.OUTCOMES,
            **{
                k: opts[k]
                for k in ("failure", "benchmark", "domain", "tool", "model", "split", "run", "docset")
            },
        }
    )
    filters(opts)
    URL.push()
    f = current_filter()
    last = st.session_state.get("trace_last")
    if not st.query_params.get("episode") and last and q.trace_position(path, f, last) is not None:
        st.query_params["episode"] = last  # back on the page: the trace that was open, not trace 1
        st.session_state["trace_page"] = q.trace_position(path, f, last) // PAGE_SIZE + 1
    total, episode_id = trace_list(f, path)
    if not episode_id and total:
        episode_id = q.trace_at(path, f, (int(st.session_state.get("trace_page") or 1) - 1) * PAGE_SIZE)
        if episode_id:
            st.query_params["episode"] = episode_id
    if not episode_id:
        return
    detail = q.episode_detail(path, episode_id)
    st.divider()
    if detail is None:
        st.error(f"Episode `{episode_id}` is not in this warehouse.")
        return
    step_nav(f, path, total, episode_id)
    episode_view(detail)

"""Doc review: compare any two versions field by field, decide, edit, and export the approved set.

The page state (tool, the two versions compared) lives in the URL, so a review
can be shared as a link. Every action appends to the audit trail; an edit is a
new version whose parent is the version edited.
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from core.docs import diff
from core.ui import actions, docedit
from core.ui import components as ui
from core.ui.queries import diagnoses as dg
from core.ui.queries import docs as q
from core.ui.state import current_path, refresh, reviewer_name, wh
from core.ui.urlstate import UrlState

URL = UrlState("review", {"tool": "rv_tool", "a": "rv_a", "b": "rv_b"})

# the tabs under the diff: what an analyst does with version B, and with the tool's approved versions
ACTIONS = ("Decide", "Edit", "Audit trail", "Export approved set")
CHANGE_STYLE = {
    "added": "background-color: #dafbe1; color: #116329",
    "removed": "background-color: #ffebe9; color: #82071e",
    "changed": "background-color: #fff8c5; color: #7d4e00",
}


def _version_label(v: pd.Series) -> str:
    parts = [f"{v['origin'] or 'doc'} · {v['doc_id'][:8]}"]
    if pd.notna(v.get("iteration")):
        parts.append(f"iteration {int(v['iteration'])}")
    if isinstance(v.get("decision"), str):
        parts.append({"approve": "approved", "reject": "rejected"}[v["decision"]])
    return " · ".join(parts)


def _defaults(vs: pd.DataFrame) -> tuple[str, str]:
    """Default comparison: the original (or oldest) against the newest non-original version."""
    originals = vs[vs["origin"] == "original"]
    before = (originals if not originals.empty else vs).iloc[0]["doc_id"]
    others = vs[vs["doc_id"] != before]
    after = others.iloc[-1]["doc_id"] if not others.empty else before
    return before, after


def pickers(path: str) -> tuple[str, str | None, pd.DataFrame, str, str] | None:
    tools = q.review_tools(path)
    if tools.empty:
        ui.empty(
            "No documentation in the warehouse yet.",
            "Import a benchmark (its original docs) or run the optimizer to get candidates to review.",
            "data",
            "Import data",
        )
        return None
    disputed = dg.disputed(path).set_index("tool")["disputed"].to_dict()
    labels = {
        r.tool: f"{r.tool} · {int(r.versions)} versions"
        + (f" · {int(r.pending)} to review" if r.pending else "")
        + (f" · {int(disputed[r.tool])} disputed diagnoses" if disputed.get(r.tool) else "")
        for r in tools.itertuples()
    }
    URL.pull()
    URL.ensure("tool", labels, next(iter(labels)))
    c = st.columns([2, 2, 2])
    tool = c[0].selectbox("Tool", list(labels), key=URL.keys["tool"], format_func=labels.get)
    vs = q.versions(path, tool)
    ids = list(vs["doc_id"])
    by_id = {r["doc_id"]: _version_label(r) for _, r in vs.iterrows()}
    before_default, after_default = _defaults(vs)
    for param, default in (("a", before_default), ("b", after_default)):
        pending = st.session_state.pop(f"pending_{param}", None)
        if pending in ids:
            URL.set(param, pending)
        URL.ensure(param, ids, default)
    before = c[1].selectbox("Compare version", ids, key=URL.keys["a"], format_func=by_id.get)
    after = c[2].selectbox("with version", ids, key=URL.keys["b"], format_func=by_id.get)
    URL.push()
    bench = tools.set_index("tool").loc[tool, "benchmark"]
    return tool, bench if isinstance(bench, str) else None, vs, before, after


def versions_table(vs: pd.DataFrame, before: str, after: str) -> None:
    view = vs.assign(
        version=vs["doc_id"].str[:8],
        shown=vs["doc_id"].map(lambda d: "◀ A" if d == before else ("B ▶" if d == after else "")),
        status=vs["decision"].map({"approve": "approved", "reject": "rejected"}).fillna(""),
        labels=vs["labels"].map(
            lambda x: list(x) if isinstance(x, list | tuple) or hasattr(x, "__len__") else []
        ),
    )
    order = (
        "shown",
        "version",
        "origin",
        "iteration",
        "created_at",
        "tokens",
        "n_fields",
        "val_ts",
        "base_val_ts",
        "accepted",
        "selected",
        "status",
        "labels",
    )
    empty_cols = {c for c in view.columns if c not in ("shown", "labels") and view[c].isna().all()}
    st.dataframe(
        view,
        hide_index=True,
        column_order=[c for c in order if c not in empty_cols],
        column_config={
            "shown": st.column_config.TextColumn("", width=50),
            "version": "Version",
            "origin": "Origin",
            "iteration": st.column_config.NumberColumn("Iter.", format="%d", width=50),
            "created_at": st.column_config.DatetimeColumn("Created", format="YYYY-MM-DD HH:mm"),
            "tokens": st.column_config.NumberColumn("Tokens"),
            "n_fields": st.column_config.NumberColumn("Fields"),
            "val_ts": st.column_config.ProgressColumn(
                "Validation TS", min_value=0.0, max_value=1.0, format="percent"
            ),
            "base_val_ts": st.column_config.NumberColumn("TS original", format="percent"),
            "accepted": st.column_config.CheckboxColumn("Accepted"),
            "selected": st.column_config.CheckboxColumn("Selected"),
            "status": "Review",
            "labels": st.column_config.ListColumn("Labels"),
        },
        height=min(38 + 35 * len(view), 280),
    )


def candidate_panel(path: str, doc_id: str) -> None:
    runs = q.candidate_runs(path, doc_id)
    if runs.empty:
        return
    r = runs.iloc[0]
    m = st.columns(4)
    delta = None if pd.isna(r["base_val_ts"]) else 100 * (r["val_ts"] - r["base_val_ts"])
    m[0].metric(
        "Validation TS", ui.pct(r["val_ts"]), None if delta is None else f"{delta:+.1f} pp", border=True
    )
    m[1].metric("TS with original doc", ui.pct(r["base_val_ts"]), border=True)
    m[2].metric("Optimization-set TS", ui.pct(r["opt_ts"]), border=True)
    m[3].metric("Accepted", "yes" if r["accepted"] else "no", border=True)
    st.caption(f"Candidate of iteration {int(r['iteration'])} in run *{r['run']}*")
    st.page_link(
        ui.PAGE_FILES["diagnoses"],
        label="The diagnoses and plan behind this candidate",
        icon=":material/troubleshoot:",
        query_params={
            "run": r["run_id"],
            "tool": q.doc(path, doc_id).tool,
            "iteration": str(int(r["iteration"])),
        },
    )
    regress = tuple(json.loads(r["regressions"] or "[]")) if isinstance(r["regressions"], str) else ()
    if regress:
        st.markdown(
            f"**Regression set** — {len(regress)} task(s) that passed with the original doc and fail now"
        )
        st.dataframe(
            q.tasks_by_id(path, tuple(str(t) for t in regress), r["benchmark"]),
            hide_index=True,
            column_config={
                "task_id": "Task",
                "domain": "Domain",
                "query": st.column_config.TextColumn("Query", width="large"),
            },
        )
    else:
        st.caption("No regression: every validation task that passed with the original doc still passes.")


def diff_view(path: str, before_id: str, after_id: str) -> None:
    before, after = q.doc(path, before_id), q.doc(path, after_id)
    changes = diff(before, after)
    st.markdown(f"##### Field-level diff · `{before_id[:8]}` → `{after_id[:8]}`")
    if not changes:
        st.info("The two versions document every field identically.")
    else:
        table = docedit.change_rows(changes)
        styled = table.style.map(lambda v: CHANGE_STYLE.get(v, ""), subset=["change"])
        st.dataframe(
            styled,
            hide_index=True,
            column_config={
                "code": st.column_config.TextColumn("Code", width=60),
                "field": "Field",
                "change": "Change",
                "before": st.column_config.TextColumn("Before", width="large"),
                "after": st.column_config.TextColumn("After", width="large"),
            },
        )
        text_changes = [c for c in changes if c.kind == "changed" and isinstance(c.before, str)]
        if text_changes:  # one element for all of them: each element is laid out on its own
            st.markdown(
                "\n\n".join(
                    f"**{ui.field_label(c.code)}** &nbsp; {docedit.inline_diff(c.before, c.after)}"
                    for c in text_changes
                ),
                unsafe_allow_html=True,
            )
    # lazy: the two rendered docs are built and sent only while the expander is open
    rendered = st.expander("Rendered prompt text, side by side", key="rv_rendered", on_change="rerun")
    if not rendered.open:
        return
    with rendered:
        c = st.columns(2)
        c[0].caption(f"A · {before_id[:8]}")
        with c[0]:
            ui.mono(actions.render_text(before))
        c[1].caption(f"B · {after_id[:8]}")
        with c[1]:
            ui.mono(actions.render_text(after))


def _after_write(message: str) -> None:
    """Forget cached reads and rerun, so every table on the page shows the new audit row."""
    refresh()
    st.session_state["review_toast"] = message
    st.rerun()


def decide(path: str, tool: str, doc_id: str) -> None:
    st.markdown(f"Decide on version **`{doc_id[:8]}`** (B).")
    c = st.columns([1, 2])
    reviewer = c[0].text_input("Reviewer", value=reviewer_name(), key="reviewer")
    reason = c[1].text_input("Reason (kept in the audit trail)", key="review_reason")
    b = st.columns([1, 1, 2, 1], vertical_alignment="bottom")
    if b[0].button("Approve", type="primary", icon=":material/thumb_up:", key="approve", width="stretch"):
        actions.record_review(wh(), doc_id, tool, "approve", reviewer, reason)
        _after_write(f"Approved {doc_id[:8]}")
    if b[1].button("Reject", icon=":material/thumb_down:", key="reject", width="stretch"):
        actions.record_review(wh(), doc_id, tool, "reject", reviewer, reason)
        _after_write(f"Rejected {doc_id[:8]}")
    label = b[2].text_input("Label", placeholder="e.g. needs-example", key="new_label")
    if b[3].button(
        "Add label", icon=":material/label:", key="add_label", width="stretch", disabled=not label
    ):
        actions.record_review(wh(), doc_id, tool, "label", reviewer, reason, label=label)
        _after_write(f"Labelled {doc_id[:8]} '{label}'")


def edit(path: str, tool: str, doc_id: str) -> None:
    doc = q.doc(path, doc_id)
    st.markdown(
        f"Edit version **`{doc_id[:8]}`** field by field. Saving stores a **new version** "
        "whose parent is this one; nothing is overwritten."
    )
    texts = docedit.text_fields(doc)
    new_texts = {}
    cols = st.columns(2)
    for i, code in enumerate(docedit.TEXT_FIELDS):
        widget = cols[i % 2].text_area if code in docedit.MULTILINE else cols[i % 2].text_input
        kwargs = {"height": 100} if code in docedit.MULTILINE else {}
        new_texts[code] = widget(
            ui.field_label(code) + (" (one per line)" if code == "UE" else ""),
            value=texts[code],
            key=f"edit_{code}_{doc_id}",
            **kwargs,
        )
    st.markdown(
        "**Parameters** — IPN name · IPD description · IPT type · PRF required · POF optional · DPV default"
    )
    flag = st.column_config.SelectboxColumn(options=["", "yes", "no"])
    params = st.data_editor(
        docedit.params_frame(doc),
        key=f"edit_params_{doc_id}",
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_config={
            "required": flag,
            "optional": flag,
            "default": st.column_config.TextColumn(help="JSON value"),
        },
    )
    st.markdown("**Returns** — RPN name · RPD description · RPT type")
    returns = st.data_editor(
        docedit.returns_frame(doc),
        key=f"edit_returns_{doc_id}",
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
    )
    c = st.columns([3, 1], vertical_alignment="bottom")
    reason = c[0].text_input("Why this edit", key=f"edit_reason_{doc_id}")
    if c[1].button(
        "Save as new version", type="primary", icon=":material/save:", key="save_edit", width="stretch"
    ):
        try:
            new = docedit.apply_edits(doc, new_texts, params, returns)
        except ValueError as exc:
            st.error(f"This edit is not a valid doc: {exc}")
            return
        if new.doc_id == doc.doc_id:
            st.info("Nothing changed.")
            return
        new_id = actions.save_edit(
            wh(), doc, new, st.session_state.get("reviewer") or reviewer_name(), reason
        )
        refresh()
        st.session_state["pending_a"] = doc_id
        st.session_state["pending_b"] = new_id
        st.session_state["flash"] = f"Saved new version {new_id[:8]} (parent {doc_id[:8]})"
        st.rerun()


def audit_trail(path: str, tool: str) -> None:
    df = q.audit(path, tool)
    if df.empty:
        st.caption("No review action on this tool yet.")
        return
    st.dataframe(
        df.assign(version=df["doc_id"].str[:8]),
        hide_index=True,
        column_order=("created_at", "reviewer", "action", "label", "version", "reason"),
        column_config={
            "created_at": st.column_config.DatetimeColumn("When", format="YYYY-MM-DD HH:mm:ss"),
            "reviewer": "Who",
            "action": "Action",
            "label": "Label",
            "version": "Version",
            "reason": st.column_config.TextColumn("Why", width="large"),
        },
    )


def export(path: str, tool: str) -> None:
    """Build a reviewed set: by default the edited tool's own doc set, with approved tools listed first."""
    sets = q.export_bases(path, tool)
    if sets.empty:
        st.caption("No doc set to start from.")
        return
    labels = {
        r.docset_id: f"{r.name} · {r.benchmark} · {int(r.tools)} tools · {int(r.approved)} approved"
        for r in sets.itertuples()
    }
    c = st.columns([2, 2])
    base_id = c[0].selectbox(
        "Start from doc set",
        list(labels),
        format_func=labels.get,
        key=f"export_base_{tool}",  # another tool brings its own default: the set that documents it
        help=f"Sets that document {tool} come first, then those with more approved tools",
    )
    name = c[1].text_input("Name of the reviewed set", value="reviewed docs", key="export_name")
    members = q.reviewed_members(path, base_id)
    approved = {r.tool: r.approved_doc_id for r in members.itertuples() if isinstance(r.approved_doc_id, str)}
    members = members.assign(has=members["approved_doc_id"].map(lambda d: isinstance(d, str)))
    members = members.sort_values(["has", "tool"], ascending=[False, True]).drop(columns="has")
    st.dataframe(
        members.assign(
            uses=members["approved_doc_id"].map(
                lambda d: "approved version" if isinstance(d, str) else "base doc"
            ),
            base=members["base_doc_id"].str[:8],
            approved=members["approved_doc_id"].map(lambda d: d[:8] if isinstance(d, str) else "–"),
        ),
        hide_index=True,
        column_order=("tool", "uses", "base", "approved", "approved_at"),
        column_config={
            "tool": "Tool",
            "uses": "Exported doc",
            "base": "Base version",
            "approved": "Approved version",
            "approved_at": st.column_config.DatetimeColumn("Approved", format="YYYY-MM-DD HH:mm"),
        },
    )
    w = wh()
    docset = actions.reviewed_docset(w, w.load_docset(base_id), approved, name)
    st.caption(
        f"{len(approved)} of {len(members)} tools use an approved version · doc set id `{docset.docset_id}`"
    )
    if not approved:
        st.warning(
            "No tool of this set has an approved version: the exported set is its base, unchanged. "
            "Approve a version first, or start from another set.",
            icon=":material/warning:",
        )
    existing = q.docset_named(path, docset.docset_id)
    if existing is not None:
        st.warning(
            f"These docs are identical to the stored doc set *{existing}* (`{docset.docset_id[:8]}`): "
            "registering it adds nothing new, and re-evaluating it re-runs that set.",
            icon=":material/content_copy:",
        )
    b = st.columns(4)
    if b[0].button("Register doc set", icon=":material/inventory_2:", key="register_docset", width="stretch"):
        bench = sets.set_index("docset_id").loc[base_id, "benchmark"]
        sid = actions.register_reviewed(w, docset, bench, base_id, reviewer_name())
        refresh()
        st.success(f"Registered doc set `{sid}` — evaluate it on the Re-evaluation page.")
        st.page_link(
            ui.PAGE_FILES["jobs"],
            label="Re-evaluate it",
            icon=":material/play_circle:",
            query_params={"docset": sid},
        )
    b[1].download_button(
        "JSON",
        actions.export_json(docset),
        f"{name}.json",
        "application/json",
        icon=":material/download:",
        width="stretch",
    )
    openai, mcp = actions.export_openai(docset), actions.export_mcp(docset)
    b[2].download_button(
        "OpenAI tools",
        openai or "",
        f"{name}.openai.json",
        "application/json",
        icon=":material/download:",
        disabled=openai is None,
        width="stretch",
    )
    b[3].download_button(
        "MCP tools",
        mcp or "",
        f"{name}.mcp.json",
        "application/json",
        icon=":material/download:",
        disabled=mcp is None,
        width="stretch",
    )


def render() -> None:
    ui.header(
        "Doc review", "Compare any two versions field by field, approve or edit, and export the approved set."
    )
    if "flash" in st.session_state:
        st.success(st.session_state.pop("flash"), icon=":material/check_circle:")
    if "review_toast" in st.session_state:
        st.toast(st.session_state.pop("review_toast"), icon=":material/check_circle:")
    path = current_path()
    picked = pickers(path)
    if picked is None:
        return
    tool, bench, vs, before, after = picked
    # lazy: the table of every version (a grid laid out on each visit) is built only while it is open;
    # the pickers above already name each version's origin, iteration and review decision
    table = st.expander(
        f"All {len(vs)} versions of {tool}", icon=":material/history:", key="rv_versions", on_change="rerun"
    )
    if table.open:
        with table:
            versions_table(vs, before, after)
    candidate_panel(path, after)
    diff_view(path, before, after)
    st.divider()
    # Lazy tabs: Decide is built on every visit; the editor (its inputs and two data editors), the
    # audit trail and the export (a table, the exported files) only once the analyst opens them.
    # A tab once opened stays built, hidden, so an unsaved edit survives a look at another tab.
    tabs = st.tabs(list(ACTIONS), key="review_tab", on_change="rerun")
    built = st.session_state.setdefault("review_tabs_built", {ACTIONS[0]})
    views = (
        lambda: decide(path, tool, after),
        lambda: edit(path, tool, after),
        lambda: audit_trail(path, tool),
        lambda: export(path, tool),
    )
    for tab, name, view in zip(tabs, ACTIONS, views, strict=True):
        if tab.open:
            built.add(name)
        if name in built:
            with tab:
                view()

"""What an edit changed: a re-evaluation's TS/TC against the docs it replaces, the tasks that flipped,
and one task side by side under the two doc versions with the doc diff above it.

Shown on the card of a finished re-evaluation and, in full, on the Re-evaluation
page at `?job=<id>` (a link that survives reloads and can be sent to a colleague).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import jobs
from core.ui import components as ui
from core.ui.queries import reeval as q
from core.ui.queries import traces as tq
from core.ui.state import wh
from core.ui.views import review, traces


def comparison_of(path: str, j: jobs.JobState) -> q.RunComparison | None:
    """The paired comparison of a finished evaluation job that ran against older docs, else None."""
    p = j.params
    if j.kind != "eval" or j.status != "done" or not p.get("against") or not p.get("docset"):
        return None
    until = pd.Timestamp(j.updated_at).isoformat() if j.updated_at is not None else None
    run = q.eval_run_of(path, p["docset"], p.get("split", ""), p.get("model", ""), p.get("agent", ""), until)
    return q.run_comparison(path, run, p["against"]) if run else None


def _rates(cmp: q.RunComparison) -> str:
    def one(name: str, col: str) -> str:
        old, new = cmp.rate(f"old_{col}"), cmp.rate(f"new_{col}")
        if old is None or new is None:
            return f"{name} –"
        return f"{name} {ui.pct(old)} → **{ui.pct(new)}** ({ui.pp((new - old) * 100)})"

    return f"{one('TS', 'ts')} · {one('TC', 'tc')}"


def card_result(path: str, j: jobs.JobState) -> None:
    """One line on a finished re-evaluation's card: TS/TC against the old docs, tasks that flipped."""
    cmp = comparison_of(path, j)
    if cmp is None:
        return
    fixed, broken = len(cmp.flipped("fixed")), len(cmp.flipped("broken"))
    st.markdown(
        f"{_rates(cmp)} against docs `{cmp.old_docset[:8]}` on {len(cmp.paired)} paired tasks · "
        f":green[{fixed} fixed] · :red[{broken} broken]"
    )
    st.page_link(
        ui.PAGE_FILES["jobs"],
        label="Compare with the old docs, task by task",
        icon=":material/compare:",
        query_params={"job": j.job_id},
    )


def _flip_table(frame: pd.DataFrame, title: str) -> None:
    st.markdown(f"**{title}** ({len(frame)})")
    if frame.empty:
        st.caption("None.")
        return
    st.dataframe(
        frame[["task_id", "domain", "old_ts", "new_ts", "n"]],
        hide_index=True,
        column_config={
            "task_id": "Task",
            "domain": "Domain",
            "old_ts": st.column_config.NumberColumn("TS old", format="percent"),
            "new_ts": st.column_config.NumberColumn("TS new", format="percent"),
            "n": st.column_config.NumberColumn("Pairs", help="episodes paired by task, config and repeat"),
        },
    )


def side_by_side(path: str, cmp: q.RunComparison, task_id: str) -> None:
    """The doc diff of the tools this task uses, then its trace under the old and the new docs."""
    row = cmp.tasks.set_index("task_id").loc[task_id]
    old_detail = tq.episode_detail(path, row["old_episode"]) if isinstance(row["old_episode"], str) else None
    new_detail = tq.episode_detail(path, row["new_episode"])
    changed = q.changed_tools(path, cmp.old_docset, cmp.new_docset)
    used = set(new_detail["task_tools"]) if new_detail else set()
    shown = changed[changed["tool"].isin(used)] if used & set(changed["tool"]) else changed
    st.markdown(f"##### Doc diff · {len(shown)} tool(s) this task can use")
    for r in shown.itertuples():
        if isinstance(r.old_doc, str) and isinstance(r.new_doc, str):
            st.markdown(f"`{r.tool}`")
            review.diff_view(path, r.old_doc, r.new_doc)
    if shown.empty:
        st.caption("The two doc sets document this task's tools identically.")
    st.markdown(f"##### `{task_id}` under the two doc versions")
    if new_detail and new_detail["query"]:
        st.markdown(f"> {new_detail['query']}")
    cols = st.columns(2, gap="medium")
    for col, label, detail in (
        (cols[0], f"Old docs `{cmp.old_docset[:8]}`", old_detail),
        (cols[1], f"New docs `{cmp.new_docset[:8]}`", new_detail),
    ):
        with col:
            if detail is None:
                st.markdown(f"**{label}**")
                st.caption("Not run with these docs.")
                continue
            ep = detail["episode"]
            badge = ":green-badge[success]" if ep["success"] else ":red-badge[failed]"
            st.markdown(f"**{label}** {badge} · repeat {ep['repeat']}")
            traces.steps(detail, show_model_calls=False)


def render_comparison(path: str, job_id: str) -> None:
    """The full run comparison of one re-evaluation job (`?job=`)."""
    j = jobs.job_state(wh(), job_id)
    if j is None:
        st.warning(f"No job `{job_id}` in this warehouse.")
        return
    cmp = comparison_of(path, j)
    with st.container(border=True):
        st.markdown(f"#### Run comparison · job `{job_id}`")
        if cmp is None:
            st.caption(
                "This job has no result to compare yet (it is still running, failed, or ran without "
                "older docs to compare against)."
            )
            return
        st.markdown(
            f"{_rates(cmp)} · new docs `{cmp.new_docset[:8]}` against `{cmp.old_docset[:8]}`, same tasks, "
            f"model and seeds · {len(cmp.paired)} tasks"
        )
        if cmp.unpaired:
            st.caption(f":orange[{cmp.unpaired} episode(s) of the new docs have no old-docs partner.]")
        c = st.columns(2)
        with c[0]:
            _flip_table(cmp.flipped("fixed"), "Fixed: pass more often with the new docs")
        with c[1]:
            _flip_table(cmp.flipped("broken"), "Broken: pass less often with the new docs")
        flipped = [*cmp.flipped("fixed")["task_id"], *cmp.flipped("broken")["task_id"]]
        options = flipped or list(cmp.paired["task_id"])
        if not options:
            return
        wanted = st.query_params.get("task")
        task = st.selectbox(
            "Task side by side",
            options,
            index=options.index(wanted) if wanted in options else 0,
            key="runcmp_task",
            help="Flipped tasks first; every paired task when none flipped",
        )
        st.query_params["task"] = task
        side_by_side(path, cmp, task)

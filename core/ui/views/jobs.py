"""Re-evaluation: start an evaluation of any doc set as a background job and watch it live.

The job runs in its own process (core/jobs.py) and reports progress into the
warehouse, so the progress shown here survives a reload, appears in a second
tab, and keeps going if the browser is closed. The list refreshes itself every
few seconds (a Streamlit fragment that backs off when drawing is slow), without rerunning the whole page.
"""

from __future__ import annotations

import importlib.util
from datetime import datetime

import pandas as pd
import streamlit as st

from core import jobs
from core.ui import components as ui
from core.ui.live import live
from core.ui.queries import data as data_q
from core.ui.queries import docs as dq
from core.ui.queries import reeval as rq
from core.ui.queries import traces as tq
from core.ui.state import current_path, refresh, wh
from core.ui.views import runcompare

SPLITS = ("test", "val", "opt")
LOG_LINES = 6  # a running job's card shows its last log lines, so a long step is visibly alive
PARADIGMS = ("react", "multi")
DEFAULT_MODEL = "local/qwen2.5-coder-0.5b"
# the offline models a newcomer can pick without typing (any litellm model name can be entered)
LOCAL_MODELS = (DEFAULT_MODEL, "local/qwen2.5-coder-1.5b", "local/smollm2-135m")
STATUS_BADGE = {
    "queued": ("queued", "gray"),
    "running": ("running", "blue"),
    "cancelling": ("cancelling", "orange"),
    "done": ("done", "green"),
    "failed": ("failed", "red"),
    "cancelled": ("cancelled", "gray"),
    "lost": ("stopped unexpectedly", "red"),
}


def eval_argv(
    benchmark: str,
    docset: str,
    split: str,
    model: str,
    agent: str,
    warehouse: str,
    repeats: int = 1,
    limit: int | None = None,
    against: str | None = None,
) -> list[str]:
    """The `docschisel` arguments of an evaluation job (`against`: the docs it is compared with)."""
    argv = [
        "eval", "--benchmark", benchmark, "--docs", docset, "--split", split, "--model", model,
        "--agent", agent, "--warehouse", warehouse,
    ]  # fmt: skip
    if repeats > 1:
        argv += ["--repeats", str(int(repeats))]
    if limit:
        argv += ["--limit", str(int(limit))]
    if against:
        argv += ["--against", against]
    return argv


def eval_available() -> bool:
    return importlib.util.find_spec("core.cli.evaluate") is not None


def start_form(path: str) -> None:
    sets = dq.docsets(path)
    if sets.empty:
        ui.empty("No doc set to evaluate yet.", "Import a benchmark first.", "data", "Import data")
        return
    with st.container(border=True):
        st.markdown("##### New evaluation")
        benchmarks = sorted(sets["benchmark"].dropna().unique())
        wanted = st.query_params.get("docset")
        wanted_bench = sets.set_index("docset_id")["benchmark"].get(wanted) if wanted else None
        c = st.columns([1, 2, 1])
        benchmark = c[0].selectbox(
            "Benchmark",
            benchmarks,
            index=benchmarks.index(wanted_bench) if wanted_bench in benchmarks else 0,
            key="job_benchmark",
        )
        mine = sets[sets["benchmark"] == benchmark]
        labels = {
            r.docset_id: f"{r.name} · {r.origin} · {r.docset_id[:8]} · {int(r.tools)} tools"
            for r in mine.itertuples()
        }
        ids = list(labels)
        docset = c[1].selectbox(
            "Doc set",
            ids,
            index=ids.index(wanted) if wanted in ids else 0,
            format_func=labels.get,
            key="job_docset",
        )
        split = c[2].selectbox(
            "Split", SPLITS, key="job_split", help="Evaluate on the held-out test split by default"
        )
        base = rq.docset_base(path, docset)
        others = ["", *(i for i in ids if i != docset)]
        against = st.selectbox(
            "Compare against",
            others,
            index=others.index(base) if base in others else 0,
            format_func=lambda i: labels[i] if i else "nothing (evaluate these docs alone)",
            key=f"job_against_{docset}",  # a new doc set brings its own default: the docs it replaces
            help="Also run these docs on the same tasks with the same model and seeds; the finished job "
            "shows TS/TC against them and the tasks that flipped",
        )
        c = st.columns([2, 1, 1, 1, 1.4], vertical_alignment="bottom")
        models = list(dict.fromkeys([*LOCAL_MODELS, *tq.filter_options(path)["model"]]))
        model = c[0].selectbox("Model", models, key="job_model", accept_new_options=True)
        agent = c[1].selectbox("Agent paradigm", PARADIGMS, key="job_agent")
        repeats = c[2].number_input("Repeats", 1, 10, 1, key="job_repeats")
        limit = c[3].number_input(
            "Task sample", 0, 100_000, 0, key="job_limit", help="A seeded sample of N tasks; 0 = every task"
        )
        ready = eval_available()
        if c[4].button(
            "Start evaluation",
            type="primary",
            icon=":material/play_arrow:",
            disabled=not ready,
            key="start_eval",
            width="stretch",
        ):
            source = data_q.benchmark_source(path, benchmark)  # a user benchmark's folder, not its name
            argv = eval_argv(
                source, docset, split, model, agent, path, int(repeats), int(limit) or None, against or None
            )
            params = {
                "benchmark": benchmark, "docset": docset, "split": split, "model": model, "agent": agent,
                "repeats": int(repeats), "limit": int(limit) or None, "against": against or None,
            }  # fmt: skip
            job_id = jobs.start_job(wh(), "eval", argv, params)
            st.toast(f"Started {job_id}", icon=":material/play_arrow:")
        if not ready:
            st.caption(
                ":orange[The `docschisel eval` command is not installed in this build; evaluations "
                "cannot start yet.]"
            )
    with st.expander("Check the job runner (no model needed)"):
        c = st.columns([2, 1], vertical_alignment="bottom")
        steps = c[0].slider("Steps", 5, 120, 20, key="selftest_steps")
        if c[1].button(
            "Start self-test job", icon=":material/science:", key="start_selftest", width="stretch"
        ):
            argv = ["warehouse", "selftest-job", "--steps", str(steps), "--delay", "0.25"]
            job_id = jobs.start_job(wh(), "selftest", argv, {"steps": steps})
            st.toast(f"Started {job_id}", icon=":material/play_arrow:")


def _when(ts: object) -> str:
    if ts is None or (isinstance(ts, float) and pd.isna(ts)) or ts is pd.NaT:
        return "–"
    try:
        return pd.Timestamp(ts).strftime("%Y-%m-%d %H:%M:%S")
    except (ValueError, TypeError):
        return str(ts)


def _summary(j: jobs.JobState) -> str:
    p = j.params
    if j.kind == "eval" and p.get("docset"):
        vs = f" against `{str(p['against'])[:8]}`" if p.get("against") else ""
        return f"{p.get('benchmark', '')} · docs `{str(p.get('docset'))[:8]}`{vs} · {p.get('split', '')} · {p.get('model', '')} · {p.get('agent', '')}"
    if j.kind == "compare":
        domains = ",".join(p.get("domains") or []) or "all domains"
        return f"{p.get('benchmark', '')} · {domains} · {','.join(p.get('methods') or [])} · {p.get('model', '')}"
    if j.kind == "selftest":
        return f"self-test · {p.get('steps', '?')} steps"
    return " ".join(j.argv[:4])


def duration(seconds: float | None) -> str:
    """`42 s`, `3 min 05 s`, `1 h 12 min` (a job card's elapsed time and estimate)."""
    if seconds is None:
        return "–"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def progress_text(j: jobs.JobState, at: datetime | None = None) -> str:
    """done / total · what runs now · elapsed · time left, in the producer's own words and units."""
    parts = [f"{j.done or 0:,} / {j.total:,}"] if j.total else [j.status]
    if j.message and j.message not in parts:
        parts.append(j.message)
    if j.active and j.started_at is not None:
        parts.append(f"{duration(j.elapsed_s(at))} elapsed")
        eta = j.eta_s(at)
        parts.append(f"about {duration(eta)} left" if eta is not None else "estimating time left")
    elif j.started_at is not None:
        parts.append(f"took {duration(j.elapsed_s(at))}")
    return " · ".join(parts)


def job_card(j: jobs.JobState) -> None:
    label, color = STATUS_BADGE.get(j.status, (j.status, "gray"))
    with st.container(border=True):
        c = st.columns([4, 2, 1], vertical_alignment="center")
        c[0].markdown(f"**{j.kind}** · {_summary(j)}")
        with c[1]:
            st.badge(label, color=color)
        if j.active:
            # A callback, not `if st.button(...)`: it runs before the next run (full or fragment),
            # so the card redraws as "cancelling" without a scoped rerun, which Streamlit refuses
            # when the click arrives in a full-app run.
            c[2].button(
                "Cancel",
                key=f"cancel_{j.job_id}",
                icon=":material/stop_circle:",
                width="stretch",
                disabled=j.status == "cancelling",
                on_click=jobs.request_cancel,
                args=(wh(), j.job_id, "cancelled from the dashboard"),
            )
        st.progress(j.fraction or (1.0 if j.status == "done" else 0.0), text=progress_text(j))
        st.caption(f"`{j.job_id}` · started {_when(j.created_at)} · updated {_when(j.updated_at)}")
        if j.status in ("failed", "lost"):
            st.error(j.message or "the job stopped without a message", icon=":material/error:")
        if j.active or j.status in ("failed", "lost"):
            tail = jobs.log_tail(wh(), j.job_id, lines=LOG_LINES if j.active else 40)
            if tail:
                with st.expander("Last log lines" if j.active else "Log"):
                    ui.mono(tail)
        if j.status == "done" and j.kind == "eval" and j.params.get("against"):
            runcompare.card_result(current_path(), j)
        if j.status == "done" and j.kind == "eval" and j.params.get("docset"):
            st.page_link(
                ui.PAGE_FILES["traces"],
                label="Open the traces of this evaluation",
                icon=":material/timeline:",
                query_params={"docset": j.params["docset"], "split": j.params.get("split", "")},
            )


def newly_finished(found: list[jobs.JobState], key: str) -> bool:
    """Whether a job of `found` finished since this session last looked; refreshes cached reads if so.

    The results of a job that just finished must appear on the pages without a
    manual refresh; `key` keeps each job list's memory apart.
    """
    finished = {j.job_id for j in found if not j.active}
    seen = st.session_state.setdefault(key, set(finished))
    if not finished - seen:
        return False
    st.session_state[key] = seen | finished
    refresh()
    return True


def job_list() -> None:
    """Re-reads the job log every few seconds; finished jobs also refresh the cached page data."""
    all_jobs = jobs.list_jobs(wh(), limit=30)
    newly_finished(all_jobs, "jobs_seen_finished")
    active = [j for j in all_jobs if j.active]
    done = [j for j in all_jobs if not j.active]
    st.markdown(f"##### Running ({len(active)})")
    if not active:
        st.caption("Nothing running.")
    for j in active:
        job_card(j)
    st.markdown(f"##### Finished ({len(done)})")
    if not done:
        st.caption("No finished job yet.")
    for j in done[:10]:
        job_card(j)


def render() -> None:
    ui.header(
        "Re-evaluation",
        "Evaluate any doc set — including one you just edited — on a split, as a background job.",
    )
    job_id = st.query_params.get("job")
    if job_id:
        runcompare.render_comparison(current_path(), job_id)
    start_form(current_path())
    live("jobs", job_list)

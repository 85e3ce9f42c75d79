"""SOPs: EvoSOP runs — SOP lifetimes (Fig. 4), per-epoch curves against the atomic tools (Fig. 2), each SOP.

Every SOP shows its schema, its code (read-only), the trajectories it was
built from (links to the trace view) and its reviews; the final toolset
downloads as OpenAI or MCP tool definitions plus code. An evolve run takes
hours on the local model, so the page starts it as a background job
(`docschisel sop evolve`, core/jobs.py) with live progress and a cancel button.
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from core import jobs
from core.docs import ToolDoc
from core.docs.render import render_text
from core.sop.model import Toolset
from core.sop.report import export_toolset
from core.ui import chartview, sop_charts
from core.ui import components as ui
from core.ui.live import live
from core.ui.queries import results as rq
from core.ui.queries import sops as q
from core.ui.state import current_path, wh
from core.ui.urlstate import UrlState
from core.ui.views.jobs import LOCAL_MODELS, job_card, newly_finished

URL = UrlState("sops", {"run": "sop_run", "sop": "sop_sop"})
BENCHMARKS = ("workbench", "api-bank")
VARIANTS = {
    "full": "EvoSOP",
    "no-merge": "EvoSOP without merger",
    "no-review": "EvoSOP without reviewer",
    "asi": "one-shot induction (ASI-like)",
}


def evolve_argv(
    benchmark: str,
    domains: list[str],
    *,
    model: str,
    variant: str,
    constructor: str,
    warehouse: str,
    epochs: int = 10,
    max_train: int = 0,
    max_test: int = 0,
    max_steps: int = 4,
    seed: int = 0,
    doc_links: bool = False,
    offer: str = "beside",
) -> list[str]:
    """The `docschisel sop evolve` arguments of a job (0 = no cap on the task samples)."""
    argv = [
        "sop", "evolve", "--benchmark", benchmark, "--model", model, "--variant", variant,
        "--constructor", constructor, "--epochs", str(epochs), "--max-steps", str(max_steps),
        "--seed", str(seed), "--warehouse", warehouse,
    ]  # fmt: skip
    if domains:
        argv += ["--domain", ",".join(domains)]
    if max_train:
        argv += ["--max-train-tasks", str(max_train)]
    if max_test:
        argv += ["--max-test-tasks", str(max_test)]
    if doc_links:
        argv.append("--doc-links")
    if offer != "beside":
        argv += ["--offer", offer]
    return argv


def start_form(path: str) -> None:
    with st.expander("Run EvoSOP", icon=":material/play_arrow:"):
        c = st.columns([1, 2, 2])
        benchmark = c[0].selectbox("Benchmark", BENCHMARKS, key="sopjob_benchmark")
        domains = c[1].multiselect(
            "Domains", rq.task_domains(path, benchmark), key="sopjob_domains", placeholder="all domains",
            accept_new_options=True,
        )  # fmt: skip
        variant = c[2].selectbox("Variant", list(VARIANTS), format_func=VARIANTS.get, key="sopjob_variant")
        c = st.columns([2, 1, 1, 1, 1, 1], vertical_alignment="bottom")
        model = c[0].selectbox("Agent model", list(LOCAL_MODELS), key="sopjob_model", accept_new_options=True)
        constructor = c[1].selectbox("Constructor", ["composer", "llm"], key="sopjob_constructor")
        epochs = c[2].number_input("Epochs", 1, 30, 10, key="sopjob_epochs")
        max_train = c[3].number_input(
            "Training tasks", 0, 10_000, 25, key="sopjob_train", help="Seeded; 0 = all"
        )
        max_test = c[4].number_input("Test tasks", 0, 10_000, 40, key="sopjob_test", help="Seeded; 0 = all")
        seed = c[5].number_input("Seed", 0, 1000, 0, key="sopjob_seed")
        c = st.columns([1, 2, 3], vertical_alignment="center")
        doc_links = c[0].checkbox(
            "Doc links", key="sopjob_doclinks",
            help="Also build look-up-then-write routines from the lookups' docs (for an agent that never looks "
            "anything up); off is the paper's setting.",
        )  # fmt: skip
        offer = c[1].radio(
            "Offer SOPs", ["beside", "instead"], horizontal=True, key="sopjob_offer",
            format_func={"beside": "beside the atomic tools", "instead": "instead of the writes"}.get,
            help="Instead: an ablation that withholds the atomic writes an offered SOP wraps (docs/sop.md).",
        )  # fmt: skip
        if st.button("Start EvoSOP", type="primary", icon=":material/play_arrow:", key="start_sop"):
            argv = evolve_argv(
                benchmark, domains, model=model, variant=variant, constructor=constructor, warehouse=path,
                epochs=int(epochs), max_train=int(max_train), max_test=int(max_test), seed=int(seed),
                doc_links=bool(doc_links), offer=str(offer),
            )  # fmt: skip
            params = {"benchmark": benchmark, "domains": domains, "variant": variant, "model": model}
            job_id = jobs.start_job(wh(), "sop", argv, params)
            st.toast(f"Started {job_id}", icon=":material/play_arrow:")
        st.caption(
            "Runs `docschisel sop evolve` in the background; started again with the same settings it resumes "
            "after its last stored epoch. SOP code runs only in a limited worker process (docs/sop.md)."
        )


def sop_jobs() -> None:
    """The EvoSOP jobs' cards; drawn by `live`, which refreshes them and backs off when drawing is slow."""
    found = jobs.list_jobs(wh(), limit=10, kind="sop")
    if not found:
        st.caption("No EvoSOP job yet.")
        return
    if newly_finished(found, "sop_jobs_finished"):
        st.rerun()
    for j in [j for j in found if j.active] + [j for j in found if not j.active][:3]:
        job_card(j)


def _run_label(r) -> str:  # noqa: ANN001 - a DataFrame row
    status = r.status or "?"
    return f"{r.method} · {r.benchmark} {r.domains or ''} · {r.model} · seed {r.seed} · {status} · {r.run_id[:8]}"


def summary(run, epochs) -> None:  # noqa: ANN001 - DataFrame rows
    c = st.columns(4)
    base = epochs[epochs["epoch"] == 0]
    # a run still under way has no selected epoch and no test yet: NULL reads as NaN or pd.NA
    best = epochs[epochs["epoch"] == run.best_epoch] if pd.notna(run.best_epoch) else epochs.iloc[0:0]
    c[0].metric("Epochs", int(epochs["epoch"].max()) if not epochs.empty else 0)
    c[1].metric("Selected epoch", "–" if best.empty else int(run.best_epoch))
    if not best.empty and not base.empty:
        c[2].metric(
            "Training TS", ui.pct(best["ts"].iloc[0]), ui.pp(100 * (best["ts"].iloc[0] - base["ts"].iloc[0])),
            help="The selected epoch against the atomic tools (epoch 0), same tasks",
        )  # fmt: skip
    if pd.notna(run.test_ts) and pd.notna(run.base_test_ts):
        c[3].metric(
            "Held-out test TS", ui.pct(run.test_ts), ui.pp(100 * (run.test_ts - run.base_test_ts)),
            help=f"{int(run.n_test)} test tasks, against the atomic tools on the same tasks",
        )  # fmt: skip


def sop_detail(path: str, run_id: str, rows: dict) -> None:
    if not rows:
        st.caption("This run evaluated no SOP.")
        return
    by_name = {r["name"]: sid for sid, r in rows.items()}
    URL.ensure("sop", list(by_name), sorted(by_name)[0])
    name = st.selectbox("SOP", sorted(by_name), key=URL.keys["sop"])
    row = rows[by_name[name]]
    doc = ToolDoc.from_json(row["doc"])
    st.caption(
        f"`{row['tool']}` · {row['origin']} · calls {' → '.join(row['uses'])}"
        + (f" · generalises {len(row['parents'])} SOPs" if row["parents"] else "")
        + f" · `{row['sop_id']}`"
    )
    c = st.columns(2)
    with c[0]:
        st.markdown("**Schema** (what the agent sees)")
        st.code(render_text(doc), language=None)
    with c[1]:
        st.markdown("**Code** (read-only; runs only in the worker)")
        st.code(row["code"], language="python")
    sources = tuple(s for s in row["sources"] if not s.startswith("gold:"))
    gold = [s.removeprefix("gold:") for s in row["sources"] if s.startswith("gold:")]
    st.markdown("**Built from**")
    links = q.episode_links(path, sources)
    if not links.empty:
        links["trace"] = [
            ui.link("traces", benchmark=b, run=r, episode=e)
            for b, r, e in zip(links["benchmark"], links["run_id"], links["episode_id"], strict=True)
        ]
        st.dataframe(
            links[["task_id", "success", "trace"]],
            hide_index=True,
            column_config={"trace": st.column_config.LinkColumn("Trajectory", display_text="open trace")},
        )
    if gold:
        st.caption("Gold calls of training tasks: " + ", ".join(f"`{t}`" for t in gold))
    st.markdown("**Reviews**")
    rev = q.reviews(path, run_id, row["sop_id"])
    if rev.empty:
        st.caption("Never invoked.")
    else:
        rev["labels"] = rev["labels"].map(lambda v: ", ".join(v) if v is not None else "")
        st.dataframe(rev.drop(columns=["name"]), hide_index=True)


def export_buttons(path: str, run_id: str) -> None:
    best, data = q.final(path, run_id)
    toolset = Toolset.from_json(data)
    st.markdown(f"**Final toolset** (epoch {best}): {', '.join(s.name for s in toolset) or 'no SOP'}")
    c = st.columns(2)
    for col, fmt in zip(c, ("openai", "mcp"), strict=True):
        text = json.dumps({"run_id": run_id, "epoch": best, **export_toolset(toolset, fmt)}, indent=2)
        col.download_button(
            f"Download {fmt.upper()} tools + code",
            text,
            file_name=f"sops-{run_id[:8]}-{fmt}.json",
            mime="application/json",
            key=f"sop_export_{fmt}",
            disabled=not len(toolset),
        )


def render() -> None:
    ui.header(
        "SOPs", "EvoSOP: higher-order tools synthesised from trajectories, merged, evaluated and reviewed."
    )
    path = current_path()
    start_form(path)
    live("sop_jobs", sop_jobs)
    runs = q.runs(path)
    if runs.empty:
        ui.empty(
            "No EvoSOP run yet.",
            "Start one above, or run `docschisel sop evolve --benchmark workbench --domain email`.",
        )
        return
    ids = list(runs["run_id"])
    URL.pull()
    URL.ensure("run", ids, ids[0])
    labels = {r.run_id: _run_label(r) for r in runs.itertuples()}
    run_id = st.selectbox("Run", ids, format_func=labels.get, key=URL.keys["run"])
    run = next(r for r in runs.itertuples() if r.run_id == run_id)
    epochs = q.epochs(path, run_id)
    summary(run, epochs)
    tabs = st.tabs(["Lifetimes (Fig. 4)", "Curves (Fig. 2)", "SOPs", "Decisions", "Export", "Table 1"])
    with tabs[0]:
        life = q.lifecycle(path, run_id)
        if life.empty:
            st.caption("No SOP evaluated yet.")
        else:
            chartview.draw(sop_charts.lifecycle, life, key="sop_life")
            st.caption(
                "Numbers: successful invocations / invocations per epoch (successful: no defect, task passed)."
            )
        uptake = q.uptake(path, run_id)
        if not uptake.empty:
            st.markdown("**Uptake**: episodes that called an SOP, and the agent's own calls in the others")
            st.dataframe(uptake, hide_index=True)
    with tabs[1]:
        if not epochs.empty:
            chartview.draw(sop_charts.curves, epochs, key="sop_curves")
            st.caption("Dashed: the atomic tools alone (epoch 0).")
            st.dataframe(epochs.drop(columns=["toolset_id"]), hide_index=True)
    with tabs[2]:
        sop_detail(path, run_id, q.sops(path, run_id))
    with tabs[3]:
        dec = q.decisions(path, run_id)
        st.dataframe(dec.drop(columns=["sop_id"]), hide_index=True) if not dec.empty else st.caption(
            "No decision yet."
        )
    with tabs[4]:
        export_buttons(path, run_id)
    with tabs[5]:
        table_one(path)
    URL.push()


def table_one(path: str) -> None:
    """Table 1 over every finished run, then each method paired with the atomic agent (same tasks, seeds)."""
    t1 = q.table1(path)
    if t1.empty:
        st.caption("No finished EvoSOP run yet.")
        return
    st.markdown("**Table 1**: test and training TS, mean ± standard error over seeds, per protocol")
    st.dataframe(t1, hide_index=True)
    paired = q.paired(path)
    if not paired.empty:
        st.markdown(
            "**Paired over test tasks and seeds** against the atomic agent: bootstrap interval, exact McNemar, "
            "minimum detectable effect, change in reasoning rounds"
        )
        st.dataframe(paired, hide_index=True)

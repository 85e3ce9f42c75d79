"""Compare methods: OG / EasyTool / DRAFT / DocsChisel / GEPA on the same held-out split.

The scores (each method's mean TS and TC with DocsChisel's gain and its
significance mark), then one tab each: box plots of TS and TC over evaluation
runs (Fig. 8) with the tests behind the marks, every run with links to its
traces, the efficiency table (Table III), and the iteration-budget and memory
ablation curves (Figs. 9–10). Every number leads to its traces: click a point
of a box, or use the links of the runs.

A comparison takes hours on the local model, so the page starts it as a
background job (`docschisel compare`, core/jobs.py) with live progress and a
cancel button; its stored result snapshots (tables of `docschisel compare
show`) are listed at the top.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import jobs
from core.study import compare_across as across
from core.study import compare_report as report
from core.study.compare_agents import agents_frame
from core.ui import charts, chartview, stats
from core.ui import components as ui
from core.ui.live import live
from core.ui.queries import results as q
from core.ui.state import current_path, wh
from core.ui.urlstate import UrlState
from core.ui.views.jobs import LOCAL_MODELS, PARADIGMS, job_card, newly_finished

URL = UrlState("compare", {"benchmark": "cmp_benchmark", "split": "cmp_split"})

NAMES = {
    "OG": "Original docs",
    "ET": "EasyTool",
    "DRT": "DRAFT",
    "DC": "DocsChisel",
    "GEPA": "GEPA",
    "Reviewed": "Reviewed",
}
METHODS = {
    "og": "Original docs (OG)",
    "et": "EasyTool (ET)",
    "drt": "DRAFT (DRT)",
    "dc": "DocsChisel (DC)",
    "gepa": "GEPA (DocsChisel's episode budget)",
}
DEFAULT_METHODS = ["og", "et", "drt", "dc"]  # GEPA doubles the optimization episodes: chosen by hand
# the views of the evaluation runs, one lazy tab each
VIEWS = (
    "Scores",
    "Box plots (Fig. 8)",
    "Runs and their traces",
    "Efficiency (Table III)",
    "Iteration curves (Figs. 9–10)",
)
BENCHMARKS = ("api-bank", "workbench")


def compare_argv(
    benchmark: str,
    domains: list[str],
    methods: list[str],
    *,
    model: str,
    agent: str,
    warehouse: str,
    opt_runs: int = 3,
    eval_runs: int = 5,
    limit: int = 20,
    limit_tools: int = 0,
    iterations: int = 5,
    max_steps: int = 6,
    memory_ablation: bool = True,
    curve_eval_runs: int = 1,
    headroom: bool = True,
    og_matched: bool = False,
) -> list[str]:
    """The `docschisel compare` arguments of a comparison job (0 = no cap for limit / limit_tools).

    `og_matched` evaluates the original docs opt_runs × eval_runs times, as many samples per task as
    each other method gets over its optimization runs."""
    argv = [
        "compare", "--benchmark", benchmark, "--methods", ",".join(methods), "--model", model,
        "--agent", agent, "--opt-runs", str(opt_runs), "--eval-runs", str(eval_runs), "--limit", str(limit),
        "--iterations", str(iterations), "--max-steps", str(max_steps),
        "--curve-eval-runs", str(curve_eval_runs), "--warehouse", warehouse,
    ]  # fmt: skip
    if domains:
        argv += ["--domain", ",".join(domains)]
    if limit_tools:
        argv += ["--limit-tools", str(limit_tools)]
    if not memory_ablation:
        argv.append("--no-memory-ablation")
    if not headroom:
        argv += ["--headroom", "none"]
    if og_matched and opt_runs > 1:
        argv += ["--og-eval-runs", str(opt_runs * eval_runs)]
    return argv


def start_form(path: str) -> None:
    """Start `docschisel compare` as a background job; the job list below shows its progress."""
    # lazy: the form's fourteen widgets are built and sent only while the expander is open
    form = st.expander("Run a comparison", icon=":material/play_arrow:", key="cmpjob_open", on_change="rerun")
    if not form.open:
        return
    with form:
        c = st.columns([1, 2, 2])
        benchmark = c[0].selectbox("Benchmark", BENCHMARKS, key="cmpjob_benchmark")
        known = q.task_domains(path, benchmark)
        domains = c[1].multiselect(
            "Domains", known, key="cmpjob_domains", placeholder="all domains", accept_new_options=True
        )
        methods = c[2].multiselect(
            "Methods", list(METHODS), DEFAULT_METHODS, format_func=METHODS.get, key="cmpjob_methods"
        )
        c = st.columns(4)
        opt_runs = c[0].number_input("Optimization runs", 1, 10, 3, key="cmpjob_opt")
        eval_runs = c[1].number_input("Evaluation runs", 1, 10, 5, key="cmpjob_eval")
        limit = c[2].number_input(
            "Test tasks", 0, 10_000, 20, key="cmpjob_limit", help="Seeded sample; 0 = all"
        )
        limit_tools = c[3].number_input(
            "Tools per domain", 0, 1_000, 0, key="cmpjob_tools", help="The N tools with most tasks; 0 = all"
        )
        c = st.columns([2, 1, 1, 1, 1], vertical_alignment="bottom")
        model = c[0].selectbox("Model", list(LOCAL_MODELS), key="cmpjob_model", accept_new_options=True)
        agent = c[1].selectbox("Agent paradigm", PARADIGMS, key="cmpjob_agent")
        iterations = c[2].number_input("DocsChisel iterations", 0, 20, 5, key="cmpjob_iter")
        max_steps = c[3].number_input("Max steps", 1, 20, 6, key="cmpjob_steps")
        memory = c[4].checkbox(
            "Memory ablation", True, key="cmpjob_memory", help="Fig. 10: DC without memory"
        )
        c = st.columns(2)
        headroom = c[0].checkbox(
            "Only tools with headroom",
            True,
            key="cmpjob_headroom",
            help="Profile the original docs first and compare only tools whose TS⁰ lies in 0.15–0.85",
        )
        og_matched = c[1].checkbox(
            "As many OG samples as the others",
            False,
            key="cmpjob_og_matched",
            help="Evaluate the original docs optimization runs × evaluation runs times: the paired test's "
            "noisiest term gets as many samples per task as each optimized method",
        )
        if st.button(
            "Start comparison",
            type="primary",
            icon=":material/play_arrow:",
            disabled=not methods,
            key="start_compare",
        ):
            argv = compare_argv(
                benchmark, domains, methods, model=model, agent=agent, warehouse=path,
                opt_runs=int(opt_runs), eval_runs=int(eval_runs), limit=int(limit),
                limit_tools=int(limit_tools), iterations=int(iterations), max_steps=int(max_steps),
                memory_ablation=memory, headroom=headroom, og_matched=og_matched,
            )  # fmt: skip
            params = {"benchmark": benchmark, "domains": domains, "methods": methods, "model": model}
            job_id = jobs.start_job(wh(), "compare", argv, params)
            st.toast(f"Started {job_id}", icon=":material/play_arrow:")
        st.caption(
            "Runs `docschisel compare` in the background; it resumes where it stopped when started again with "
            "the same settings, so cancelling loses at most the episodes in flight."
        )


def compare_jobs() -> None:
    """Comparison jobs, refreshed every few seconds (core.ui.live); a finished one refreshes the page's data."""
    found = jobs.list_jobs(wh(), limit=10, kind="compare")
    if not found:
        return
    if newly_finished(found, "cmp_jobs_finished"):
        st.rerun()  # redraw the whole page: the finished comparison's tables are above this fragment
    for j in [j for j in found if j.active] + [j for j in found if not j.active][:3]:
        job_card(j)


def stored_comparisons(path: str) -> None:
    """The result snapshots `docschisel compare` stored: the same tables as `compare show` and RESULTS."""
    found = q.comparisons(path)
    if not found:
        return
    by_id: dict[str, report.StoredComparison] = {}
    for c in found:  # newest first: a comparison re-run under a later revision is two, the older by revision
        by_id[c.compare_id if c.compare_id not in by_id else f"{c.compare_id} ({c.dc_algorithm})"] = c
    cid = st.selectbox(
        "Comparison", list(by_id), format_func=lambda i: report.title(by_id[i]), key="cmp_stored"
    )
    c = by_id[cid]
    # lazy: only the open tab's table is built and sent
    tabs = st.tabs(
        [
            "TS / TC",
            "Significance",
            "Efficiency (Table III)",
            "Curves (Figs. 9–10)",
            "Table IV",
            "Regression guard",
            "Attribution",
        ],
        key="cmp_stored_tab",
        on_change="rerun",
    )
    frames = (
        report.summary_frame,
        report.significance_frame,
        report.efficiency_frame,
        report.curve_frame,
        report.optimizer_frame,
        report.guard_frame,
    )
    empty = (
        "No methods stored.",
        "Significance needs DocsChisel and another method.",
        "No efficiency rows.",
        "No curves: this comparison ran with no curve evaluations.",
        "One optimizer model only; pass several to compare them.",
        "No regression guard: every tool of the domains was compared, or the guard was off (--guard-limit 0).",
    )
    for tab, make, none in zip(tabs[: len(frames)], frames, empty, strict=True):
        if not tab.open:
            continue
        with tab:
            frame = make(c)
            if frame.empty:
                st.caption(none)
            else:
                st.dataframe(frame, hide_index=True)
    if tabs[6].open:
        with tabs[6]:
            attribution(path, cid)
    if tabs[3].open and not c.curves.empty:
        mean = c.curves.groupby(["series", "budget"], as_index=False)["ts"].mean()
        with tabs[3]:
            chartview.draw(
                charts.curves,
                mean,
                "budget",
                "ts",
                "series",
                "Iteration budget k",
                "Test TS",
                key="stored_curve",
            )
    st.caption(
        f"Snapshot `{c.result_id}` of {pd.Timestamp(c.created_at):%Y-%m-%d %H:%M}: "
        f"{len(c.task_ids)} test tasks, the same for every method."
    )
    current, _ = across.current_comparisons(found)
    for heading, caption, frame in (
        (
            "The newest DocsChisel revision across target agents",
            "Every target agent (a model in a paradigm) measured under the newest DocsChisel revision run on "
            "several agents, with the same settings, and each earlier revision while it holds an agent and "
            "task no newer one shown was measured on: one row per agent and one pooled over agents (a "
            "unit is one agent on one test task). McNemar counts units "
            "that flipped; Δ's interval resamples test tasks with all their agents' units.",
            agents_frame(current),
        ),
        (
            "Pooled over domains",
            "The paired per-task test on the union of the test tasks of comparisons with the same benchmark, "
            "target agent and temperature (one per domain): Δ with its bootstrap interval over tasks, McNemar "
            "counts of tasks that flipped each way, and the minimum detectable effect of that many pairs; "
            "again without the test tasks that repeat an optimization task's gold call, where there are any.",
            across.pooled_frame(current),
        ),
        (
            "DocsChisel settings against each other",
            "Comparisons with the same test tasks, target agent and evaluation runs whose DocsChisel differs in "
            "one setting (misuse tasks, cross-tool validation, in-context judging, its revision): DC's per-task "
            "TS under one paired with the other, by task.",
            across.settings_frame(current),
        ),
        (
            "DocsChisel settings against the peers of other comparisons",
            "Each DocsChisel setting's per-task TS paired with GEPA's, EasyTool's or DRAFT's measured in another "
            "comparison on the same test tasks, target agent and evaluation runs; p Holm-corrected over a scope's "
            "rows. A peer's budget is its own comparison's.",
            across.peers_frame(current),
        ),
    ):
        if not frame.empty:
            st.markdown(f"#### {heading}")
            st.caption(caption)
            st.dataframe(frame.round(1), hide_index=True)


def attribution(path: str, compare_id: str) -> None:
    """Which changed doc moved this comparison: the stored `docschisel study attribute` tables."""
    found = q.attributions(path, compare_id)
    if not found:
        st.caption(
            f"No attribution yet: `docschisel study attribute --compare {compare_id} --method METHOD` runs each "
            "changed doc alone on the original docs, and the doc set without it, on these test tasks."
        )
        return
    st.caption(
        "ΔTS against the original docs (the doc set, and each changed doc alone) or against the doc set (without "
        "one doc) on this comparison's test tasks and evaluation runs (paired by task and seed), split into the tasks whose ground truth uses the changed tool and the others: an effect on the "
        "others acts through the agent's choice among tools."
    )
    for heading, frame in found:
        st.markdown(heading)
        st.dataframe(frame, hide_index=True)


def _open_selected(event: object, split: str) -> None:
    for p in charts.picked(event):
        if p.get("run_id"):
            st.switch_page(
                ui.PAGE_FILES["traces"],
                query_params={"run": p["run_id"], "docset": p["docset_id"], "split": split},
            )


def _pp_interval(r: dict) -> str:
    return f"{100 * r['paired_delta']:+.1f} [{100 * r['paired_low']:+.1f}, {100 * r['paired_high']:+.1f}]"


def significance(
    points: pd.DataFrame, metric: str, outcomes: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, dict[str, str]]:
    """DC against each method: the paired per-task test where both ran the same tasks (`outcomes`: one
    row per method and task), else Mann–Whitney U over the evaluation runs (`points`), Holm-corrected."""
    groups = {m: list(g[metric]) for m, g in points.groupby("method")}
    if "DC" not in groups:
        return pd.DataFrame(), {}
    res = stats.versus("DC", groups)
    per_task = (
        {m: dict(zip(g["task_id"], g[metric], strict=True)) for m, g in outcomes.groupby("method")}
        if outcomes is not None and not outcomes.empty
        else {}
    )
    paired = stats.paired_versus("DC", per_task) if "DC" in per_task else {}
    dc = pd.Series(groups["DC"]).mean()
    rows, marks = [], {}
    for method, r in res.items():
        other = pd.Series(groups[method]).mean()
        pr = paired.get(method)
        rows.append(
            {
                "versus": f"DC vs {method}",
                "dc": dc,
                "other": other,
                "relative": (dc - other) / other if other else None,
                "paired": _pp_interval(pr) if pr else "–",
                "pairs": pr["paired_n"] if pr else None,
                "u": r["u"],
                "p": r["p"],
                "p_holm": r["p_holm"],
                "mark": pr["mark"] if pr else stats.stars(r["p_holm"]),
                "test": "paired per task" if pr else "Mann–Whitney U",
            }
        )
        marks[method] = rows[-1]["mark"]
    return pd.DataFrame(rows), marks


def scores(points: pd.DataFrame, outcomes: pd.DataFrame | None = None) -> None:
    """Each method's mean TS and TC over its evaluation runs, and DocsChisel's gain over it (in points, as
    the paired test measures it) with the mark of the box plots, as one Markdown table: the answer at a
    glance, drawn without the chart library."""
    means = points.groupby("method")[["ts", "tc"]].mean()
    gains = {}
    for metric in ("ts", "tc"):
        for r in significance(points, metric, outcomes)[0].to_dict("records"):
            gain = ui.pp(100 * (r["dc"] - r["other"]))
            gains[r["versus"].removeprefix("DC vs "), metric] = f"{gain} {r['mark']}".replace("*", "\\*")
    known = [m for m in charts.METHOD_ORDER if m in means.index]
    lines = ["| Method | TS | TC | DC's gain in TS | DC's gain in TC |", "|:--|--:|--:|--:|--:|"]
    for m in known + sorted(set(means.index) - set(known)):
        ts, tc = ui.pct(means.at[m, "ts"]), ui.pct(means.at[m, "tc"])
        lines.append(
            f"| {NAMES.get(m, m)} ({m}) | {ts} | {tc} | {gains.get((m, 'ts'), '–')} | {gains.get((m, 'tc'), '–')} |"
        )
    st.markdown("\n".join(lines))
    st.caption(
        "Mean over each method's evaluation runs; DocsChisel's mean minus the method's, with its mark "
        "(\\* p<0.05, \\*\\* p<0.01, \\*\\*\\* p<0.001, n.s. not significant). *Box plots* shows every run and "
        "the tests behind the marks; *Runs and their traces* opens any run's traces."
    )


def boxes(points: pd.DataFrame, split: str, outcomes: pd.DataFrame | None = None) -> None:
    c = st.columns(2)
    tables = []
    for col, metric, label in ((c[0], "ts", "Task success (TS)"), (c[1], "tc", "Tool correctness (TC)")):
        sig, marks = significance(points, metric, outcomes)
        if not sig.empty:
            tables.append(sig.assign(metric=metric.upper()))
        with col:
            st.markdown(f"##### {label}")
            event = chartview.draw(
                charts.method_boxes, points, metric, label, marks, key=f"box_{metric}", on_select="rerun",
                selection_mode=charts.PICK,
            )  # fmt: skip
            _open_selected(event, split)
    if tables:  # one table under both plots: the page's width holds every column
        st.dataframe(
            pd.concat(tables, ignore_index=True),
            hide_index=True,
            column_order=(
                "metric",
                "versus",
                "dc",
                "other",
                "relative",
                "paired",
                "pairs",
                "p_holm",
                "mark",
                "test",
            ),  # fmt: skip
            column_config={
                "metric": st.column_config.TextColumn("Metric", width=60),
                "versus": "Comparison",
                "dc": st.column_config.NumberColumn("DC mean", format="percent"),
                "other": st.column_config.NumberColumn("Other mean", format="percent"),
                "relative": st.column_config.NumberColumn("Relative gain", format="percent"),
                "paired": st.column_config.TextColumn(
                    "Paired Δ pp [95 % CI]",
                    help="DC − the method per task, mean over the tasks both ran, with its bootstrap "
                    "interval over tasks",
                ),
                "pairs": st.column_config.NumberColumn("Tasks", help="tasks both methods ran"),
                "p_holm": st.column_config.NumberColumn(
                    "p (Holm)", format="%.4f", help="Mann–Whitney U over evaluation runs, Holm-corrected"
                ),
                "mark": "Sig.",
                "test": "Mark from",
            },
        )
    st.caption(
        "Each point is one evaluation run (optimization seed × evaluation repeat). Click a point to open its "
        "traces. Marks of DocsChisel against each method: where both ran the same tasks, the paired per-task "
        f"test (at least {stats.MIN_PAIRED_TASKS} tasks; * when the 95 % bootstrap interval of the per-task "
        "difference excludes 0, n.s. when it does not); otherwise Mann–Whitney U (two-sided) over the runs, "
        "Holm-corrected: * p<0.05, ** p<0.01, *** p<0.001, n.s. not significant."
    )


def runs_table(points: pd.DataFrame, split: str, benchmark: str) -> None:
    """Every evaluation run with its mean TS and TC, and links to its traces and to its failed ones."""
    g = points.groupby(["method", "run_id", "run", "docset_id"], as_index=False).agg(
        ts=("ts", "mean"), tc=("tc", "mean"), repeats=("repeat", "nunique"), tasks=("n", "max")
    )
    g["traces"] = [
        ui.link("traces", benchmark=benchmark, run=r, docset=d, split=split)
        for r, d in zip(g["run_id"], g["docset_id"], strict=True)
    ]
    g["failed"] = [
        ui.link("traces", benchmark=benchmark, run=r, docset=d, split=split, outcome="failed")
        for r, d in zip(g["run_id"], g["docset_id"], strict=True)
    ]
    g["order"] = g["method"].map({m: i for i, m in enumerate(charts.METHOD_ORDER)}).fillna(99)
    st.dataframe(
        g.sort_values(["order", "run"]),
        hide_index=True,
        column_order=("method", "run", "ts", "tc", "repeats", "tasks", "traces", "failed"),
        column_config={
            "method": "Method",
            "run": st.column_config.TextColumn("Run", width="medium"),
            "ts": st.column_config.ProgressColumn("TS", min_value=0.0, max_value=1.0, format="percent"),
            "tc": st.column_config.ProgressColumn("TC", min_value=0.0, max_value=1.0, format="percent"),
            "repeats": "Repeats",
            "tasks": "Tasks",
            "traces": st.column_config.LinkColumn("Traces", display_text="all traces"),
            "failed": st.column_config.LinkColumn("Failures", display_text="failed only"),
        },
    )


def efficiency(path: str, benchmark: str, points: pd.DataFrame) -> None:
    eff = q.efficiency(path, benchmark)
    st.markdown("##### Efficiency (Table III)")
    if eff.empty:
        st.caption("No doc set with a known producing run.")
        return
    table = eff.groupby("method", as_index=False).agg(
        doc_tokens=("doc_tokens", "mean"),
        tokens_per_tool=("opt_tokens_per_tool", "mean"),
        agent_tokens_per_tool=("agent_tokens_per_tool", "mean"),
        minutes_per_tool=("minutes_per_tool", "mean"),
        doc_sets=("docset_id", "nunique"),
    )
    means = points.groupby("method", as_index=False).agg(ts=("ts", "mean"), tc=("tc", "mean"))
    table = table.merge(means, on="method", how="left")
    table["name"] = table["method"].map(NAMES).fillna(table["method"])
    table["order"] = table["method"].map({m: i for i, m in enumerate(charts.METHOD_ORDER)}).fillna(99)
    st.dataframe(
        table.sort_values("order"),
        hide_index=True,
        column_order=(
            "name",
            "ts",
            "tc",
            "doc_tokens",
            "tokens_per_tool",
            "agent_tokens_per_tool",
            "minutes_per_tool",
            "doc_sets",
        ),  # fmt: skip
        column_config={
            "name": "Method",
            "ts": st.column_config.NumberColumn("TS", format="percent"),
            "tc": st.column_config.NumberColumn("TC", format="percent"),
            "doc_tokens": st.column_config.NumberColumn("Doc length (tokens)", format="%.0f"),
            "tokens_per_tool": st.column_config.NumberColumn("Optimization tokens / tool", format="%.0f"),
            "agent_tokens_per_tool": st.column_config.NumberColumn(
                "Agent tokens / tool",
                format="%.0f",
                help="Target-agent tokens spent re-evaluating candidates",
            ),
            "minutes_per_tool": st.column_config.NumberColumn("Minutes / tool", format="%.2f"),
            "doc_sets": "Doc sets",
        },
    )
    st.caption(
        "Paper anchors for DocsChisel: 12.65 min and 4,481 tokens per tool; docs of 189 tokens on average."
    )


def curves(path: str, benchmark: str) -> None:
    df = q.iteration_curves(path, benchmark)
    if df.empty:
        return
    c = st.columns(2)
    with c[0]:
        st.markdown("##### Iteration budget (Fig. 9)")
        chartview.draw(
            charts.curves, df, "iteration", "ts", "run", "Iteration budget", "Validation TS (mean over tools)",
            key="iter_curve",
        )  # fmt: skip
    with c[1]:
        st.markdown("##### Memory ablation (Fig. 10)")
        mem = df.groupby(["memory", "iteration"], as_index=False)["ts"].mean()
        chartview.draw(
            charts.curves, mem, "iteration", "ts", "memory", "Iteration", "Validation TS (mean over tools)",
            key="mem_curve",
        )  # fmt: skip


def render() -> None:
    ui.header(
        "Compare methods",
        "Original docs (OG), EasyTool (ET), DRAFT (DRT) and DocsChisel (DC) on the same split.",
    )
    path = current_path()
    start_form(path)
    live("compare_jobs", compare_jobs)
    if q.comparisons(path):
        # lazy: the stored snapshots and the evaluation runs are two views an analyst reads one at a
        # time; only the open one is built and drawn (each holds charts and wide tables)
        runs_tab, stored_tab = st.tabs(
            ["Evaluation runs", "Stored comparisons"], key="cmp_section", on_change="rerun"
        )
        if stored_tab.open:
            with stored_tab:
                stored_comparisons(path)
        if not runs_tab.open:
            return
        with runs_tab:
            evaluation_runs(path)
    else:
        evaluation_runs(path)


def evaluation_runs(path: str) -> None:
    """Every evaluation of OG / ET / DRT / GEPA / DC doc sets stored for a benchmark and split."""
    avail = q.compare_benchmarks(path)
    if avail.empty:
        ui.empty(
            "No evaluation of OG / ET / DRT / DC doc sets yet.",
            "Run `docschisel compare ...` or evaluate doc sets from the Re-evaluation page.",
            "jobs",
            "Start an evaluation",
        )
        return
    richness = (
        avail.groupby(["benchmark", "split"])
        .agg(methods=("method", "nunique"), episodes=("episodes", "sum"))
        .sort_values(["methods", "episodes"], ascending=False)
    )
    benchmarks = list(dict.fromkeys(b for b, _ in richness.index))
    c = st.columns([2, 1, 3])
    URL.pull()
    URL.ensure("benchmark", benchmarks, benchmarks[0])
    benchmark = c[0].selectbox("Benchmark", benchmarks, key=URL.keys["benchmark"])
    splits = [s for b, s in richness.index if b == benchmark]
    URL.ensure("split", splits, "test" if "test" in splits else splits[0])
    split = c[1].selectbox("Split", splits, key=URL.keys["split"], format_func=lambda s: s or "(none)")
    URL.push()
    points = q.method_points(path, benchmark, split)
    if points.empty:
        st.info("No evaluation episodes for this benchmark and split.")
        return
    counts = points.groupby("method").size()
    c[2].caption(
        "Evaluation runs per method: " + " · ".join(f"{NAMES.get(m, m)} {n}" for m, n in counts.items())
    )
    # Lazy tabs: only the open view is built and sent. The default is the scores as one small table (the
    # means and the marks of the box plots); the box plots (a chart library the browser loads and two
    # charts it draws), the table of every run, the efficiency table and the curves each wait for a click.
    tabs = st.tabs(list(VIEWS), key="cmp_view", on_change="rerun")
    views = (
        lambda: scores(points, q.method_task_outcomes(path, benchmark, split)),
        lambda: boxes(points, split, q.method_task_outcomes(path, benchmark, split)),
        lambda: runs_table(points, split, benchmark),
        lambda: efficiency(path, benchmark, points),
        lambda: curves(path, benchmark),
    )
    for tab, view in zip(tabs, views, strict=True):
        if tab.open:
            with tab:
                view()

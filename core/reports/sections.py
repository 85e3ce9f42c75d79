"""Report sections about traces: recorded WorkBench runs and our own evaluation runs."""

from __future__ import annotations

from core.reports.results import section, table


@section(10, "Recorded WorkBench traces, re-scored by our scorer")
def recorded_workbench(wh) -> str | None:
    df = wh.query(
        """SELECT model, variant, count(*) AS tasks,
                  100 * avg(success::INT) AS "accuracy %",
                  100 * avg(coalesce(json_extract(score, '$.side_effects')::BOOLEAN, false)::INT) AS "side effects %",
                  100 * avg(tool_correct::INT) AS "TC %"
           FROM episodes WHERE source = 'import' AND benchmark = 'workbench'
           GROUP BY model, variant ORDER BY model, variant"""
    )
    if df.empty:
        return None
    return (
        "Episodes imported from the 48 upstream results files (`docschisel import workbench-results`), "
        "scored by our re-implemented end-state scorer.\n\n" + table(df)
    )


LOCAL_METRICS = [
    ("assembly_s", "assembly s", 1),
    ("load_s", "load s", 1),
    ("peak_rss_mb", "peak RSS MB", 1),
    ("prompt_tok_per_cpu_s", "prompt tok / CPU-s", 1),
    ("gen_tok_per_cpu_s", "gen tok / CPU-s", 1),
    ("gen_grammar_tok_per_cpu_s", "gen tok / CPU-s, grammar", 1),
    ("s_per_call_cold", "s / call, cold", 1),
    ("s_per_call_reuse", "s / call, prefix reuse", 1),
    ("reuse_speedup", "reuse speed-up ×", 1),
    ("s_per_call_reuse_steady", "s / call, prefix reuse, doc-set prefix held", 1),
    ("reuse_speedup_steady", "reuse speed-up ×, doc-set prefix held", 1),
    ("s_per_call_reuse_unforced", "s / call, prefix reuse, every token sampled", 1),
    ("forcing_speedup", "jump-forward speed-up ×", 1),
    ("s_per_call_cold_t2", "2 threads: s / call, cold", 1),
    ("s_per_call_reuse_t2", "2 threads: s / call, prefix reuse", 1),
    ("reuse_speedup_t2", "2 threads: reuse speed-up ×", 1),
    ("s_per_call_reuse_steady_t2", "2 threads: s / call, prefix reuse, doc-set prefix held", 1),
    ("reuse_speedup_steady_t2", "2 threads: reuse speed-up ×, doc-set prefix held", 1),
    ("s_per_call_reuse_unforced_t2", "2 threads: s / call, prefix reuse, every token sampled", 1),
    ("single_step_right_call", "10 requests: right call %", 100),
    ("apibank_right_api", "API-Bank L1: right API %", 100),
    ("apibank_right_call", "API-Bank L1: right call %", 100),
    ("apibank_usable_right_call", "usable samples: right call %", 100),
    ("apibank_s_per_call", "API-Bank s / call", 1),
    ("style_json_right_call", "30 samples, JSON replies: right call %", 100),
    ("style_qwen_right_call", "30 samples, Qwen <tool_call> format: right call %", 100),
]


@section(15, "Offline backbones: speed, memory and tool-call accuracy", archived=True)
def local_backbones(wh) -> str | None:
    """The newest `bench/local_model.py` figures per model, one column per model."""
    df = wh.query(
        """SELECT subject, metric, value, detail, host FROM bench_results
           WHERE bench = 'local_model'
           QUALIFY row_number() OVER (PARTITION BY subject, metric ORDER BY measured_at DESC) = 1"""
    )
    if df.empty:
        return None
    models = sorted(df["subject"].unique(), key=lambda m: ("135m" not in m, "1.5b" in m, m))
    rows = []
    for metric, label, scale in LOCAL_METRICS:
        got = df[df["metric"] == metric].set_index("subject")["value"]
        if got.empty:
            continue
        rows.append({"": label, **{m: (got[m] * scale if m in got.index else float("nan")) for m in models}})
    import json

    import pandas as pd

    sizes = df[df["metric"] == "apibank_right_call"].set_index("subject")["detail"].map(json.loads)
    n = ", ".join(f"{m}: n = {sizes[m].get('n')}" for m in models if m in sizes.index)
    hosts = df.assign(h=df["host"].map(json.loads))
    host = hosts["h"].iloc[0]
    speed = hosts[hosts["metric"].str.startswith("s_per_call")]["h"].map(lambda h: h.get("load_avg_1m", 0))
    acc = hosts[hosts["metric"] == "apibank_s_per_call"]["h"].map(lambda h: h.get("load_avg_1m", 0))
    loads = (
        f"load average {speed.max():.1f} at most when the speed rows were stored" if not speed.empty else ""
    )
    if not acc.empty:
        loads += f"{'; ' if loads else ''}{acc.max():.1f} at most for the API-Bank rows, whose s / call is wall time"
    return (
        "Measured by `python bench/local_model.py`, each model alone in its own process with one llama.cpp "
        f"thread ({host.get('cores')} cores; {loads or 'load average unknown'}), and "
        "again with two threads (one process using both cores: the interactive case; experiments run two "
        "one-thread processes side by side). Tokens "
        "per CPU-second depend less than wall times on what else the machine runs. Prefix reuse: two "
        "interleaved four-step episodes, every call from an empty context (cold) or with the state cache. "
        "API-Bank level-1: every in-scope call sample with the APIs upstream shows for it, the ReAct agent "
        f"with one step, greedy ({n}); right API is TC, right call is TS.\n\n" + table(pd.DataFrame(rows))
    )


@section(20, "Original documentation with the offline local model")
def local_baseline(wh) -> str | None:
    df = wh.query(
        """WITH ev AS (
             SELECT r.run_id, r.benchmark, json_extract_string(r.config, '$.benchmark') AS variant,
                    json_extract_string(r.config, '$.split') AS split,
                    json_extract_string(r.config, '$.agent.paradigm') AS paradigm,
                    json_extract_string(r.config, '$.agent.doc_mode') AS doc_mode,
                    json_extract_string(r.config, '$.agent.model') AS model
             FROM runs r JOIN doc_sets d ON d.docset_id = json_extract_string(r.config, '$.docset_id')
             WHERE r.kind = 'eval' AND d.origin = 'original'
               AND json_extract_string(r.config, '$.agent.model') LIKE 'local/%'
               -- a field study's original-docs runs measure its own task sample: its section shows them
               AND json_extract_string(r.config, '$.study_id') IS NULL)
           SELECT ev.model, ev.variant AS benchmark, e.domain, ev.paradigm || '/' || ev.doc_mode AS agent, ev.split,
                  count(*) AS episodes, 100 * avg(e.success::INT) AS "TS %", 100 * avg(e.tool_correct::INT) AS "TC %",
                  avg(e.latency_s) AS "s / episode", avg(e.n_steps) AS "model calls / episode"
           FROM ev JOIN run_episodes re USING (run_id) JOIN episodes e USING (episode_id)
           GROUP BY ALL ORDER BY model, benchmark, domain, agent"""
    )
    if df.empty:
        return None
    return (
        "Target agents on llama.cpp with grammar-constrained tool calls, original documentation. Wall time "
        "per episode is measured on the machine that ran it.\n\n" + table(df)
    )


@section(30, "Field-impact study (the paper's RQ2, Fig. 1 as tables)", archived=True)
def field_impact(wh) -> str | None:
    from core.study.report import current_studies, latest_impacts, markdown, title

    rows = latest_impacts(wh)
    rows = rows[rows["operation"].isin(["add", "remove"])] if not rows.empty else rows
    if rows.empty:
        return None
    parts = [
        "ΔTS in percentage points against the original docs on the same tasks and seeds; one variant per field "
        "removes it where the docs have it (`remove`) or adds it, supplemented from a disjoint split part, where "
        "they lack it (`add`, shown as `+CODE`)."
    ]
    shown, older = current_studies(rows)
    for group in shown:
        parts += [f"**{title(group)}**", markdown(group)]
    from core.study.report import backbone_frames

    sides = backbone_frames(shown)
    if sides:
        parts.append(
            "**The same cells on several backbones** (Fig. 1's backbone panel): ΔTS pp [95 % paired bootstrap "
            "interval over tasks] of adding (+) or removing (−) each field. `flips`: opposite effects on two "
            "backbones with both intervals excluding zero."
        )
        for name, frame in sides:
            parts += [f"*{name}*", table(frame)]
    if older:
        parts.append(
            "Smaller studies of the same cells, kept in the warehouse (`docschisel study show --study ...`): "
            + ", ".join(f"`{i}`" for i in older)
            + "."
        )
    return "\n\n".join(parts)


@section(31, "Field-impact study: which tasks moved, and why")
def field_moves(wh) -> str | None:
    """Per study shown above: its detectable effect, the tasks no variant moves, the tasks that moved."""
    from core.study.moves import explain, markdown
    from core.study.report import current_studies, latest_impacts, title

    rows = latest_impacts(wh)
    rows = rows[rows["operation"].isin(["add", "remove"])] if not rows.empty else rows
    if rows.empty:
        return None
    shown, _ = current_studies(rows)
    parts = []
    for group in shown:
        e = explain(wh, group)
        if e.n_tasks:
            parts += [f"**{title(group)}**", markdown(e, table)]
    return "\n\n".join(parts) or None


@section(40, "DocsChisel: held-out test results and cost per tool (Table III columns)")
def chisel(wh) -> str | None:
    from core.chisel.report import chisel_section

    return chisel_section(wh)


@section(45, "Method comparison: OG, EasyTool, DRAFT and DocsChisel on held-out test tasks")
def comparison(wh) -> str | None:
    from core.study.compare_across import comparison_section
    from core.study.compare_agents import agents_part

    return comparison_section(wh, headline=agents_part)


@section(46, "Which changed doc moved a comparison: each doc alone, and the doc set without it")
def attribution(wh) -> str | None:
    from core.study.attribution import attribution_rows, markdown

    rows = attribution_rows(wh)
    if rows.empty:
        return None
    return (
        "A doc set is read whole, so one tool's new doc can move the agent on another tool's requests. "
        "Each changed doc is run alone on the base (original) docs (`only T`), and the target is run "
        "without it (`without T`), on the comparison's test tasks with its evaluation runs (paired by task "
        "and seed; the base's and the target's episodes are the comparison's own). ΔTS is against the base "
        "(the target and `only T`) or against the target (`without T`: what taking that doc out loses), "
        "with a paired bootstrap interval over tasks, and split into the tasks whose ground truth uses the "
        "changed tool and the others (`docschisel study attribute`).\n\n" + markdown(rows, table)
    )


@section(50, "EvoSOP: higher-order tools synthesised from trajectories (Table 1, Fig. 2)")
def evosop(wh) -> str | None:
    from core.sop.report import results_section
    from core.study.sop_tests import paired_section

    body = results_section(wh)
    if body is None:
        return None
    paired = paired_section(wh)
    if paired is None:
        return body
    table1, sep, rest = body.partition("\n\n*")  # Table 1 first, then the per-run curves
    return f"{table1}\n\n{paired}{sep}{rest}"


@section(60, "Tool-REX document expansion and tool retrieval")
def toolrex(wh) -> str | None:
    from core.expansion.report import toolrex as render

    return render(wh)

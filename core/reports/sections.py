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
               AND json_extract_string(r.config, '$.agent.model') LIKE 'local/%')
           SELECT ev.variant AS benchmark, e.domain, ev.paradigm || '/' || ev.doc_mode AS agent, ev.split,
                  count(*) AS episodes, 100 * avg(e.success::INT) AS "TS %", 100 * avg(e.tool_correct::INT) AS "TC %",
                  avg(e.latency_s) AS "s / episode", avg(e.n_steps) AS "model calls / episode"
           FROM ev JOIN run_episodes re USING (run_id) JOIN episodes e USING (episode_id)
           GROUP BY ALL ORDER BY benchmark, domain, agent"""
    )
    if df.empty:
        return None
    return (
        "Target agent `local/smollm2-135m` (SmolLM2-135M-Instruct, llama.cpp, grammar-constrained tool calls) "
        "with the original documentation. Wall time per episode is measured on the machine that ran it.\n\n"
        + table(df)
    )


@section(30, "Field-impact study (the paper's RQ2, Fig. 1 as tables)")
def field_impact(wh) -> str | None:
    from core.study.fields import latest_impacts
    from core.study.report import current_studies, markdown, title

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
    if older:
        parts.append(
            "Smaller studies of the same cells, kept in the warehouse (`docschisel study show --study ...`): "
            + ", ".join(f"`{i}`" for i in older)
            + "."
        )
    return "\n\n".join(parts)

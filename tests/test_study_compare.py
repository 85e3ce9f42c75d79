"""The comparison harness end to end on the doc-sensitive toy shop, with scripted models.

- all four methods run, and every one is evaluated on exactly the same test tasks;
- re-running the same comparison runs no episode and stores no duplicate;
- Mann–Whitney U agrees with scipy and the Holm p-values are `stats.holm` of the stored p's;
- the iteration-budget curves start at the original docs and end at the selected docs;
- the efficiency columns come from the producers' own cost records;
- the results section renders from the stored rows, and the CLI runs (`compare`, `compare show`).
"""

from __future__ import annotations

import hashlib
import json
import random
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from core.agents.base import AgentConfig
from core.benchmarks.base import Call
from core.docs.tokens import token_length
from core.llm import script
from core.study.compare import CompareSpec, run_compare
from core.study.compare_report import stored_comparisons
from core.study.stats import holm
from tests.test_chisel_cli import restore_gateway  # noqa: F401 - a fixture
from tests.test_chisel_toy import DocReadingAgent, ShopBench

ITERATIONS = 2


class NoisyReader(DocReadingAgent):
    """The literal doc reader, distracted on a seeded 30% of tasks when it samples (T > 0)."""

    def run(self, ctx):
        c = self.config
        if c.temperature > 0 and random.Random(f"{c.seed}:{ctx.task.task_id}").random() < 0.3:
            ctx.execute(Call("shop.stock", {}))
            return "distracted"
        return super().run(ctx)


def baseline_replies(messages, params):
    """EasyTool and DRAFT answers: valid JSON for every prompt of both baselines."""
    content = messages[0]["content"]
    if "fixed template" in content:
        doc = json.loads(content.split("Now the target documentation:\n", 1)[1].split("\n", 1)[0])
        return json.dumps(
            {
                "general_purposes": "run a shop",
                "functions": [{"name": f["name"], "functionality": "do it"} for f in doc["functions"]],
            }
        )
    if content.startswith("You are exploring"):
        return json.dumps({"User Query": f"Please help with request {len(content)}", "Parameters": {}})
    if content.startswith("You are analysing"):
        return json.dumps({"Suggestions for tool description": "State the date format."})
    if content.startswith("You are rewriting"):
        return json.dumps(
            {
                "Rewritten description": "Runs one shop operation; dates are written YYYY-MM-DD.",
                "Suggestions for exploring": "try another item",
            }
        )
    return json.dumps({"Scenario": "One scenario: a user asks.", "Parameters": {}})


def fake_embedder(texts):
    """Deterministic unit vectors from a hash of the text (DRAFT's rules need only cosines)."""
    rows = []
    for t in texts:
        seed = int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)
        v = np.random.default_rng(seed).normal(size=16)
        rows.append(v / np.linalg.norm(v))
    return np.stack(rows)


def spec(baseline_model: str, **kw) -> CompareSpec:
    base = {
        "benchmark": "shop",
        "opt_runs": 2,
        "eval_runs": 3,
        "limit": 8,
        "agent": AgentConfig(model="scripted/doc-reader"),
        "iterations": ITERATIONS,
        "engine": "evidence",
        "baseline_model": baseline_model,
        "curve_eval_runs": 1,
        # the toy's order tool never succeeds with its original docs: optimize it anyway
        "headroom": None,
        "min_val_tasks": 0,
    }
    return CompareSpec(**{**base, **kw})


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    from core.warehouse import Warehouse

    wh = Warehouse(tmp_path_factory.mktemp("compare") / "wh.duckdb")
    bench = ShopBench(n=24, quote_tasks=6)
    model = script(baseline_replies, name="compare-baselines")
    s = spec(model.model)
    result = run_compare(wh, s, bench=bench, agent_factory=NoisyReader, embedder=fake_embedder)
    return wh, bench, s, result


def _compare_runs(wh, compare_id):
    return wh.query(
        """SELECT r.run_id, json_extract_string(r.config, '$.method') AS method,
                  list(e.task_id ORDER BY e.task_id) AS tasks
           FROM runs r JOIN run_episodes re USING (run_id) JOIN episodes e USING (episode_id)
           WHERE r.kind IN ('compare', 'compare-curve')
             AND json_extract_string(r.config, '$.compare_id') = ?
           GROUP BY ALL""",
        [compare_id],
    )


def test_all_methods_run_on_the_same_test_tasks(compared) -> None:
    wh, bench, s, result = compared
    methods = result.methods.set_index("method")
    assert list(methods.index) == ["og", "et", "drt", "dc"]
    assert methods.loc["og", "n_points"] == s.eval_runs
    for m in ("et", "drt", "dc"):
        assert methods.loc[m, "n_points"] == s.opt_runs * s.eval_runs
    assert len(result.task_ids) == s.limit
    runs = _compare_runs(wh, result.compare_id)
    assert set(runs["method"]) == {"og", "et", "drt", "dc", "dc-memory", "dc-no-memory"}
    assert all(list(t) == sorted(result.task_ids) for t in runs["tasks"])
    split_id = wh.scalar("SELECT split_id FROM comparisons WHERE compare_id = ?", [result.compare_id])
    parts = dict(wh.rows("SELECT task_id, part FROM split_assignments WHERE split_id = ?", [split_id]))
    assert {parts[t] for t in result.task_ids} == {"test"}
    # the producers never ran a test task
    producer_tasks = wh.rows(
        """SELECT DISTINCT e.task_id FROM episodes e JOIN run_episodes re USING (episode_id)
           JOIN runs r ON r.run_id = re.run_id WHERE r.kind IN ('chisel-profile', 'chisel-eval')"""
    )
    assert producer_tasks and not {t for (t,) in producer_tasks} & set(result.task_ids)
    # the evaluation runs really differ (sampled agent, seed = evaluation run)
    og = json.loads(methods.loc["og", "points"]) if isinstance(methods.loc["og", "points"], str) else None
    points = og or methods.loc["og", "points"]
    assert len({p["run_id"] for p in points}) == s.eval_runs
    # DocsChisel fixes the shop's order doc, the others do not
    assert methods.loc["dc", "ts_mean"] > methods.loc["og", "ts_mean"]
    assert methods.loc["dc", "ts_mean"] > methods.loc["et", "ts_mean"]


def test_rerun_runs_and_stores_nothing_new(compared) -> None:
    wh, bench, s, result = compared
    counts = {t: wh.scalar(f"SELECT count(*) FROM {t}") for t in ("episodes", "events", "comparison_methods")}
    again = run_compare(wh, s, bench=bench, agent_factory=NoisyReader, embedder=fake_embedder)
    assert again.ran == 0 and again.reused > 0
    assert again.result_id == result.result_id
    assert {t: wh.scalar(f"SELECT count(*) FROM {t}") for t in counts} == counts
    dup = wh.scalar(
        "SELECT count(*) FROM (SELECT task_id, docset_id, config_id, repeat FROM episodes GROUP BY ALL HAVING count(*) > 1)"
    )
    assert dup == 0


def test_progress_counts_every_step_to_a_fixed_end(compared) -> None:
    """A resumed comparison reports the same planned steps, ending at done == total."""
    from core.study.compare import Harness

    wh, bench, s, _ = compared
    seen: list[tuple[int, int, str]] = []
    run_compare(
        wh,
        s,
        bench=bench,
        agent_factory=NoisyReader,
        embedder=fake_embedder,
        progress=lambda *a: seen.append(a),
    )
    # 2 baselines + 1 DocsChisel, 2 runs each; OG 3 evals + 3 methods x 2 runs x 3 evals;
    # curves: 2 runs x (2 + 1) budgets x 2 series, plus 2 no-memory optimize runs
    expected = 3 * 2 + 3 + 3 * 2 * 3 + 2 * 3 * 2 + 2
    assert Harness(wh, s, bench=bench).planned_steps() == expected
    assert [d for d, _, _ in seen] == list(range(1, expected + 1))
    assert {t for _, t, _ in seen} == {expected}
    assert seen[0][2] == "ET (EasyTool) run 0" and seen[-1][2].startswith("curve no-memory s1")


@pytest.mark.slow
def test_cancel_stops_and_a_rerun_resumes_to_the_same_result(compared, tmp_path) -> None:
    """Cancelling mid-evaluation raises, records a `cancelled` row and keeps what finished."""
    from core.study.compare import CompareCancelled
    from core.warehouse import Warehouse

    _, _, s, result = compared
    wh = Warehouse(tmp_path / "cancel.duckdb")
    bench = ShopBench(n=24, quote_tasks=6)
    steps: list[int] = []
    polls = {"n": 0}

    def cancelled() -> bool:  # asked once eight steps are done; polled inside the runner too
        polls["n"] += 1
        return len(steps) >= 8

    with pytest.raises(CompareCancelled, match="cancelled after 8 of"):
        run_compare(
            wh,
            s,
            bench=bench,
            agent_factory=NoisyReader,
            embedder=fake_embedder,
            progress=lambda d, t, m: steps.append(d),
            cancelled=cancelled,
        )
    states = wh.rows("SELECT status FROM comparisons ORDER BY created_at")
    assert [r[0] for r in states] == ["started", "cancelled"]
    assert wh.scalar("SELECT count(*) FROM comparison_methods") == 0
    kept = wh.scalar("SELECT count(*) FROM episodes")
    assert kept > 0
    again = run_compare(wh, s, bench=bench, agent_factory=NoisyReader, embedder=fake_embedder)
    assert again.reused >= kept - wh.scalar("SELECT count(*) FROM episodes WHERE split <> 'test'")
    cols = ["method", "n_points", "ts_mean", "tc_mean", "doc_tokens"]  # minutes differ between runs
    pd.testing.assert_frame_equal(again.methods[cols], result.methods[cols])
    assert list(again.tests["p_holm"].fillna(-1)) == list(result.tests["p_holm"].fillna(-1))


def test_mann_whitney_and_holm(compared) -> None:
    from scipy.stats import mannwhitneyu

    wh, _, _, result = compared
    stored = stored_comparisons(wh, result.compare_id)[0]
    points = {
        r.method: json.loads(r.points) if isinstance(r.points, str) else r.points
        for r in stored.methods.itertuples()
    }
    for metric in ("ts", "tc"):
        rows = stored.tests[(stored.tests["metric"] == metric) & (stored.tests["versus"] != "baselines")]
        assert sorted(rows["versus"]) == ["drt", "et", "og"]
        for r in rows.itertuples():
            dc = [p[metric] for p in points["dc"]]
            other = [p[metric] for p in points[r.versus]]
            ref = mannwhitneyu(dc, other, alternative="two-sided", method=r.test)
            assert r.u == pytest.approx(ref.statistic) and r.p == pytest.approx(ref.pvalue)
        assert list(rows["p_holm"]) == pytest.approx(holm(list(rows["p"])))
    ts_rows = stored.tests[(stored.tests["metric"] == "ts") & (stored.tests["versus"] != "baselines")]
    smallest = ts_rows.sort_values("p").iloc[0]
    assert smallest.p_holm == pytest.approx(min(1.0, 3 * smallest.p)) and smallest.p_holm > smallest.p
    ts = ts_rows[ts_rows["versus"] == "og"].iloc[0]
    assert ts.relative_pct == pytest.approx(100 * (ts.method_mean - ts.versus_mean) / ts.versus_mean)
    pooled = stored.tests[(stored.tests["metric"] == "ts") & (stored.tests["versus"] == "baselines")].iloc[0]
    m = stored.methods.set_index("method")
    assert pooled.versus_mean == pytest.approx((m.loc["et", "ts_mean"] + m.loc["drt", "ts_mean"]) / 2)


def test_budget_curves_start_at_the_original_and_end_at_the_selection(compared) -> None:
    wh, bench, s, result = compared
    cur = result.curves
    assert set(cur["series"]) == {"memory", "no-memory"}
    assert sorted(cur["budget"].unique()) == list(range(ITERATIONS + 1))
    original = bench.original_docs().docset_id
    assert set(cur[cur["budget"] == 0]["docset_id"]) == {original}
    final = {
        p["opt_run"]: p["docset_id"]
        for p in result.methods.set_index("method").loc["dc", "points"]
        if isinstance(p, dict)
    }
    mem_end = cur[(cur["series"] == "memory") & (cur["budget"] == ITERATIONS)]
    assert {r.opt_run: r.docset_id for r in mem_end.itertuples()} == final
    assert (mem_end["changed_tools"] > 0).all()


def test_efficiency_comes_from_the_producers(compared) -> None:
    wh, bench, s, result = compared
    m = result.methods.set_index("method")
    from core.study.fields import study_tools

    tools = study_tools(bench, [t for t in bench.tasks() if t.task_id in set(result.task_ids)])
    original = bench.original_docs()
    assert m.loc["og", "doc_tokens"] == pytest.approx(np.mean([token_length(original[t]) for t in tools]))
    assert m.loc["og", "minutes_per_tool"] == 0 and m.loc["og", "opt_tokens_per_tool"] == 0
    details = [
        json.loads(d)
        for (d,) in wh.rows(
            "SELECT detail FROM run_status s JOIN runs r USING (run_id) "
            "WHERE r.kind = 'baseline' AND s.status = 'finished' "
            "AND json_extract_string(r.config, '$.method') = 'easytool'"
        )
    ]
    per_run = [np.mean([c["tokens"] for c in d["costs"].values()]) for d in details]
    assert m.loc["et", "opt_tokens_per_tool"] == pytest.approx(np.mean(per_run)) and per_run[0] > 0
    dc_runs = wh.query("SELECT * FROM chisel_tools")
    assert m.loc["dc", "agent_tokens_per_tool"] >= 0 and m.loc["dc", "tools_optimized"] == pytest.approx(
        dc_runs.groupby("run_id").size().iloc[0]
    )


def test_dashboard_efficiency_agrees_with_the_comparison(compared) -> None:
    """The Compare page's Table III reads the same cost records as the harness (core.warehouse.costs)."""
    from core.ui.queries.results import efficiency

    wh, bench, _, result = compared
    m = result.methods.set_index("method")
    eff = efficiency.raw(wh, bench.name)
    producers = stored_comparisons(wh, result.compare_id)[0].detail["producers"]
    for method, label in (("et", "ET"), ("drt", "DRT")):
        # doc sets are content-addressed: runs that wrote the same docs share one row (the first run's record)
        mine = eff[(eff["method"] == label) & eff["run_id"].isin(producers[method])]
        assert 1 <= len(mine) <= len(producers[method])
        assert mine["opt_tokens_per_tool"].mean() == pytest.approx(m.loc[method, "opt_tokens_per_tool"])
        assert (mine["minutes_per_tool"] > 0).all() and (
            mine["tools_optimized"] == m.loc[method, "tools_optimized"]
        ).all()


def test_results_section_renders(compared) -> None:
    from core.reports import render_results

    wh, _, _, result = compared
    text = render_results(wh)
    assert "## Method comparison" in text
    assert result.compare_id in text
    assert "DC (DocsChisel) vs OG (original)" in text and "p (Holm)" in text
    assert "Iteration budget (Fig. 9)" in text and "TS no-memory %" in text


def test_a_fresh_warehouse_restored_from_the_run_archive_shows_the_same_comparison(
    compared, tmp_path
) -> None:
    from core.study.compare_across import comparison_section
    from core.warehouse import Warehouse
    from core.warehouse.archive import archive_runs, restore_runs

    wh, _, _, result = compared
    archive_runs(wh, tmp_path / "runs")
    fresh = Warehouse(tmp_path / "fresh.duckdb")
    added = restore_runs(tmp_path / "runs", fresh)
    assert added["comparison_methods"] > 0 and added["comparison_tests"] > 0
    section = comparison_section(fresh)
    assert section is not None and result.compare_id in section
    assert section == comparison_section(wh)
    assert restore_runs(tmp_path / "runs", fresh)["comparisons"] == 0  # restoring twice adds nothing


def test_chisel_table_iii_shares_the_cost_helper(compared) -> None:
    """DocsChisel's own results section reads the same per-tool costs as the comparison."""
    from core.chisel.heldout import evaluate_on_test
    from core.chisel.report import table_iii
    from core.warehouse.costs import chisel_run_costs

    wh, bench, _, result = compared
    dc = result.methods.set_index("method").loc["dc"]
    run_id = wh.query(
        "SELECT run_id FROM runs WHERE kind = 'optimize' AND json_extract(config, '$.memory')::BOOLEAN "
        "ORDER BY run_id LIMIT 1"
    )["run_id"].iloc[0]
    evaluate_on_test(wh, run_id, bench, agent_factory=NoisyReader)
    row = table_iii(wh).iloc[0]
    cost = chisel_run_costs(wh, [run_id]).iloc[0]
    assert row["min / tool"] == pytest.approx(cost["minutes_per_tool"])
    assert row["tools (changed)"] == f"{int(cost['tools'])} ({int(cost['changed'])})"
    assert dc["tools_optimized"] == pytest.approx(cost["tools"])


def test_optimizer_models_give_one_docschisel_row_each(tmp_path) -> None:
    from core.study.compare_report import optimizer_frame, stored_comparisons
    from core.warehouse import Warehouse

    wh = Warehouse(tmp_path / "models.duckdb")
    s = spec(
        "unused",
        methods=("og", "dc"),
        opt_runs=1,
        eval_runs=2,
        optimizer_models=("local/model-a", "local/model-b"),
        memory_ablation=False,
        curve_eval_runs=0,
    )
    result = run_compare(wh, s, bench=ShopBench(n=24, quote_tasks=6), agent_factory=NoisyReader)
    rows = result.methods.set_index("method")
    assert list(rows.index) == ["og", "dc", "dc:local/model-b"]
    assert rows.loc["dc:local/model-b", "optimizer_model"] == "local/model-b"
    assert set(result.tests["versus"]) == {"og"} and result.curves.empty
    table = optimizer_frame(stored_comparisons(wh)[0])
    assert list(table["optimizer model"]) == ["local/model-a", "local/model-b"]


def test_dashboard_points_follow_the_comparison_methods(compared) -> None:
    """The Compare page's boxes hold each comparison run under its own method, curve runs left out."""
    from core.ui.queries.results import method_points

    wh, bench, s, _ = compared
    points = method_points.raw(wh, bench.name, "test")
    points = points[points["run"].str.startswith("compare ")]  # other tests add chisel-test evaluations
    counts = points.groupby("method").size().to_dict()
    assert counts == {
        "OG": s.eval_runs,
        "ET": s.opt_runs * s.eval_runs,
        "DRT": s.opt_runs * s.eval_runs,
        "DC": s.opt_runs * s.eval_runs,
    }


def _run_to_the_planned_end(wh, s: CompareSpec, bench):
    """Run a comparison and check that its progress ends at the step count it planned."""
    seen: list[tuple[int, int]] = []
    result = run_compare(
        wh,
        s,
        bench=bench,
        agent_factory=NoisyReader,
        embedder=fake_embedder,
        progress=lambda done, total, _msg: seen.append((done, total)),
    )
    assert seen[-1][0] == seen[-1][1]  # a recount (with the guard, say) still ends where it says
    return result


def test_limit_tools_scopes_every_method_and_the_test_tasks(tmp_path) -> None:
    """With a tool cap, EasyTool rewrites only DocsChisel's tools and the test tasks are the ones using them."""
    from core.study.compare_report import guard_frame, markdown, stored_comparisons, text
    from core.study.compare_spec import compare_tasks, compared_tools, guard_tasks
    from core.warehouse import Warehouse

    wh = Warehouse(tmp_path / "tools.duckdb")
    bench = ShopBench(n=24, quote_tasks=6)
    model = script(baseline_replies, name="compare-baselines-tools")
    s = spec(
        model.model,
        methods=("og", "et", "dc"),
        opt_runs=1,
        eval_runs=1,
        limit=None,
        limit_tools=1,
        memory_ablation=False,
        curve_eval_runs=0,
    )
    assert compared_tools(wh, s, bench) == ["shop.order"]  # the tool with the most opt/val tasks
    _, tasks = compare_tasks(wh, s, bench)
    assert tasks and all("shop.order" in t.tools for t in tasks)
    result = _run_to_the_planned_end(wh, s, bench)
    # the regression guard: the quote tasks of the test part, which no compared tool is used in,
    # evaluated for every method in runs of their own and reported apart
    guard_ids = guard_tasks(wh, s, bench, ["shop.order"])
    assert guard_ids and all(t.tools == ("shop.quote",) for t in guard_ids)
    assert not {t.task_id for t in guard_ids} & set(result.task_ids)
    stored = stored_comparisons(wh, result.compare_id)[0]
    guard = stored.detail["guard"]
    assert guard["task_ids"] == [t.task_id for t in guard_ids]
    assert {r["method"] for r in guard["methods"]} == {"og", "et", "dc"}
    assert all("delta" in r and "lost" in r for r in guard["methods"] if r["method"] != "og")
    guard_runs = wh.query(
        """SELECT json_extract_string(r.config, '$.method') AS method, list(DISTINCT e.task_id) AS tasks
           FROM runs r JOIN run_episodes re ON re.run_id = r.run_id JOIN episodes e USING (episode_id)
           WHERE r.kind = 'compare-guard' GROUP BY ALL"""
    )
    assert set(guard_runs["method"]) == {"og", "et", "dc"}
    assert all(sorted(t) == guard["task_ids"] for t in guard_runs["tasks"])
    assert all(set(tasks) == set(result.task_ids) for tasks in _compare_runs(wh, result.compare_id)["tasks"])
    assert "Regression guard" in markdown(stored) and "regression guard" in text(stored)
    assert not guard_frame(stored).empty
    original = bench.original_docs()
    et_id = wh.scalar("SELECT docset_id FROM doc_sets WHERE origin = 'easytool'")
    et = wh.load_docset(et_id)
    assert et["shop.order"].doc_id != original["shop.order"].doc_id
    assert et["shop.quote"].doc_id == original["shop.quote"].doc_id
    configs = wh.rows("SELECT config FROM runs WHERE kind = 'optimize'")
    assert configs and all(json.loads(c[0])["limit_tools"] == 1 for c in configs)
    with pytest.raises(ValueError):
        spec("unused", limit_tools=0)


def test_the_original_docs_can_be_evaluated_on_as_many_samples_as_the_other_methods(tmp_path) -> None:
    """`og_eval_runs` gives OG runs of its own seeds (on the test and the guard tasks), counts them in the
    planned steps and says so in the result's title (ids without it: test_splits)."""
    from core.study.compare_report import og_runs, stored_comparisons, title
    from core.warehouse import Warehouse

    wh = Warehouse(tmp_path / "og.duckdb")
    bench = ShopBench(n=24, quote_tasks=6)
    model = script(baseline_replies, name="compare-og-runs")
    base = {"methods": ("og", "dc"), "opt_runs": 1, "eval_runs": 1, "limit_tools": 1}
    plain = spec(model.model, **base, memory_ablation=False, curve_eval_runs=0)
    s = spec(model.model, **base, og_eval_runs=3, memory_ablation=False, curve_eval_runs=0)
    assert s.compare_id != plain.compare_id
    result = _run_to_the_planned_end(wh, s, bench)
    methods = result.methods.set_index("method")
    assert methods.loc["og", "n_points"] == 3 and methods.loc["dc", "n_points"] == 1
    seeds = wh.rows(
        """SELECT json_extract_string(r.config, '$.method'), r.kind, count(DISTINCT r.run_id)
           FROM runs r WHERE r.kind IN ('compare', 'compare-guard') GROUP BY ALL ORDER BY ALL"""
    )
    assert seeds == [
        ("dc", "compare", 1),
        ("dc", "compare-guard", 1),
        ("og", "compare", 3),
        ("og", "compare-guard", 3),
    ]
    stored = stored_comparisons(wh, result.compare_id)[0]
    assert og_runs(stored) == 3 and "1 optimization × 1 evaluation runs (OG 3) at T=" in title(stored)
    with pytest.raises(ValueError):
        spec("unused", og_eval_runs=-1)


def test_results_section_is_absent_without_a_comparison(warehouse) -> None:
    from core.study.compare_across import comparison_section

    assert comparison_section(warehouse) is None


def test_results_show_the_newest_comparison_per_scope() -> None:
    from core.study.compare_across import current_comparisons
    from core.study.compare_report import StoredComparison

    def stored(cid: str, domains: list[str], eval_runs: int) -> StoredComparison:
        agent = {"model": "m", "paradigm": "react", "doc_mode": "native"}
        spec = {"domains": domains, "eval_runs": eval_runs, "limit_tools": 1, "agent": agent}
        return StoredComparison(cid, "r" + cid, "api-bank/domain", spec, [], None)

    newest_first = [stored("c3", ["finance"], 5), stored("c2", ["health"], 3), stored("c1", ["finance"], 3)]
    current, older = current_comparisons(newest_first)
    assert [c.compare_id for c in current] == ["c3", "c2"] and older == ["c1"]
    # a re-run after DocsChisel itself changed measures another method: both stay
    revised = stored("c4", ["finance"], 3)
    revised.dc_algorithm = "docschisel-7"
    for c in newest_first:
        c.dc_algorithm = "docschisel-6"
    current, older = current_comparisons([revised, *newest_first])
    assert [c.compare_id for c in current] == ["c4", "c3", "c2"] and older == ["c1"]
    # a comparison on the grouped split measures other test tasks: it hides none on the task-level split
    grouped = stored("c5", ["finance"], 5)
    grouped.spec["split_grouping"] = "gold"
    grouped.dc_algorithm = "docschisel-7"
    current, older = current_comparisons([grouped, revised, *newest_first])
    assert [c.compare_id for c in current] == ["c5", "c4", "c3", "c2"] and older == ["c1"]
    # DocsChisel with misuse tasks is another method: it hides no comparison without them
    misuse = stored("c6", ["finance"], 5)
    misuse.spec |= {"split_grouping": "gold", "misuse_tasks": 4}
    misuse.dc_algorithm = "docschisel-7"
    current, older = current_comparisons([misuse, grouped, revised, *newest_first])
    assert [c.compare_id for c in current] == ["c6", "c5", "c4", "c3", "c2"] and older == ["c1"]
    # and so is DocsChisel judged on other tools' optimization tasks too
    crossed = stored("c7", ["finance"], 5)
    crossed.spec |= {"split_grouping": "gold", "misuse_tasks": 4, "cross_val_tasks": 6}
    crossed.dc_algorithm = "docschisel-7"
    current, older = current_comparisons([crossed, misuse, grouped, revised, *newest_first])
    assert [c.compare_id for c in current] == ["c7", "c6", "c5", "c4", "c3", "c2"] and older == ["c1"]
    # and so is DocsChisel judging each tool beside the docs selected before it
    judged = stored("c8", ["finance"], 5)
    judged.spec |= {**crossed.spec, "in_context": True}
    judged.dc_algorithm = "docschisel-7"
    current, older = current_comparisons([judged, crossed, misuse, grouped, revised, *newest_first])
    assert [c.compare_id for c in current] == ["c8", "c7", "c6", "c5", "c4", "c3", "c2"] and older == ["c1"]
    # and so is DocsChisel judging candidates on more samples per task
    sampled = stored("c9", ["finance"], 5)
    sampled.spec |= {**judged.spec, "profile_repeats": 5}
    sampled.dc_algorithm = "docschisel-7"
    current, _ = current_comparisons([sampled, judged, crossed, misuse, grouped, revised, *newest_first])
    assert [c.compare_id for c in current][:2] == ["c9", "c8"]


def test_a_newer_comparison_hides_an_older_one_only_when_it_measures_all_of_it() -> None:
    from core.study.compare_across import current_comparisons
    from core.study.compare_report import StoredComparison

    def stored(cid: str, methods: str, optimizers: str, opt_runs: int) -> StoredComparison:
        spec = {
            "domains": ["health"],
            "methods": methods.split(","),
            "optimizer_models": optimizers.split(","),
            "opt_runs": opt_runs,
            "eval_runs": 3,
            "agent": {"model": "m", "paradigm": "react"},
        }
        return StoredComparison(cid, "r" + cid, "api-bank/domain", spec, [], None)

    stage1 = stored("s1", "og,et,dc", "evidence", 1)
    stage2 = stored("s2", "og,et,dc,gepa", "evidence,q15", 1)
    stage1b = stored("s1b", "og,et,dc", "evidence", 3)  # newest: more runs, fewer methods
    current, older = current_comparisons([stage1b, stage2, stage1])
    assert [c.compare_id for c in current] == ["s1b", "s2"] and older == ["s1"]
    stage3 = stored("s3", "og,et,drt,dc,gepa", "evidence,q15", 1)  # stage 2 plus DRAFT and the curve
    current, older = current_comparisons([stage3, stage1b, stage2, stage1])
    assert [c.compare_id for c in current] == ["s3", "s1b"] and older == ["s2", "s1"]
    # more samples of the original docs measure more; fewer do not supersede them
    og9 = stored("og9", "og,et,dc", "evidence", 3)
    og9.spec["og_eval_runs"] = 9
    current, older = current_comparisons([stage1b, og9])
    assert [c.compare_id for c in current] == ["s1b", "og9"] and older == []
    current, older = current_comparisons([og9, stage1b])
    assert [c.compare_id for c in current] == ["og9"] and older == ["s1b"]


def test_a_comparison_rerun_under_another_revision_keeps_both_results(compared, tmp_path) -> None:
    """Same settings, same id: a snapshot stored after the DocsChisel algorithm changed is another
    method's result and never hides the earlier revision's; a later snapshot of the same revision does."""
    import shutil
    from datetime import timedelta
    from pathlib import Path

    from core.study.compare_report import stored_comparisons
    from core.warehouse import Warehouse

    wh, _, _, result = compared
    copy = tmp_path / "wh.duckdb"
    for suffix in ("", ".wal"):  # rows not yet checkpointed are in the write-ahead log
        if Path(f"{wh.path}{suffix}").exists():
            shutil.copy(f"{wh.path}{suffix}", f"{copy}{suffix}")
    wh = Warehouse(copy)
    (first,) = stored_comparisons(wh, result.compare_id)
    head = wh.query("SELECT * FROM comparisons WHERE result_id = ?", [first.result_id]).iloc[0].to_dict()

    def snapshot(result_id: str, hours: int, algorithm: str | None) -> None:
        detail = json.loads(head["detail"])
        if algorithm:  # DC's doc sets come from a run of another revision
            run = wh.query("SELECT * FROM runs WHERE run_id = ?", [detail["producers"]["dc"][0]]).iloc[0]
            config = {**json.loads(run["config"]), "algorithm": algorithm}
            wh.insert("runs", [{**run.to_dict(), "run_id": f"run-{result_id}", "config": json.dumps(config)}])
            detail["producers"] = {**detail["producers"], "dc": [f"run-{result_id}"]}
        row = {**head, "result_id": result_id, "created_at": head["created_at"] + timedelta(hours=hours)}
        wh.insert("comparisons", [{**row, "detail": json.dumps(detail)}])
        methods = wh.query("SELECT * FROM comparison_methods WHERE result_id = ?", [first.result_id])
        wh.insert("comparison_methods", methods.assign(result_id=result_id))

    snapshot("same-revision", 1, None)
    assert [c.result_id for c in stored_comparisons(wh, result.compare_id)] == ["same-revision"]
    snapshot("next-revision", 2, "docschisel-next")
    found = stored_comparisons(wh, result.compare_id)
    assert [(c.result_id, c.dc_algorithm) for c in found] == [
        ("next-revision", "docschisel-next"),
        ("same-revision", first.dc_algorithm),
    ]


def test_the_docschisel_revision_of_a_comparison_is_read_from_its_optimization_runs(compared) -> None:
    from core.chisel.config import ALGORITHM_VERSION
    from core.study.compare_report import DEFAULT_SAMPLES, samples, title

    wh, _, _, result = compared
    stored = stored_comparisons(wh, result.compare_id)[0]
    assert stored.dc_algorithm == ALGORITHM_VERSION
    assert f"DocsChisel {ALGORITHM_VERSION}" in title(stored)
    assert "split grouped by gold call" in title(stored)  # the spec's default split
    assert "misuse tasks" not in title(stored)
    stored.spec["misuse_tasks"] = 4
    assert "4 misuse tasks per tool" in title(stored)
    assert "misused" not in title(stored)
    stored.spec["misused_tools"] = 3
    assert "tools misused on 3+ episodes optimized too" in title(stored)
    assert "cross-tool" not in title(stored)
    stored.spec["cross_val_tasks"] = 6
    assert "6 cross-tool validation tasks per tool" in title(stored)
    assert "in context" not in title(stored)
    stored.spec["in_context"] = True
    assert "tools judged in context" in title(stored)
    assert f"{stored.spec['profile_repeats']} samples per candidate" in title(stored)
    stored.spec["profile_repeats"] = 5
    assert "5 samples per candidate" in title(stored)
    # a comparison stored before the setting existed reads as the spec's default, which the report mirrors
    del stored.spec["profile_repeats"]
    assert samples(stored) == DEFAULT_SAMPLES == CompareSpec.__dataclass_fields__["profile_repeats"].default


def test_spec_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="methods"):
        CompareSpec(methods=("og", "nope"))
    with pytest.raises(ValueError, match="eval_runs"):
        CompareSpec(eval_runs=0)
    assert CompareSpec(methods=("dc", "og")).compare_id == CompareSpec(methods=("og", "dc")).compare_id
    assert CompareSpec(optimizer_models=("a", "b")).dc_variants() == [("dc", "a"), ("dc:b", "b")]
    with pytest.raises(ValueError, match="guard"):
        CompareSpec(guard_limit=-1)
    with pytest.raises(ValueError, match="needs misuse_tasks"):
        CompareSpec(misused_tools=2)
    assert CompareSpec(misuse_tasks=4).compare_id != CompareSpec(misuse_tasks=4, misused_tools=2).compare_id


def test_the_cli_defaults_are_the_library_defaults() -> None:
    """The CLI spells its defaults as literals (it loads no model stack); they must not drift."""
    from core.chisel.config import GUARD_VAL_TASKS, MIN_VAL_TASKS
    from core.cli.compare import command as compare_command
    from core.cli.optimize import command as optimize_command
    from core.study.compare_spec import GUARD_LIMIT

    def default(cmd, name):
        return next(p.default for p in cmd.params if p.name == name)

    from core.chisel.config import OptimizeConfig

    for cmd in (compare_command, optimize_command):
        assert default(cmd, "guard_val_tasks") == GUARD_VAL_TASKS
        assert default(cmd, "min_val_tasks") == MIN_VAL_TASKS
        for name in ("misuse_tasks", "misused_tools", "cross_val_tasks", "in_context"):
            assert default(cmd, name) == getattr(OptimizeConfig(), name) == getattr(CompareSpec(), name)
    assert default(compare_command, "guard_limit") == GUARD_LIMIT
    from core.benchmarks.splits import DEFAULT_GROUPING, GROUPINGS

    for cmd in (compare_command, optimize_command):
        assert default(cmd, "split_grouping") == DEFAULT_GROUPING
        assert set(next(p for p in cmd.params if p.name == "split_grouping").type.choices) == set(GROUPINGS)


# --------------------------------------------------------------------------- CLI
def _notes_step(messages):
    return json.dumps({"thought": "search", "action": "search_notes", "action_input": {"query": "coffee"}})


@pytest.mark.usefixtures("restore_gateway")
def test_cli_compare_and_show(tmp_path) -> None:
    from core.cli.main import cli
    from core.config import PROJECT_ROOT

    agent = script(_notes_step, name="compare-cli-agent")
    baselines = script(baseline_replies, name="compare-cli-baselines")
    wh = str(tmp_path / "cli.duckdb")
    folder = str(PROJECT_ROOT / "tests" / "fixtures" / "userbench" / "notes")
    args = [
        "compare",
        "--benchmark",
        folder,
        "--methods",
        "og,et,dc",
        "--opt-runs",
        "1",
        "--eval-runs",
        "2",
        "--limit",
        "3",
        "--iterations",
        "1",
        "--model",
        agent.model,
        "--doc-mode",
        "text",
        "--max-steps",
        "1",
        "--baseline-model",
        baselines.model,
        "--engine",
        "evidence",
        "--curve-eval-runs",
        "0",
        "--warehouse",
        wh,
    ]
    runner = CliRunner()
    out = runner.invoke(cli, args, catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert "TS mean %" in out.output and "p (Holm)" in out.output
    compare_id = re.search(r"comparison (\w+) stored", out.output).group(1)
    shown = runner.invoke(cli, ["compare", "show", "--warehouse", wh], catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    assert compare_id in shown.output and "OG (original)" in shown.output
    assert "majority outcome" in shown.output  # the tasks behind the numbers (flips), not only the numbers
    assert "Failure reasons per method" in shown.output
    from core.study.compare_report import stored_comparisons
    from core.warehouse import Warehouse

    task = stored_comparisons(Warehouse(wh), compare_id)[0].task_ids[0]
    episodes = runner.invoke(cli, ["compare", "show", "--task", task[:-1], "--warehouse", wh])
    assert episodes.exit_code == 0, episodes.output
    lines = [ln for ln in episodes.output.splitlines() if " · eval run " in ln]
    assert len(lines) == 3 * 2 and lines[0].startswith(
        "OG (original) · opt run 0 · eval run 0"
    )  # 3 methods x 2 runs
    assert all(": solved - " in ln or ": failed - " in ln for ln in lines)
    with Warehouse(wh).transaction() as con:  # as an episode restored from the results archive: no trace
        con.execute("UPDATE episodes SET calls = NULL WHERE task_id = ?", [task])
        con.execute(
            "DELETE FROM events WHERE episode_id IN (SELECT episode_id FROM episodes WHERE task_id = ?)",
            [task],
        )
    restored = runner.invoke(cli, ["compare", "show", "--task", task, "--warehouse", wh])
    lines = [ln for ln in restored.output.splitlines() if " · eval run " in ln]
    assert len(lines) == 6 and all(ln.endswith("calls not stored (outcome only)") for ln in lines)
    nope = runner.invoke(cli, ["compare", "show", "--task", "no-such-task", "--warehouse", wh])
    assert nope.exit_code == 2 and "no test task of comparison" in nope.output
    bad = runner.invoke(cli, [*args[:4], "og,nope", *args[5:]])
    assert bad.exit_code == 2 and "--methods" in bad.output
    bad = runner.invoke(cli, [*args[:6], "0", *args[7:]])
    assert bad.exit_code == 2 and "--opt-runs" in bad.output
    empty = runner.invoke(cli, ["compare", "show", "--warehouse", str(tmp_path / "empty.duckdb")])
    assert empty.exit_code != 0 and "no comparison" in empty.output


def test_headroom_band_chooses_the_compared_tools_from_a_profile(tmp_path) -> None:
    """The harness profiles the original docs and compares only tools the agent sometimes gets right."""
    from core.evaluation import RunnerEvaluator
    from core.study.compare_spec import compare_tasks, compared_tools
    from core.warehouse import Warehouse

    wh = Warehouse(tmp_path / "band.duckdb")
    bench = ShopBench(n=24, quote_tasks=12)
    s = spec("unused", headroom=(0.15, 0.85), min_val_tasks=4)

    def evaluator(**kw):
        return RunnerEvaluator(wh, bench, agent_factory=NoisyReader, **kw)

    # orders: never right with the original docs, but part of each call is (the item): doc-fixable;
    # quotes: right unless the sampled reader is distracted
    assert compared_tools(wh, s, bench, evaluator) == ["shop.order", "shop.quote"]
    # a band whose floor lies above the orders' partial credit leaves only the quotes
    skipped: dict[str, str] = {}
    assert compared_tools(wh, spec("unused", headroom=(0.6, 0.9)), bench, evaluator, skipped) == [
        "shop.quote"
    ]
    assert list(skipped) == ["shop.order"] and "below the headroom band [0.60, 0.90]" in skipped["shop.order"]
    profile = wh.query("SELECT count(*) AS n, count(DISTINCT task_id) AS tasks FROM episodes").iloc[0]
    assert profile["n"] == 3 * profile["tasks"]  # profile_repeats samples per opt/val task
    _, tasks = compare_tasks(wh, s, bench, ["shop.quote"])
    assert tasks and all(t.tools == ("shop.quote",) for t in tasks)
    with pytest.raises(ValueError, match="headroom band") as none_kept:
        compared_tools(wh, spec("unused", headroom=(0.99, 1.0)), bench, evaluator)
    # and it says, per tool, why (TS⁰ and partial credit over the profiled episodes)
    lines = str(none_kept.value).splitlines()[1:]
    assert [line.split(":")[0].strip() for line in lines] == ["shop.order", "shop.quote"]
    assert all("over" in line and "episodes is" in line for line in lines)


def test_evidence_names_the_evidence_engine_among_optimizer_models() -> None:
    """Table IV can put the evidence engine beside LLM-engine runs: `evidence` needs no model."""
    from core.study.compare_spec import engine_for, reflection_model

    spec = CompareSpec(optimizer_models=("evidence", "local/qwen2.5-coder-1.5b"), engine="auto")
    assert spec.dc_variants() == [
        ("dc", "evidence"),
        ("dc:local/qwen2.5-coder-1.5b", "local/qwen2.5-coder-1.5b"),
    ]
    assert engine_for(spec, "evidence") == ("evidence", None)
    assert engine_for(spec, "local/qwen2.5-coder-1.5b") == ("auto", "local/qwen2.5-coder-1.5b")
    assert reflection_model(spec) == "local/qwen2.5-coder-1.5b"  # GEPA reflects with a real model
    assert reflection_model(CompareSpec(optimizer_models=("evidence",))) is None


def test_comparisons_of_several_domains_pool_into_one_paired_test() -> None:
    """Per-task outcomes stored with each comparison pool into one paired test over the union of tasks."""
    import pandas as pd

    from core.study.compare_across import pooled_frame
    from core.study.compare_report import StoredComparison

    def stored(domain: str, dc: dict[str, float], og: dict[str, float]) -> StoredComparison:
        return StoredComparison(
            compare_id=domain,
            result_id=domain,
            benchmark="api-bank/domain",
            spec={"domains": [domain], "agent": {"model": "m", "paradigm": "react"}, "temperature": 0.7},
            task_ids=sorted(dc),
            created_at=None,
            detail={"per_task": {"dc": {"ts": dc, "tc": dc}, "og": {"ts": og, "tc": og}}},
            methods=pd.DataFrame({"method": ["og", "dc"], "label": ["OG (original)", "DC (evidence)"]}),
        )

    a = stored("a", {"a1": 1.0, "a2": 1.0, "a3": 0.0}, {"a1": 0.0, "a2": 1.0, "a3": 0.0})
    b = stored("b", {"b1": 1.0, "b2": 2 / 3}, {"b1": 0.0, "b2": 1 / 3})
    frame = pooled_frame([a, b])
    ts = frame[(frame.metric == "TS") & (frame.versus == "OG (original)")].iloc[0]
    assert ts["tasks"] == 5 and ts["method"] == "DC (evidence)"
    assert ts["method %"] == pytest.approx(100 * (1 + 1 + 0 + 1 + 2 / 3) / 5)
    assert ts["McNemar b/c"] == "3/0"  # a1, b1 and b2 flipped to solved (majority), none the other way
    assert pooled_frame([a]).empty  # one comparison alone has its own tables
    # an older comparison of the same tasks (another stage of domain a) is not pooled twice
    older_a = stored("a", {"a1": 0.0, "a2": 0.0, "a3": 0.0}, {"a1": 0.0, "a2": 1.0, "a3": 0.0})
    again = pooled_frame([a, b, older_a])
    assert again.equals(frame)
    assert set(frame["test tasks"]) == {"all"}  # no task repeats an optimization task's gold call
    # a1 and b1 repeat an optimization task's gold call: the rows come again without them
    a.shared_gold, b.shared_gold = ["a1"], ["b1"]
    split = pooled_frame([a, b])
    rest = split[(split["test tasks"] == "without repeated gold calls") & (split.metric == "TS")]
    rest = rest[rest.versus == "OG (original)"].iloc[0]
    assert rest["tasks"] == 3 and rest["method %"] == pytest.approx(100 * (1 + 0 + 2 / 3) / 3)
    assert rest["McNemar b/c"] == "1/0"  # only b2 still flips
    assert split[split["test tasks"] == "all"].reset_index(drop=True).equals(frame)
    # a comparison on the grouped split is not pooled with one on the task-level split
    b.spec["split_grouping"] = "gold"
    assert pooled_frame([a, b]).empty
    # nor is DocsChisel with misuse tasks pooled with DocsChisel without them
    a.spec["split_grouping"], b.spec["misuse_tasks"] = "gold", 4
    assert pooled_frame([a, b]).empty
    b.spec["misuse_tasks"], b.spec["cross_val_tasks"] = 0, 6
    assert pooled_frame([a, b]).empty
    b.spec["cross_val_tasks"], b.spec["in_context"] = 0, True
    assert pooled_frame([a, b]).empty


def test_flips_and_never_solved_tasks_explain_a_comparison() -> None:
    from core.study.compare_rows import flip_rows, never_solved

    per_task = {
        "og": {"ts": {"a": 0.0, "b": 1.0, "c": 0.0, "d": 1 / 3}},
        "dc": {"ts": {"a": 2 / 3, "b": 1 / 3, "c": 0.0, "d": 1 / 3}},
        "et": {"ts": {"a": 0.0, "b": 1.0, "c": 0.0, "d": 0.0}},
    }
    failures = {
        "og": {"a": {"API Name Mismatch: X vs Y": 3}, "c": {"HAS_EXCEPTION": 3}},
        "dc": {"b": {"INPUT_MISMATCH": 2}, "c": {"HAS_EXCEPTION": 2, "NO_API_CALL": 1}},
        "et": {"c": {"HAS_EXCEPTION": 3}},
    }
    rows = flip_rows(per_task, failures, "dc")
    assert [(r["task"], r["change"]) for r in rows] == [("a", "solved"), ("b", "lost")]
    assert (
        rows[0]["og failure"] == "API Name Mismatch: X vs Y (3×)"
        and rows[1]["dc failure"] == "INPUT_MISMATCH (2×)"
    )
    stuck = never_solved(per_task, failures)
    assert stuck["tasks"] == ["c"] and stuck["reasons"] == {"HAS_EXCEPTION": 8, "NO_API_CALL": 1}


def test_failure_reasons_say_which_failures_a_method_traded_for_which() -> None:
    """Shares of each method's episodes per failure reason, from the stored counts, most frequent first."""
    from core.study.compare_report import StoredComparison, failure_frame
    from core.study.compare_rows import Point, failure_reasons

    def point(method: str, run: int) -> Point:
        return Point(method, 0, run, 0.5, 0.5, 10, f"{method}{run}", f"ds-{method}")

    points = {"og": [point("og", 0), point("og", 1)], "dc": [point("dc", 0), point("dc", 1)]}
    failures = {
        "og": {"a": {"INVALID_INPUT_PARAMETER": 6}, "b": {"API Name Mismatch: X vs Y": 2, "NO_API_CALL": 1}},
        "dc": {"a": {"API Name Mismatch: X vs Y": 3}, "b": {"API Name Mismatch: X vs Y": 2}},
    }
    stored = failure_reasons(points, failures)
    assert stored["og"] == {
        "episodes": 20,
        "reasons": {"INVALID_INPUT_PARAMETER": 6, "API Name Mismatch: X vs Y": 2, "NO_API_CALL": 1},
    }
    assert stored["dc"] == {"episodes": 20, "reasons": {"API Name Mismatch: X vs Y": 5}}
    c = StoredComparison(
        "c",
        "r",
        "api-bank",
        {},
        ["a", "b"],
        None,
        detail={"failure_reasons": stored},
        methods=pd.DataFrame({"method": ["og", "dc"], "label": ["OG (original)", "DC (evidence)"]}),
    )
    frame = failure_frame(c)
    assert list(frame.columns) == ["failure reason", "OG (original)", "DC (evidence)"]
    assert frame.to_dict("records") == [
        {"failure reason": "INVALID_INPUT_PARAMETER", "OG (original)": 30.0, "DC (evidence)": 0.0},
        {"failure reason": "API Name Mismatch: X vs Y", "OG (original)": 10.0, "DC (evidence)": 25.0},
        {"failure reason": "NO_API_CALL", "OG (original)": 5.0, "DC (evidence)": 0.0},
    ]
    assert failure_frame(
        StoredComparison("c", "r", "api-bank", {}, [], None)
    ).empty  # stored before it existed


def test_attribution_of_a_comparison_reuses_its_base_and_target_episodes(compared) -> None:
    from core.study.attribution import from_comparison, run_attribution

    wh, bench, s, result = compared
    spec = from_comparison(wh, s.compare_id, "dc", 0)
    assert spec.eval_runs == s.eval_runs and spec.temperature == s.temperature
    run_attribution(wh, spec, bench=bench, agent_factory=NoisyReader)

    def episodes(kind: str, key: str, value: str) -> set[str]:
        df = wh.query(
            f"""SELECT e.episode_id FROM runs r JOIN run_episodes re USING (run_id) JOIN episodes e USING (episode_id)
                WHERE r.kind = '{kind}' AND json_extract_string(r.config, '$.{key}') = ?""",
            [value],
        )
        return set(df["episode_id"])

    attributed = wh.query(
        """SELECT json_extract_string(config, '$.variant') AS v, run_id FROM runs
           WHERE kind = 'attribution-eval' AND json_extract_string(config, '$.attribution_id') = ?""",
        [spec.attribution_id],
    )
    base_runs = set(attributed[attributed["v"] == "base"]["run_id"])
    base_eps = set(wh.query(
        "SELECT episode_id FROM run_episodes WHERE run_id IN (SELECT unnest(?::VARCHAR[]))", [sorted(base_runs)]
    )["episode_id"])  # fmt: skip
    assert len(base_runs) == s.eval_runs
    assert base_eps and base_eps <= episodes("compare", "method", "og")


def _stored_comparison(
    cid: str,
    dc: dict[str, float] | None,
    opt_runs: int = 3,
    peers: dict[str, dict[str, float]] | None = None,
    **setting,
):
    """A stored health comparison of OG, DC (unless `dc` is None) and `peers`, per-task TS given."""
    from core.study.compare_report import StoredComparison

    spec = {
        "domains": ["health"],
        "agent": {"model": "m", "paradigm": "react"},
        "temperature": 0.7,
        "eval_runs": 3,
        "opt_runs": opt_runs,
        "split_grouping": "gold",
        **setting,
    }
    per_task = {
        **({"dc": {"ts": dc}} if dc is not None else {}),
        **{m: {"ts": t} for m, t in (peers or {}).items()},
    }
    tasks = sorted(next(iter(per_task.values()))["ts"])
    labels = {"og": "OG (original)", "dc": "DC (evidence)", "gepa": "GEPA", "et": "ET (EasyTool)"}
    methods = ["og", *per_task]
    return StoredComparison(
        compare_id=cid,
        result_id=cid,
        benchmark="api-bank/domain",
        spec=spec,
        task_ids=tasks,
        created_at=None,
        detail={"per_task": {**per_task, "og": {"ts": dict.fromkeys(tasks, 0.0)}}},
        methods=pd.DataFrame({"method": methods, "label": [labels[m] for m in methods]}),
        dc_algorithm="docschisel-9" if dc is not None else None,
    )


def test_docschisel_under_one_other_setting_pairs_by_task_on_the_same_test_tasks() -> None:
    """Two comparisons of the same test tasks whose DocsChisel differs in one setting pair DC by task."""
    from core.study.compare_across import settings_frame

    stored = _stored_comparison

    base = stored("base", {"t1": 1.0, "t2": 1 / 3, "t3": 0.0, "t4": 2 / 3})
    crossed = stored("crossed", {"t1": 1.0, "t2": 1.0, "t3": 2 / 3, "t4": 1 / 3}, cross_val_tasks=8)
    both = stored("both", {"t1": 0.0, "t2": 0.0, "t3": 0.0, "t4": 0.0}, cross_val_tasks=8, in_context=True)
    one_run = stored("one-run", {"t1": 0.0, "t2": 0.0, "t3": 0.0, "t4": 0.0}, opt_runs=1)
    other_tasks = stored("elsewhere", {"u1": 1.0, "u2": 0.0}, in_context=True)
    frame = settings_frame([both, crossed, one_run, other_tasks, base])  # newest first
    assert list(zip(frame["setting"], frame["tasks"], strict=True)) == [
        ("in context", 4),
        ("cross-tool validation tasks", 4),
    ]  # "both" and "base" differ in two settings; "elsewhere" has other test tasks
    row = frame.iloc[1]
    # the setting switched on comes first, though "base" is not older than it in the list
    assert row["DC with"].startswith("cross-tool validation tasks 8 (`crossed`)")
    assert row["DC with (other)"] == "the defaults (`base`)"  # the 3 x 3 one, not the 1-run "one-run"
    assert row["TS %"] == pytest.approx(100 * (1 + 1 + 2 / 3 + 1 / 3) / 4)
    assert row["other TS %"] == pytest.approx(100 * (1 + 1 / 3 + 0 + 2 / 3) / 4)
    assert row["McNemar b/c"] == "2/1"  # t2 and t3 flip to solved (majority), t4 flips away
    assert frame.iloc[0]["DC with"].startswith("cross-tool validation tasks 8, in context (`both`)")
    # more samples per candidate is a setting too: the higher count comes first
    sampled = stored("sampled", {"t1": 1.0, "t2": 1.0, "t3": 0.0, "t4": 2 / 3}, profile_repeats=5)
    row = settings_frame([base, sampled]).iloc[0]
    assert row["setting"] == "samples per candidate"
    assert row["DC with"] == "samples per candidate 5 (`sampled`)" and row["McNemar b/c"] == "1/0"
    revised = stored("revised", dict(base.detail["per_task"]["dc"]["ts"]))
    revised.dc_algorithm = "docschisel-10"
    row = settings_frame([revised, base]).iloc[0]
    assert row["setting"] == "revision" and row["DC with"] == "docschisel-10 (`revised`)"
    assert row["Δ pp [95% CI]"].startswith("+0.0")


def test_each_docschisel_setting_meets_the_peers_of_other_comparisons_on_the_same_tasks() -> None:
    """GEPA run in one comparison, a DC setting tried in a later one: paired by task, Holm over the scope."""
    from core.study.compare_across import peers_frame
    from core.study.stats import holm

    tasks = [f"t{i}" for i in range(8)]
    gepa_ts = dict.fromkeys(tasks, 0.0)
    with_gepa = _stored_comparison("with-gepa", dict.fromkeys(tasks, 0.0), peers={"gepa": gepa_ts})
    in_context = _stored_comparison("in-context", dict.fromkeys(tasks, 1.0), in_context=True)
    one_run_gepa = _stored_comparison("gepa-1", None, opt_runs=1, peers={"gepa": dict.fromkeys(tasks, 1.0)})
    elsewhere = _stored_comparison("elsewhere", {"u1": 1.0}, peers={"et": {"u1": 0.0}})
    frame = peers_frame([in_context, one_run_gepa, elsewhere, with_gepa])  # newest first
    # the 3-run GEPA, never the 1-run one; with-gepa's own DC-GEPA pair is its own table; the other
    # tasks pair only among themselves (and there DC and ET are one comparison)
    assert list(frame["DC with"]) == ["in context, docschisel-9 (`in-context`)"]
    row = frame.iloc[0]
    assert row["peer"] == "GEPA, 3 opt runs (`with-gepa`)" and row["tasks"] == 8
    assert row["McNemar b/c"] == "8/0" and row["DC TS %"] == 100.0 and row["peer TS %"] == 0.0
    # a second setting against the same peer: Holm over both rows of the scope
    crossed = _stored_comparison("crossed", {**dict.fromkeys(tasks, 0.0), "t0": 1.0}, cross_val_tasks=8)
    frame = peers_frame([crossed, in_context, with_gepa])
    raw = [float(p) for p in frame["p (McNemar)"]]
    assert [float(p) for p in frame["p (Holm)"]] == pytest.approx([round(p, 4) for p in holm(raw)], abs=1e-4)


def test_most_runs_prefers_more_optimization_runs_then_the_newest():
    """Every cross-comparison table picks one stored comparison per key by this rule."""
    from core.study.compare_across import most_runs
    from core.study.compare_report import StoredComparison

    def made(cid: str, runs: int) -> StoredComparison:
        return StoredComparison(cid, "r" + cid, "api-bank/domain", {"opt_runs": runs}, [], None)

    newest_one_run, three_runs, older_three_runs, other = (
        made("a", 1),
        made("b", 3),
        made("c", 3),
        made("d", 1),
    )
    chosen = most_runs([("k", newest_one_run), ("k", three_runs), ("k", older_three_runs), ("j", other)])
    assert chosen == {"k": three_runs, "j": other}
    assert most_runs([("k", made("e", 2)), ("k", made("f", 2))])["k"].compare_id == "e"


def test_a_text_mode_comparison_under_an_older_grammar_says_what_it_could_not_write() -> None:
    """Headings name only the grammar revision; a reader of a g9 text-mode row learns its limit."""
    from core.study.compare_report import StoredComparison, grammar_notes, grammar_revision

    salt = "qwen.gguf|llama-cpp-python==0.3.36|g{}|qwen|ctx=4096"
    assert grammar_revision(salt.format(9)) == 9 and grammar_revision(None) is None

    def stored(cid: str, grammar: int, mode: str) -> StoredComparison:
        spec = {"agent": {"model": "local/q", "paradigm": "react", "doc_mode": mode}}
        return StoredComparison(
            cid, cid, "api-bank/domain", spec, [], None, {"runtime": salt.format(grammar)}
        )

    assert grammar_notes([stored("a", 10, "text"), stored("b", 9, "native")]) == []
    (note,) = grammar_notes([stored("a", 10, "text"), stored("b", 9, "text")])
    assert note.startswith("Under grammar g9 and earlier a text-mode agent could not write a list of records")

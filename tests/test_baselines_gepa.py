"""GEPA as a peer optimizer, on the toy shop with scripted models (the real `gepa` package, offline).

- a candidate round-trips to a doc set that differs from the original only in the optimized texts;
- the adapter scores episodes by success, and its reflective dataset holds optimization tasks only,
  with their expected calls audited; test tasks are never evaluated or shown;
- `generate_gepa` stores a doc set (origin gepa) and a baseline run; a re-run reuses it without work;
- the episode budget holds (GEPA's metric calls never pass it);
- the comparison harness runs GEPA after DocsChisel with DocsChisel's episode count as its budget.
"""

from __future__ import annotations

import json

import pytest

from core.agents.base import AgentConfig, EpisodeContext
from core.baselines.gepa_docs import DocsAdapter, Rollout, component, docset_for, seed_candidate
from core.baselines.gepa_run import GepaConfig, generate_gepa, split_tasks
from core.baselines.gepa_search import EpisodeBudget, ToolReflection, template
from core.benchmarks.base import Call
from core.docs import ToolDoc
from core.docs.render import render_text
from core.evaluation import RunnerEvaluator
from core.llm import script
from core.study.gepa_budget import formula_budget, task_groups
from tests.test_chisel_cli import restore_gateway  # noqa: F401 - a fixture
from tests.test_chisel_toy import ShopBench

AGENT = AgentConfig(model="scripted/text-reader", temperature=0.7, seed=0)
FIXED_DATE = "Delivery day, written YYYY-MM-DD."


class TextReader:
    """Reads the order doc's text: writes dates as YYYY-MM-DD only when the doc says so (a text fix)."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config

    def run(self, ctx: EpisodeContext) -> str:
        gold = ctx.task.gold[0]
        if gold.tool != "shop.order":
            ctx.execute(gold)
            return "done"
        doc = next(d for d in ctx.docs if d.tool == "shop.order")
        args = dict(gold.args)
        if "YYYY-MM-DD" not in render_text(doc):
            y, m, d = args["date"].split("-")
            args["date"] = f"{m}/{d}/{y}"
        ctx.execute(Call("shop.order", args))
        return "ordered"


def reflect(messages) -> str:
    """The scripted reflection model: the order doc gains the date format, anything else a plain sentence."""
    prompt = messages[0]["content"]
    if "tool `shop.order`" in prompt:
        return "Here it is:\n```\nPlaces an order. Dates are written YYYY-MM-DD.\n```"
    return "```\nA shop tool.\n```"


def _same_but_texts(doc: ToolDoc, ref: ToolDoc) -> bool:
    """Whether `doc` equals `ref` once its FD and parameter descriptions are put back."""
    params = tuple(
        p.model_copy(update={"description": ref.param(p.name).description}) for p in doc.parameters
    )
    return doc.model_copy(update={"description": ref.description, "parameters": params}) == ref


@pytest.fixture
def shop(warehouse):
    bench = ShopBench(n=24, quote_tasks=6)
    split, groups = task_groups(warehouse, bench)
    return warehouse, bench, split, groups


def test_candidate_round_trip_changes_only_the_texts() -> None:
    original = ShopBench().original_docs()
    tools = ["shop.order", "shop.quote"]
    seed = seed_candidate(original, tools)
    assert seed[component("shop.order")] == "Order an item."
    assert seed[component("shop.order", "date")] == "Delivery day."
    assert "shop.stock" not in seed and set(seed) >= {"shop.quote", "shop.quote::item"}
    assert docset_for(original, seed).docset_id == original.docset_id
    new = docset_for(original, {**seed, "shop.order::date": FIXED_DATE, "shop.quote": ""})
    assert new["shop.order"].param("date").description == FIXED_DATE
    assert new["shop.quote"].description is None and new["shop.stock"] == original["shop.stock"]
    assert all(_same_but_texts(new[t], original[t]) for t in tools)
    assert original["shop.order"].param("date").description == "Delivery day."  # inputs never mutated
    with pytest.raises(KeyError):
        docset_for(original, {"nope": "x"})


def test_adapter_scores_episodes_and_shows_only_optimization_tasks(shop) -> None:
    from gepa import EvaluationBatch

    wh, bench, split, groups = shop
    original = bench.original_docs()
    tools = [g.tool for g in groups]
    train, val = split_tasks(groups)
    evaluator = RunnerEvaluator(wh, bench, AGENT, agent_factory=TextReader)
    adapter = DocsAdapter(evaluator, original, tools, split, budget=100, warehouse=wh, run_id="probe")
    seed = seed_candidate(original, tools)
    batch = train[:4] + [t for t in train if t.tools == ("shop.quote",)][:1]
    out = adapter.evaluate(batch, seed, capture_traces=True)
    assert out.scores == [0.0 if t.tools == ("shop.order",) else 1.0 for t in batch]
    assert adapter.spend.metric_calls == len(batch) and len(out.trajectories) == len(batch)
    data = adapter.make_reflective_dataset(seed, out, ["shop.order::date", "shop.quote"])
    orders = [r for r in data["shop.order::date"]]
    assert len(orders) == sum(t.tools == ("shop.order",) for t in batch)
    assert all("The expected call(s): shop.order(" in r["Feedback"] for r in orders)
    assert all(r["Generated Outputs"]["Tool calls"][0].startswith("shop.order(") for r in orders)
    assert [r["Feedback"] for r in data["shop.quote"]] == ["Correct: the agent completed the task."]
    # a validation or test rollout never reaches the dataset, even when handed over
    test_task = split.tasks(bench.tasks(), "test")[0]
    leaked = EvaluationBatch(
        outputs=[{}, {}],
        scores=[0.0, 0.0],
        trajectories=[Rollout(test_task, None), Rollout(val[0], None)],
    )
    assert adapter.make_reflective_dataset(seed, leaked, [test_task.tools[0]]) == {}
    served = wh.rows("SELECT task_id, part FROM chisel_gt_access WHERE run_id = 'probe'")
    assert served and {p for _, p in served} == {"opt"}
    with pytest.raises(ValueError, match="optimization and validation"):
        adapter.evaluate([test_task], seed)
    assert adapter.spend.metric_calls == len(batch)


def test_reflection_is_gepa_prompted_and_billed_per_tool(llm_gateway) -> None:
    model = script(reflect, name="gepa-reflect-unit")
    reflection = ToolReflection(model.model, run_id="r1")
    seed = {"shop.order": "Order an item.", "shop.quote": "Price of an item."}
    records = [{"Inputs": {"Task": "order"}, "Generated Outputs": "x", "Feedback": "Wrong."}]
    proposal, same = reflection.reflect(seed, {"shop.order": records}, ["shop.order", "shop.quote"])
    assert same is reflection and proposal.new_texts == {
        "shop.order": "Places an order. Dates are written YYYY-MM-DD."
    }
    prompt = model.requests[0]["messages"][0]["content"]
    assert prompt.startswith("An AI agent chooses and calls tools") and "Order an item." in prompt
    assert "<curr_param>" in template("t::p") and "parameter `p`" in template("t::p")
    assert llm_gateway.ledger.totals(run_id="r1", purpose="gepa-reflect", tool="shop.order")["calls"] == 1
    assert reflection.costs["shop.order"].calls == 1 and "shop.quote" not in reflection.costs


def test_generate_gepa_improves_the_doc_stores_it_and_reuses_it(shop, llm_gateway) -> None:
    wh, bench, split, groups = shop
    original = bench.original_docs()
    model = script(reflect, name="gepa-reflect-run")
    config = GepaConfig(model=model.model, budget=24, seed=1)
    run = generate_gepa(wh, bench, groups, split, AGENT, config, agent_factory=TextReader)
    assert not run.reused and run.docset_id
    assert "YYYY-MM-DD" in (run.docset["shop.order"].description or "")
    assert all(_same_but_texts(run.docset[t], original[t]) for t in original)
    assert run.docset["shop.stock"] == original["shop.stock"]
    origin, meta = wh.rows("SELECT origin, meta FROM doc_sets WHERE docset_id = ?", [run.docset_id])[0]
    meta = json.loads(meta)
    assert origin == "gepa" and meta["run_id"] == run.run_id
    summary = meta["gepa"]
    assert summary["best_val_ts"] > summary["seed_val_ts"] and "shop.order" in summary["changed"]
    assert summary["metric_calls"] <= config.budget
    kind, config_json = wh.rows("SELECT kind, config FROM runs WHERE run_id = ?", [run.run_id])[0]
    assert kind == "baseline" and json.loads(config_json)["config"]["budget"] == config.budget
    # costs per tool in the shape Table III reads: reflection tokens, agent episodes and tokens, seconds
    order = run.costs["shop.order"]
    assert order["calls"] >= 1 and order["tokens"] > 0 and order["episodes"] > 0 and order["seconds"] > 0
    assert sum(c["episodes"] for c in run.costs.values()) == pytest.approx(summary["metric_calls"])
    assert (
        llm_gateway.ledger.totals(run_id=run.run_id, purpose="gepa-reflect", tool="shop.order")["calls"] >= 1
    )
    # the rollouts are child runs of the GEPA run, on optimization and validation tasks only
    parts = dict(wh.rows("SELECT task_id, part FROM split_assignments WHERE split_id = ?", [split.split_id]))
    touched = wh.rows(
        """SELECT DISTINCT e.task_id FROM episodes e JOIN run_episodes re USING (episode_id)
           JOIN runs r ON r.run_id = re.run_id WHERE r.parent_run = ?""",
        [run.run_id],
    )
    assert touched and {parts[t] for (t,) in touched} <= {"opt", "val"}
    # asking again: the stored result, no model call, no episode
    calls, episodes = model.calls, wh.scalar("SELECT count(*) FROM episodes")
    again = generate_gepa(wh, bench, groups, split, AGENT, config, agent_factory=TextReader)
    assert again.reused and again.docset_id == run.docset_id and again.costs == run.costs
    assert model.calls == calls and wh.scalar("SELECT count(*) FROM episodes") == episodes


@pytest.mark.parametrize("budget", [3, 10, 23])
def test_the_episode_budget_holds(shop, budget) -> None:
    wh, bench, split, groups = shop
    model = script(reflect, name=f"gepa-reflect-budget-{budget}")
    _, val = split_tasks(groups)
    run = generate_gepa(
        wh,
        bench,
        groups,
        split,
        AGENT,
        GepaConfig(model=model.model, budget=budget),
        agent_factory=TextReader,
    )
    summary = json.loads(wh.scalar("SELECT meta FROM doc_sets WHERE docset_id = ?", [run.docset_id]))
    spent = summary.get("gepa", {}).get("metric_calls", 0) if "gepa" in summary else 0
    assert spent <= budget
    if budget < len(val):  # cannot even score the original docs: nothing is run, the original is kept
        assert run.docset_id == bench.original_docs().docset_id and spent == 0


def test_stopper_leaves_room_for_a_whole_iteration() -> None:
    class State:
        total_num_evals = 10

    stop = EpisodeBudget(budget=20, minibatch=3, n_val=4)
    assert not stop(State())  # 10 + 3 + 3 + 4 = 20 fits
    State.total_num_evals = 11
    assert stop(State())
    assert EpisodeBudget(budget=100, minibatch=3, n_val=4, cancelled=lambda: True)(State())


def test_formula_budget_without_docschisel(shop) -> None:
    _, _, _, groups = shop
    slots = sum(len(g.opt) + len(g.val) for g in groups)
    assert formula_budget(groups, iterations=2, repeats=3) == 3 * slots * 3


def test_harness_runs_gepa_after_docschisel_with_its_episode_budget(tmp_path) -> None:
    from core.study.compare import Harness, run_compare
    from core.study.compare_spec import CompareSpec
    from core.warehouse import Warehouse
    from core.warehouse.reads import child_run_episodes

    wh = Warehouse(tmp_path / "gepa.duckdb")
    bench = ShopBench(n=24, quote_tasks=6)
    model = script(reflect, name="gepa-reflect-harness")
    spec = CompareSpec(
        benchmark="shop",
        methods=("gepa", "og", "dc"),
        opt_runs=1,
        eval_runs=2,
        limit=6,
        agent=AgentConfig(model="scripted/text-reader"),
        iterations=1,
        engine="evidence",
        optimizer_models=(model.model,),
        memory_ablation=False,
        curve_eval_runs=0,
        headroom=None,
        min_val_tasks=0,
        profile_repeats=1,
    )
    assert spec.methods == ("og", "dc", "gepa")
    assert Harness(wh, spec, bench=bench).planned_steps() == 2 * 1 + 2 + 2 * 1 * 2
    result = run_compare(wh, spec, bench=bench, agent_factory=TextReader)
    methods = result.methods.set_index("method")
    assert list(methods.index) == ["og", "dc", "gepa"] and methods.loc["gepa", "label"] == "GEPA"
    assert methods.loc["gepa", "n_points"] == spec.opt_runs * spec.eval_runs
    assert methods.loc["gepa", "opt_tokens_per_tool"] > 0  # reflection tokens (the toy agent has none)
    assert methods.loc["gepa", "agent_tokens_per_tool"] == 0 and methods.loc["gepa", "minutes_per_tool"] > 0
    dc_run = wh.scalar("SELECT run_id FROM runs WHERE kind = 'optimize'")
    gepa_run = wh.query(
        "SELECT run_id, config FROM runs WHERE kind = 'baseline' AND json_extract_string(config, '$.method') = 'gepa'"
    ).iloc[0]
    config = json.loads(gepa_run["config"])
    assert config["config"]["budget"] == child_run_episodes(wh, dc_run) > 0
    assert config["config"]["model"] == model.model and config["agent"]["seed"] == 0
    assert config["agent"]["temperature"] == spec.temperature
    # evaluated on the same test tasks as the others, and tested against DocsChisel
    tasks = wh.query(
        """SELECT json_extract_string(r.config, '$.method') AS method, list(DISTINCT e.task_id) AS tasks
           FROM runs r JOIN run_episodes re USING (run_id) JOIN episodes e USING (episode_id)
           WHERE r.kind = 'compare' GROUP BY 1"""
    )
    by_method = {r.method: sorted(r.tasks) for r in tasks.itertuples()}
    assert by_method["gepa"] == by_method["dc"] == sorted(result.task_ids)
    assert "gepa" in set(result.tests["versus"])


def _notes_agent(messages):
    """A native tool-calling 'model': searches once, then answers."""
    from core.llm import tool_call

    if any(m.get("role") == "tool" for m in messages):
        return "Done."
    return tool_call("search_notes", query="coffee")


@pytest.mark.usefixtures("restore_gateway")
def test_cli_baseline_gepa(tmp_path) -> None:
    from click.testing import CliRunner

    from core.cli.main import cli
    from core.config import PROJECT_ROOT

    agent = script(_notes_agent, name="gepa-cli-agent")
    reflection = script(lambda m: "```\nSearch the notes for a word.\n```", name="gepa-cli-reflect")
    folder = str(PROJECT_ROOT / "tests" / "fixtures" / "userbench" / "notes")
    args = ["baseline", "gepa", "-b", folder, "--tools", "search_notes", "--model", reflection.model]
    args += ["--agent-model", agent.model, "--seed", "2", "--warehouse", str(tmp_path / "cli.duckdb")]
    runner = CliRunner()
    out = runner.invoke(cli, [*args, "--budget", "12"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    ids = json.loads(out.output.strip().splitlines()[-1])
    assert ids["docset_id"] and ids["run_id"] and "budget 12 episodes" in out.output
    again = runner.invoke(cli, [*args, "--budget", "12"], catch_exceptions=False)
    assert "(stored result reused)" in again.output
    missing = runner.invoke(cli, args)
    assert missing.exit_code == 2 and "--budget" in missing.output

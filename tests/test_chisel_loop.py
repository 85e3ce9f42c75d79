"""The optimizer's invariants, checked through the warehouse on the doc-reading toy benchmark.

- a candidate whose validation TS is below the original's is never accepted or selected;
- the optimizer reads ground truth of the optimization split only, and never runs a test task;
- fields a plan does not name are byte-identical to the original in every candidate;
- the domain memories grow across iterations, and stay empty without memory;
- every diagnosis, plan, candidate and memory state is stored with its lineage.
"""

from __future__ import annotations

import json
import re
from functools import partial

import pytest

from core.agents.base import AgentConfig
from core.benchmarks.base import Call, Task
from core.benchmarks.splits import DEFAULT_GROUPING, get_or_create_split
from core.chisel import OptimizeConfig, export_docset, resolve_docset
from core.chisel.access import GroundTruth, GroundTruthLeak
from core.chisel.loop import optimize
from core.docs import ToolDoc
from core.docs.render import render_text
from core.fields import CODES
from tests.test_chisel_toy import ISO_IN_DOC, DocReadingAgent, ShopBench

AGENT = AgentConfig(model="scripted/doc-reader")


@pytest.fixture(scope="module")
def shop_run(tmp_path_factory):
    """One optimization run with memory, shared by the read-only checks below."""
    from core.warehouse import Warehouse

    wh = Warehouse(tmp_path_factory.mktemp("chisel") / "wh.duckdb")
    bench = ShopBench(n=24, quote_tasks=6)
    result = optimize(
        wh,
        OptimizeConfig(benchmark="shop", agent=AGENT, iterations=4, engine="evidence"),
        benchmark=bench,
        agent_factory=DocReadingAgent,
    )
    return wh, bench, result


def test_optimizer_fixes_the_toy_doc_and_stores_lineage(shop_run) -> None:
    wh, bench, result = shop_run
    order = next(r for r in result.tools if r.tool == "shop.order")
    assert order.base_val_ts == 0.0 and order.best_val_ts == 1.0 and order.changed
    doc = result.docset["shop.order"]
    # the fields the toy agent needs, whatever words the engine chose for them
    date = doc.param("date")
    assert doc.param("qty").required and ISO_IN_DOC.search(f"{date.description} {date.type}")
    assert doc.has("UG") or doc.has("UE")
    assert result.docset["shop.stock"] == bench.original_docs()["shop.stock"]
    for table in ("diagnoses", "plans", "candidates", "memories", "selections", "chisel_tools"):
        assert wh.scalar(f"SELECT count(*) FROM {table} WHERE run_id = ?", [result.run_id]) > 0, table
    # lineage: candidates point at their merged plan, plans at their diagnoses, diagnoses at episodes
    orphans = wh.scalar(
        """SELECT count(*) FROM candidates c LEFT JOIN plans p ON p.plan_id = c.plan_id
           WHERE c.run_id = ? AND p.plan_id IS NULL""",
        [result.run_id],
    )
    assert orphans == 0
    bad_diag = wh.scalar(
        """SELECT count(*) FROM diagnoses d LEFT JOIN episodes e USING (episode_id)
           WHERE d.run_id = ? AND e.episode_id IS NULL""",
        [result.run_id],
    )
    assert bad_diag == 0
    assert wh.scalar("SELECT count(*) FROM plans WHERE run_id = ? AND scope = 'trace'", [result.run_id]) > 0
    # the result is a registered doc set the eval CLI can resolve from the run id
    assert resolve_docset(wh, result.run_id).docset_id == result.docset_id
    origin, meta = wh.rows("SELECT origin, meta FROM doc_sets WHERE docset_id = ?", [result.docset_id])[0]
    assert origin == "docschisel" and json.loads(meta)["run_id"] == result.run_id
    assert set(wh.rows("SELECT DISTINCT origin FROM doc_sets WHERE name LIKE 'docschisel candidate%'")) <= {
        ("docschisel-candidate",),
        ("docschisel",),
    }
    assert export_docset(result.docset, "openai")[0]["type"] == "function"
    assert {t["name"] for t in export_docset(result.docset, "mcp")["tools"]} == set(result.docset)
    # inputs are never mutated
    assert bench.original_docs()["shop.order"].param("qty").required is None


def test_test_split_is_never_read(shop_run) -> None:
    wh, bench, result = shop_run
    split_id = json.loads(wh.scalar("SELECT config FROM runs WHERE run_id = ?", [result.run_id]))["split_id"]
    parts = dict(wh.rows("SELECT task_id, part FROM split_assignments WHERE split_id = ?", [split_id]))
    access = wh.rows("SELECT task_id, part FROM chisel_gt_access WHERE run_id = ?", [result.run_id])
    assert access, "ground-truth reads must be audited"
    assert {p for _, p in access} == {"opt"}
    assert all(parts[t] == "opt" for t, _ in access)
    touched = wh.rows(
        """SELECT DISTINCT e.task_id FROM episodes e JOIN run_episodes r USING (episode_id)
           JOIN runs u ON u.run_id = r.run_id WHERE u.parent_run = ?""",
        [result.run_id],
    )
    assert touched
    assert not [t for (t,) in touched if parts[t] == "test"]
    # the guard refuses validation and test ground truth outright
    split = get_or_create_split(wh, bench.key, bench.tasks(), seed=0, grouping=DEFAULT_GROUPING)
    gt = GroundTruth(wh, "probe", split, bench.tasks())
    for part in ("val", "test"):
        with pytest.raises(GroundTruthLeak):
            gt.calls(split.ids(part)[0], "probe")


def _untouched_codes(wh, run_id: str, tool: str, iteration: int) -> set[str]:
    ops = json.loads(
        wh.scalar(
            "SELECT operations FROM plans WHERE run_id = ? AND tool = ? AND iteration = ? AND scope = 'merged'",
            [run_id, tool, iteration],
        )
    )
    return set(CODES) - {o["field"] for o in ops}


def test_untouched_fields_are_byte_identical(shop_run) -> None:
    wh, bench, result = shop_run
    original = bench.original_docs()
    rows = wh.rows("SELECT tool, iteration, doc_id FROM candidates WHERE run_id = ?", [result.run_id])
    assert rows
    for tool, iteration, doc_id in rows:
        cand = wh.load_doc(doc_id)
        for code in _untouched_codes(wh, result.run_id, tool, iteration):
            before = json.dumps(original[tool].get(code), sort_keys=True, ensure_ascii=False)
            after = json.dumps(cand.get(code), sort_keys=True, ensure_ascii=False)
            assert before == after, (tool, iteration, code)
        # parameters untouched by every per-parameter op keep their whole entry
        assert [p.name for p in cand.parameters] == [p.name for p in original[tool].parameters]


def test_memory_grows_across_iterations(shop_run) -> None:
    wh, _, result = shop_run
    rows = wh.rows(
        "SELECT iteration, kind, content FROM memories WHERE run_id = ? AND tool = 'shop.order' ORDER BY iteration",
        [result.run_id],
    )
    sizes: dict[int, int] = {}
    for it, _kind, content in rows:
        sizes[it] = sizes.get(it, 0) + sum(e["count"] for e in json.loads(content))
    its = sorted(sizes)
    assert len(its) >= 2
    assert all(sizes[a] < sizes[b] for a, b in zip(its, its[1:], strict=False))


def test_no_memory_keeps_memory_empty(warehouse) -> None:
    bench = ShopBench(n=24, quote_tasks=6)
    cfg = OptimizeConfig(
        benchmark="shop", agent=AGENT, iterations=3, memory=False, tools=("shop.order",), engine="evidence"
    )
    result = optimize(warehouse, cfg, benchmark=bench, agent_factory=DocReadingAgent)
    assert warehouse.scalar("SELECT count(*) FROM candidates WHERE run_id = ?", [result.run_id]) >= 2
    assert warehouse.scalar("SELECT count(*) FROM memories WHERE run_id = ?", [result.run_id]) == 0
    detail = json.loads(warehouse.scalar("SELECT detail FROM chisel_tools WHERE run_id = ?", [result.run_id]))
    assert detail["memory"] is None


def test_lower_validation_ts_is_never_accepted(warehouse) -> None:
    bench = ShopBench(n=24, quote_tasks=0)
    split = get_or_create_split(warehouse, bench.key, bench.tasks(), seed=0, grouping=DEFAULT_GROUPING)
    val = frozenset(split.ids("val"))

    class Lenient(DocReadingAgent):
        """Passes validation tasks with the original doc, fails them once the doc has usage examples."""

        def run(self, ctx):
            doc = next(d for d in ctx.docs if d.tool == "shop.order")
            if ctx.task.task_id in val and not doc.examples:
                ctx.execute(ctx.task.gold[0])
                return "ok"
            return super().run(ctx)

    cfg = OptimizeConfig(
        benchmark="shop", agent=AGENT, iterations=3, tools=("shop.order",), engine="evidence"
    )
    result = optimize(warehouse, cfg, benchmark=bench, agent_factory=partial(Lenient, hurt_on=val))
    rows = warehouse.query("SELECT * FROM candidates WHERE run_id = ?", [result.run_id])
    assert (rows.val_ts < rows.base_val_ts).any(), "the scenario must produce a worse candidate"
    assert not (rows.accepted & (rows.val_ts < rows.base_val_ts)).any()
    assert (rows.accepted == (rows.val_ts >= rows.base_val_ts)).all()
    chosen = warehouse.scalar("SELECT doc_id FROM selections WHERE run_id = ?", [result.run_id])
    worse = set(rows[rows.val_ts < rows.base_val_ts].doc_id)
    assert chosen not in worse
    tool = result.tools[0]
    assert tool.best_val_ts >= tool.base_val_ts
    # the memory learnt which edits broke validation tasks
    planning = warehouse.rows(
        "SELECT content FROM memories WHERE run_id = ? AND kind = 'planning' ORDER BY iteration DESC LIMIT 1",
        [result.run_id],
    )
    assert any(e["outcome"] == "harmful" for e in json.loads(planning[0][0]))


def _selection_docs() -> tuple[ToolDoc, ToolDoc, ToolDoc]:
    """(original, a long candidate, a short candidate) for the selection-rule tests."""
    d0 = ToolDoc(tool="t", name="t", description="x")
    return d0, d0.add("UG", "use it well " * 20), d0.add("UG", "use it")


def _c(doc, ev, tokens, iteration):
    from core.chisel.decisions import Candidate

    return Candidate(doc, ev, tokens, iteration)


def _select(*args):
    from core.chisel.decisions import select

    s = select(*args)
    return s.doc, s.val_ts, s.reason


def test_selection_prefers_shorter_doc_on_ties() -> None:
    from core.chisel.types import Evaluation

    select = _select
    d0, long, short = _selection_docs()
    ev = Evaluation(
        val_ts=0.5, base_val_ts=0.5, opt_ts=0, base_opt_ts=0, val_run="", opt_run="", accepted=True
    )
    doc, ts, _ = select(d0, 0.5, [_c(long, ev, 200, 1), _c(short, ev, 20, 2)], "paper")
    assert doc == short and ts == 0.5
    rejected = ev.model_copy(update={"val_ts": 0.0, "accepted": False})
    doc, _, why = select(d0, 0.5, [_c(long, rejected, 200, 1)])
    assert doc == d0 and "original" in why


def test_evidence_selection_needs_an_improvement() -> None:
    """Ties on validation are broken by the optimization set; a candidate that improves nothing is not kept."""
    from core.chisel.types import Evaluation

    select = _select

    d0, long, short = _selection_docs()
    tie = Evaluation(
        val_ts=0.0, base_val_ts=0.0, opt_ts=0.25, base_opt_ts=0.25, val_run="", opt_run="", accepted=True
    )
    # the paper's rule replaces the original with the shortest tie ...
    assert select(d0, 0.0, [_c(long, tie, 200, 1), _c(short, tie, 20, 2)], "paper")[0] == short
    # ... the evidence rule keeps the original: neither validation nor the optimization set improved
    doc, ts, why = select(d0, 0.0, [_c(long, tie, 200, 1), _c(short, tie, 20, 2)])
    assert doc == d0 and ts == 0.0 and "original kept" in why
    # a tie on validation that fixes optimization tasks wins, even when it is longer
    better_opt = tie.model_copy(update={"opt_ts": 0.5})
    assert select(d0, 0.0, [_c(long, better_opt, 200, 1), _c(short, tie, 20, 2)])[0] == long
    # a validation gain is enough on its own
    better_val = tie.model_copy(update={"val_ts": 1.0, "opt_ts": 0.0})
    doc, ts, _ = select(d0, 0.0, [_c(short, better_val, 20, 1)])
    assert doc == short and ts == 1.0
    with pytest.raises(ValueError):
        select(d0, 0.0, [], "best")


def test_tools_without_headroom_are_skipped_and_say_why(tmp_path) -> None:
    """With a band, a tool the agent never (or always) gets right is left alone, with the reason stored."""
    from dataclasses import replace

    from core.warehouse import Warehouse
    from tests.test_study_compare import NoisyReader

    wh = Warehouse(tmp_path / "h.duckdb")
    bench = ShopBench(n=24, quote_tasks=12)
    cfg = OptimizeConfig(
        benchmark="shop",
        agent=replace(AGENT, temperature=0.7),
        iterations=2,
        repeats=3,
        headroom=(0.15, 0.85),
        min_val_tasks=4,
        engine="evidence",
    )

    class Hopeless(NoisyReader):
        """Never gets near an order (it checks the stock instead); quotes as the noisy reader."""

        def run(self, ctx):
            if ctx.task.gold[0].tool == "shop.order":
                ctx.execute(Call("shop.stock", {}))
                return "in stock"
            return super().run(ctx)

    result = optimize(wh, cfg, benchmark=bench, agent_factory=Hopeless)
    by_tool = {r.tool: r for r in result.tools}
    # this agent never orders, nor gets any part of an order call right: no headroom
    assert by_tool["shop.order"].reason.startswith("skipped: TS⁰ 0.0") and not by_tool["shop.order"].changed
    assert "below the headroom band [0.15, 0.85], and so is its call-level partial credit (0.0" in (
        by_tool["shop.order"].reason
    )
    # quotes succeed unless the sampled agent is distracted (about 30 %): in the band, so optimized
    assert not by_tool["shop.quote"].reason.startswith("skipped")
    assert 0.15 <= (by_tool["shop.quote"].base_val_ts + by_tool["shop.quote"].base_opt_ts) / 2 <= 0.85
    stored = dict(wh.rows("SELECT tool, json_extract_string(detail, '$.reason') FROM chisel_tools"))
    assert stored["shop.order"].startswith("skipped:")
    # repeats sample with their own seeds: the distracted tasks differ between repeats of one task
    eps = wh.query(
        """SELECT task_id, "repeat", success FROM episodes WHERE task_id LIKE 'quote-%' AND docset_id = ?""",
        [bench.original_docs().docset_id],
    )
    assert eps.groupby("task_id")["success"].nunique().max() == 2


def test_optimization_runs_with_different_seeds_are_independent(tmp_path) -> None:
    """Runs seeded differently sample the agent differently and pick other examples: other candidates."""
    from dataclasses import replace

    from core.warehouse import Warehouse
    from tests.test_study_compare import NoisyReader

    bench = ShopBench(n=24, quote_tasks=6)
    sequences = []
    for seed in (0, 1):
        wh = Warehouse(tmp_path / f"s{seed}.duckdb")
        cfg = OptimizeConfig(
            benchmark="shop",
            agent=replace(AGENT, temperature=0.7, seed=seed),
            iterations=3,
            repeats=2,
            seed=seed,
            tools=("shop.order",),
            engine="evidence",
        )
        result = optimize(wh, cfg, benchmark=bench, agent_factory=NoisyReader)
        rows = wh.rows(
            "SELECT iteration, doc_id FROM candidates WHERE run_id = ? ORDER BY iteration", [result.run_id]
        )
        assert rows
        sequences.append([doc for _, doc in rows])
    assert sequences[0] != sequences[1]
    # and the same seed reproduces its sequence exactly
    wh = Warehouse(tmp_path / "again.duckdb")
    cfg = OptimizeConfig(
        benchmark="shop",
        agent=replace(AGENT, temperature=0.7, seed=0),
        iterations=3,
        repeats=2,
        seed=0,
        tools=("shop.order",),
        engine="evidence",
    )
    again = optimize(wh, cfg, benchmark=bench, agent_factory=NoisyReader)
    rows = wh.rows(
        "SELECT iteration, doc_id FROM candidates WHERE run_id = ? ORDER BY iteration", [again.run_id]
    )
    assert [doc for _, doc in rows] == sequences[0]


class IdleShop(ShopBench):
    """The toy shop plus conditional requests whose condition is false: the right outcome is no call."""

    def __init__(self) -> None:
        super().__init__(n=24, quote_tasks=6)
        self._tasks += [
            Task(f"idle-{i:03d}", "shop", f"If item{i} is out of stock, order one (it is in stock).", (), ())
            for i in range(12)
        ]


class EagerReader(DocReadingAgent):
    """The literal reader, who also orders on the idle requests once the order doc says when to use it."""

    def run(self, ctx):
        if not ctx.task.gold:
            doc = {d.tool: d for d in ctx.docs}["shop.order"]
            if doc.has("UG") or doc.has("UE"):
                ctx.execute(Call("shop.order", {"item": "item0", "qty": 1, "date": "2024-02-01"}))
                return "ordered"
            return "nothing to do"
        return super().run(ctx)


def _optimize_in(tmp_path, name: str, bench, agent, tools: tuple[str, ...], log=None, **settings):
    """(warehouse, result) of a 4-iteration evidence run of `tools` in its own warehouse file `name`
    (run again with the same arguments, it resumes that run)."""
    from core.warehouse import Warehouse

    wh = Warehouse(tmp_path / f"{name}.duckdb")
    config = OptimizeConfig(
        benchmark="shop", agent=AGENT, iterations=4, engine="evidence", tools=tools, **settings
    )
    return wh, optimize(wh, config, benchmark=bench, agent_factory=agent, log=log)


def test_the_guard_rejects_a_doc_that_makes_the_agent_act_when_nothing_should_be_done(tmp_path) -> None:
    """Without the guard the usage example that fixes the orders is selected; with it, it is rejected."""
    from core.warehouse import Warehouse

    def run(guard: int, name: str):
        return _optimize_in(tmp_path, name, IdleShop(), EagerReader, ("shop.order",), guard_val_tasks=guard)

    _, unguarded = run(0, "unguarded")
    doc = unguarded.docset["shop.order"]
    assert doc.has("UE") or doc.has("UG")  # it fixes every order task and breaks every idle one
    wh, guarded = run(4, "guarded")
    order = guarded.tools[0]
    assert not (guarded.docset["shop.order"].has("UE") or guarded.docset["shop.order"].has("UG"))
    idle_val = wh.query(
        """SELECT DISTINCT e.task_id FROM episodes e JOIN run_episodes re USING (episode_id)
           JOIN runs r ON r.run_id = re.run_id WHERE r.kind = 'chisel-profile' AND e.task_id LIKE 'idle-%'"""
    )["task_id"].tolist()
    split = get_or_create_split(wh, "shop/v1", IdleShop().tasks(), seed=0, grouping=DEFAULT_GROUPING)
    assert 0 < len(idle_val) <= 4  # a seeded sample of the domain's no-call validation tasks
    assert set(idle_val) <= set(split.ids("val"))  # validation tasks only, never test
    rejected = wh.scalar(
        "SELECT count(*) FROM candidates WHERE run_id = ? AND NOT accepted", [guarded.run_id]
    )
    assert rejected >= 1 and order.base_val_ts > 0  # the idle tasks pass with the original docs
    assert (
        json.loads(wh.scalar("SELECT config FROM runs WHERE run_id = ?", [guarded.run_id]))["guard_val_tasks"]
        == 4
    )
    assert "guard_val_tasks" not in json.loads(
        Warehouse(tmp_path / "unguarded.duckdb").scalar("SELECT config FROM runs WHERE kind = 'optimize'")
    )  # runs without the guard keep the ids they had before it existed


def test_a_tool_judged_on_too_few_validation_tasks_is_named_in_the_log(tmp_path) -> None:
    """Optimized alone, a tool has only its own validation tasks to be judged on; the run says so,
    and `pool_domain_val` pools from the domain's other validation tasks instead."""
    from dataclasses import replace

    from core.warehouse import Warehouse

    def run(config: OptimizeConfig, name: str) -> list[str]:
        log: list[str] = []
        bench = ShopBench(n=12, quote_tasks=6)
        optimize(
            Warehouse(tmp_path / name), config, benchmark=bench, agent_factory=DocReadingAgent, log=log.append
        )
        return log

    def val_count(log: list[str]) -> int:
        line = next(x for x in log if x.startswith("[") and "shop.quote:" in x and " val tasks" in x)
        return int(line.split(" opt / ")[1].split(" val")[0])

    cfg = OptimizeConfig(
        benchmark="shop",
        agent=AGENT,
        iterations=1,
        tools=("shop.quote",),
        min_val_tasks=50,
        engine="evidence",
    )
    lines = run(cfg, "v.duckdb")
    note = [line for line in lines if "note: shop.quote is judged on" in line]
    assert len(note) == 1 and "fewer than --min-val-tasks 50" in note[0] and "--pool-domain-val" in note[0]
    # with --pool-domain-val the orders' validation tasks (a tool not optimized here) join the pool
    wide = replace(cfg, min_val_tasks=4, pool_domain_val=True)
    pooled = run(wide, "v2.duckdb")
    # the toy's split holds one validation task per tool: alone 1, pooled from the domain 2
    assert val_count(lines) == 1 and val_count(pooled) == 2
    assert "pool_domain_val" not in cfg.key("shop", "evidence", "none")
    assert wide.key("shop", "evidence", "none")["pool_domain_val"] is True


def test_llm_engine_runs_carry_the_engine_version_and_evidence_runs_keep_their_ids() -> None:
    from core.chisel.config import LLM_ENGINE_VERSION

    cfg = OptimizeConfig(benchmark="shop", agent=AgentConfig(model="scripted/x"))
    assert "llm_engine" not in cfg.key("shop", "evidence", "none")
    assert cfg.key("shop", "llm", "local/qwen2.5-coder-1.5b")["llm_engine"] == LLM_ENGINE_VERSION


class StockShop(ShopBench):
    """The toy shop plus stock questions, whose stock doc shares no word with them."""

    def __init__(self) -> None:
        super().__init__(n=24, quote_tasks=6)
        self._tasks += [
            Task(
                f"stock-{i:03d}",
                "shop",
                f"Is item{i} in stock?",
                (Call("shop.stock", {"item": f"item{i}"}),),
                ("shop.stock",),
            )
            for i in range(18)
        ]

    def original_docs(self):
        docs = super().original_docs()
        return docs.replace(docs["shop.stock"].model_copy(update={"description": "Availability."}))


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 4}


def _doc_words(doc: ToolDoc) -> set[str]:
    """The words of what a doc says, its name aside (the matcher knows the tools by what they do)."""
    lines = render_text(doc).splitlines()
    return _words("\n".join(line for line in lines if not line.startswith("Tool name:")))


class WordMatcher(DocReadingAgent):
    """A reader that answers a stock question with the tool whose doc shares the most words with it, the
    quote tool on a tie (the one it reaches for first). The failure is defined by the request's words, not
    by any phrase the optimizer writes: a doc that quotes stock questions draws them, whichever tool's doc
    it is."""

    def run(self, ctx):
        gold = ctx.task.gold[0]
        if gold.tool == "shop.stock":
            docs = {d.tool: d for d in ctx.docs}
            asked = _words(ctx.task.query)
            score = {t: len(asked & _doc_words(docs[t])) for t in ("shop.quote", "shop.stock")}
            tool = "shop.stock" if score["shop.stock"] > score["shop.quote"] else "shop.quote"
            ctx.execute(Call(tool, {"item": gold.args["item"]}))
            return "answered"
        return super().run(ctx)


def _stock_run(path, tools: tuple[str, ...], **settings):
    """Optimize `tools` of the stock shop for the word matcher: (warehouse, result, log lines)."""
    from core.warehouse import Warehouse

    wh = Warehouse(path)
    config = OptimizeConfig(
        benchmark="shop", agent=AGENT, iterations=3, engine="evidence", tools=tools, **settings
    )
    log: list[str] = []
    return (
        wh,
        optimize(wh, config, benchmark=StockShop(), agent_factory=WordMatcher, log=log.append),
        log,
    )


def _says_nothing_of_stock(doc: ToolDoc) -> bool:
    return "stock" not in _doc_words(doc)


def test_a_tool_called_in_another_ones_place_is_judged_on_those_requests_with_misuse_tasks(tmp_path) -> None:
    """The stock questions go to the quote tool until the stock doc says what it is for. With misuse tasks
    the quote tool is judged on the stock questions it was called on too, and its doc says nothing of them
    (naming them would draw them); the stock doc, the side that serves them, takes the routing cue."""
    from core.warehouse import Warehouse

    def run(misuse: int):
        return _stock_run(
            tmp_path / f"misuse{misuse}.duckdb", ("shop.quote", "shop.stock"), misuse_tasks=misuse
        )

    _, plain, _ = run(0)
    wh, grown, log = run(4)
    assert any("shop.quote: +4 opt / +" in line for line in log)
    quote_row = next(r for r in grown.tools if r.tool == "shop.quote")
    assert quote_row.n_opt > next(r for r in plain.tools if r.tool == "shop.quote").n_opt
    assert quote_row.base_opt_ts < 1.0  # the stock questions among its tasks fail under the original docs
    assert _says_nothing_of_stock(grown.docset["shop.quote"])
    for result, path in ((plain, "misuse0"), (grown, "misuse4")):
        stock_row = next(r for r in result.tools if r.tool == "shop.stock")
        assert stock_row.changed and "in stock?" in (result.docset["shop.stock"].guidance or ""), path
    opt_ts = wh.scalar(
        "SELECT max(opt_ts) FROM candidates WHERE run_id = ? AND tool = 'shop.stock' AND accepted",
        [grown.run_id],
    )
    assert opt_ts == 1.0  # the stock questions pass once the stock doc quotes them
    assert (
        json.loads(wh.scalar("SELECT config FROM runs WHERE run_id = ?", [grown.run_id]))["misuse_tasks"] == 4
    )
    assert "misuse_tasks" not in json.loads(
        Warehouse(tmp_path / "misuse0.duckdb").scalar("SELECT config FROM runs WHERE kind = 'optimize'")
    )  # runs without misuse tasks keep the ids they had before they existed


def test_a_tool_misused_in_the_optimized_tools_place_is_optimized_too_with_misused_tools(tmp_path) -> None:
    """Only the stock tool is asked for; the quote tool drew its requests in the profile. With
    --misused-tools the quote tool joins, is judged on the stock questions it was called on and on its own
    price requests, and its doc says nothing of the stock questions."""

    def run(misused: int):
        return _stock_run(
            tmp_path / f"misused{misused}.duckdb", ("shop.stock",), misuse_tasks=4, misused_tools=misused
        )

    plain_wh, plain, _ = run(0)
    assert [r.tool for r in plain.tools] == ["shop.stock"]
    # runs without the setting keep the ids they had before it existed
    assert "misused_tools" not in json.loads(
        plain_wh.scalar("SELECT config FROM runs WHERE kind = 'optimize'")
    )
    wh, grown, log = run(2)
    assert [r.tool for r in grown.tools] == ["shop.stock", "shop.quote"]
    assert any("shop.quote: optimized too" in line for line in log)
    assert _says_nothing_of_stock(grown.docset["shop.quote"])
    assert any("shop.quote: +" in line and "in another tool's place" in line for line in log)
    # judged on both: its own price requests pass under the original docs, the stock questions fail
    quote_row = next(r for r in grown.tools if r.tool == "shop.quote")
    assert 0.0 < quote_row.base_opt_ts < 1.0 and 0.0 < quote_row.base_val_ts < 1.0
    config = json.loads(wh.scalar("SELECT config FROM runs WHERE run_id = ?", [grown.run_id]))
    assert config["misused_tools"] == 2
    # a threshold no tool reaches adds none, and says so
    _, none, quiet = run(10_000)
    assert [r.tool for r in none.tools] == ["shop.stock"]
    assert any("no other tool was called" in line for line in quiet)
    with pytest.raises(ValueError, match="needs misuse_tasks"):
        OptimizeConfig(benchmark="shop", agent=AGENT, misused_tools=1)


class PulledReader(DocReadingAgent):
    """The doc reader, pulled to `shop.order` on price requests once the order doc shows usage (UE or UG).

    A neighbouring doc's effect on another tool's requests, defined by the fields present, not by wording.
    """

    def run(self, ctx):
        gold = ctx.task.gold[0]
        if gold.tool == "shop.quote":
            order = next(d for d in ctx.docs if d.tool == "shop.order")
            if order.has("UE") or order.has("UG"):
                ctx.execute(Call("shop.order", {"item": gold.args["item"], "date": "2024-02-01"}))
                return "ordered instead"
        return super().run(ctx)


def test_cross_tool_validation_rejects_a_doc_that_pulls_other_tools_requests(tmp_path) -> None:
    """Judged on its own tasks the order doc with usage is kept; judged also on the price requests it is not."""
    from core.warehouse import Warehouse

    def run(cross: int, name: str):
        bench = ShopBench(n=24, quote_tasks=12)
        return _optimize_in(
            tmp_path, name, bench, PulledReader, ("shop.order", "shop.quote"), cross_val_tasks=cross
        )

    _, alone = run(0, "alone")
    doc = alone.docset["shop.order"]
    assert doc.has("UE") or doc.has("UG")  # it fixes order tasks and breaks every price request
    wh, crossed = run(6, "crossed")
    doc = crossed.docset["shop.order"]
    assert not (doc.has("UE") or doc.has("UG"))
    val_tasks = wh.query(
        """SELECT DISTINCT e.task_id FROM candidates c JOIN run_episodes re ON re.run_id = c.val_run
           JOIN episodes e USING (episode_id) WHERE c.run_id = ? AND c.tool = 'shop.order'""",
        [crossed.run_id],
    )["task_id"].tolist()
    split = get_or_create_split(
        wh, "shop/v1", ShopBench(n=24, quote_tasks=12).tasks(), seed=0, grouping=DEFAULT_GROUPING
    )
    quotes = [t for t in val_tasks if t.startswith("quote-")]
    assert 0 < len(quotes) <= 6 and set(quotes) <= set(split.ids("opt"))  # the quote tool's opt tasks
    order = next(t for t in crossed.tools if t.tool == "shop.order")
    assert order.base_val_ts > 0  # the price requests pass with the original docs
    assert (
        json.loads(wh.scalar("SELECT config FROM runs WHERE run_id = ?", [crossed.run_id]))["cross_val_tasks"]
        == 6
    )
    assert "cross_val_tasks" not in json.loads(
        Warehouse(tmp_path / "alone.duckdb").scalar("SELECT config FROM runs WHERE kind = 'optimize'")
    )  # runs without it keep the ids they had before it existed


class RivalReader(DocReadingAgent):
    """The doc reader, who answers price requests with the stock tool unless the quote doc shows usage
    (UG or UE), and, once the order doc and the quote doc both show usage, asks for a quote on every order
    request: two docs that each say when to use them, and it follows the wrong one. Each doc helps alone;
    together they break the orders. Defined by the fields present, not by wording."""

    def run(self, ctx):
        docs = {d.tool: d for d in ctx.docs}

        def usage(tool: str) -> bool:
            return docs[tool].has("UG") or docs[tool].has("UE")

        gold = ctx.task.gold[0]
        if gold.tool == "shop.quote":
            ctx.execute(
                Call("shop.quote" if usage("shop.quote") else "shop.stock", {"item": gold.args["item"]})
            )
            return "answered"
        if gold.tool == "shop.order" and usage("shop.order") and usage("shop.quote"):
            ctx.execute(Call("shop.quote", {"item": gold.args["item"]}))
            return "asked for a quote"
        return super().run(ctx)


def test_in_context_judging_keeps_two_docs_that_only_help_apart_from_both_being_kept(tmp_path) -> None:
    """Judged beside the original docs, the order doc and the quote doc each gain usage, and the set they
    form breaks every order; judged beside the order doc already selected, the quote doc's usage loses
    the orders in its validation and is not kept, and the final set solves more test tasks."""
    from core.evaluation import RunnerEvaluator
    from core.warehouse import Warehouse

    def run(in_context: bool, name: str):
        bench = ShopBench(n=24, quote_tasks=12)
        wh, result = _optimize_in(
            tmp_path,
            name,
            bench,
            RivalReader,
            ("shop.order", "shop.quote"),
            cross_val_tasks=6,
            in_context=in_context,
        )
        split = get_or_create_split(wh, "shop/v1", bench.tasks(), seed=0, grouping=DEFAULT_GROUPING)
        test = split.tasks(bench.tasks(), "test")
        ts = (
            RunnerEvaluator(wh, bench, AGENT, agent_factory=RivalReader)
            .evaluate(result.docset, test, "test")
            .ts
        )
        return wh, result, ts

    def usage(doc: ToolDoc) -> bool:
        return doc.has("UG") or doc.has("UE")

    _, apart, apart_ts = run(False, "apart")
    assert usage(apart.docset["shop.order"]) and usage(apart.docset["shop.quote"])
    wh, together, together_ts = run(True, "together")
    assert usage(together.docset["shop.order"]) and not usage(together.docset["shop.quote"])
    assert together_ts > apart_ts
    quote = next(t for t in together.tools if t.tool == "shop.quote")
    assert quote.base_val_ts > next(t for t in apart.tools if t.tool == "shop.quote").base_val_ts
    # every quote candidate was run beside the order doc the run had selected
    order_doc = together.docset["shop.order"].doc_id
    members = wh.query(
        """SELECT DISTINCT m.doc_id FROM candidates c JOIN run_episodes re ON re.run_id = c.val_run
           JOIN episodes e USING (episode_id)
           JOIN doc_set_members m ON m.docset_id = e.docset_id AND m.tool = 'shop.order'
           WHERE c.run_id = ? AND c.tool = 'shop.quote'""",
        [together.run_id],
    )["doc_id"].tolist()
    assert members == [order_doc]
    assert json.loads(wh.scalar("SELECT config FROM runs WHERE run_id = ?", [together.run_id]))["in_context"]
    # resumed, the run restores each finished tool with the TS⁰ it was judged against in context,
    # without running its tasks beside the earlier docs again
    lines: list[str] = []
    _, again = _optimize_in(
        tmp_path,
        "together",
        ShopBench(n=24, quote_tasks=12),
        RivalReader,
        ("shop.order", "shop.quote"),
        log=lines.append,
        cross_val_tasks=6,
        in_context=True,
    )
    assert again.run_id == together.run_id and all(r.resumed for r in again.tools)
    assert again.docset.docset_id == together.docset.docset_id
    assert [(r.base_val_ts, r.base_opt_ts) for r in again.tools] == [
        (r.base_val_ts, r.base_opt_ts) for r in together.tools
    ]
    assert not [line for line in lines if "judged beside the docs selected so far" in line]
    assert "in_context" not in json.loads(
        Warehouse(tmp_path / "apart.duckdb").scalar("SELECT config FROM runs WHERE kind = 'optimize'")
    )  # runs judged beside the original docs keep the ids they had before the setting existed

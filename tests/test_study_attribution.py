"""Attribution of a doc set's effect to its changed docs, on the toy shop with a scripted agent.

The agent's failure modes are defined apart from any optimizer's wording:
- an order is right only when `qty` is marked required and `date`'s doc states ISO dates (the toy's
  doc reader);
- a quote request is answered with `shop.quote` only when the *stock* tool's description is long (a
  neighbouring doc moves the choice, as a small model's does); otherwise the agent orders the item.
So the stock doc's effect is all on other tools' tasks, and the order doc's all on its own.
"""

from __future__ import annotations

import pandas as pd
import pytest

from core.agents.base import AgentConfig
from core.benchmarks.base import Call
from core.docs import DocSet
from core.reports.sections import attribution as attribution_section
from core.study.attribution import (
    AttributionError,
    AttributionSpec,
    attribution_rows,
    changed_tools,
    from_comparison,
    plan_variants,
    run_attribution,
)
from tests.test_chisel_toy import DocReadingAgent, ShopBench

LONG = "Whether an item is in stock. " * 4


class NeighbourReader(DocReadingAgent):
    def run(self, ctx):
        gold = ctx.task.gold[0]
        if gold.tool == "shop.quote":
            stock = {d.tool: d for d in ctx.docs}["shop.stock"]
            if len(stock.description or "") > 60:
                ctx.execute(gold)
                return "quoted"
            ctx.execute(Call("shop.order", {"item": gold.args["item"], "date": "01/01/2024"}))
            return "ordered instead"
        return super().run(ctx)


def _docsets() -> tuple[DocSet, DocSet]:
    base = ShopBench().original_docs()
    order = base["shop.order"]
    fixed = order.model_copy(
        update={
            "guidance": "Call it once per order.",
            "parameters": tuple(
                p.model_copy(update={"required": True})
                if p.name == "qty"
                else p.model_copy(update={"description": "Delivery day, YYYY-MM-DD."})
                if p.name == "date"
                else p
                for p in order.parameters
            ),
        }
    )
    stock = base["shop.stock"].model_copy(update={"description": LONG})
    return base, DocSet(base.replace(fixed).replace(stock).values(), name="target")


@pytest.fixture
def attributed(warehouse):
    bench = ShopBench(n=6, quote_tasks=3)
    base, target = _docsets()
    for d in (base, target):
        warehouse.register_docset(d, benchmark=bench.name, origin="test")
    spec = AttributionSpec(
        benchmark="shop",
        task_ids=tuple(t.task_id for t in bench.tasks()),
        agent=AgentConfig(model="scripted/doc-reader"),
        base=base.docset_id,
        target=target.docset_id,
        eval_runs=2,
        label="toy target",
    )
    rows = run_attribution(warehouse, spec, bench=bench, agent_factory=NeighbourReader)
    return warehouse, bench, spec, rows


def test_variants_swap_one_doc_each() -> None:
    base, target = _docsets()
    assert changed_tools(base, target) == ["shop.order", "shop.stock"]
    labels = [v.label for v in plan_variants(base, target)]
    assert labels == [
        "base",
        "target",
        "only shop.order",
        "only shop.stock",
        "without shop.order",
        "without shop.stock",
    ]
    only_stock = plan_variants(base, target)[3].docset
    assert only_stock["shop.stock"] == target["shop.stock"] and only_stock["shop.order"] == base["shop.order"]
    assert [v.label for v in plan_variants(base, target, leave_one_out=False)][-1] == "only shop.stock"


def test_a_neighbouring_doc_shows_its_effect_on_the_other_tools_tasks(attributed) -> None:
    _, bench, _, rows = attributed
    by = rows.set_index("variant")
    # 6 order tasks and 3 quote tasks: the base fails all, the target passes all
    assert by.loc["target", "ts_against"] == 0.0 and by.loc["target", "ts_variant"] == 100.0
    assert by.loc["target", "delta_pp"] == pytest.approx(100.0)
    assert by.loc["only shop.order", "delta_pp"] == pytest.approx(100 * 6 / 9)
    assert by.loc["only shop.order", "own_n"] == 6 and by.loc["only shop.order", "own_delta_pp"] == 100.0
    assert by.loc["only shop.order", "others_delta_pp"] == 0.0
    # the stock doc has no task of its own; all of its effect is on the quote tasks
    assert by.loc["only shop.stock", "own_n"] == 0 and pd.isna(by.loc["only shop.stock", "own_delta_pp"])
    assert by.loc["only shop.stock", "others_n"] == 9
    assert by.loc["only shop.stock", "others_delta_pp"] == pytest.approx(100 * 3 / 9)
    # leave-one-out, against the target: without the stock doc the price requests are lost
    assert set(by[by["kind"] == "without"]["against"]) == {"target"} and by.loc["target", "against"] == "base"
    assert by.loc["without shop.stock", "delta_pp"] == pytest.approx(-100 * 3 / 9)
    assert by.loc["without shop.stock", "others_delta_pp"] == pytest.approx(-100 * 3 / 9)
    assert by.loc["without shop.order", "delta_pp"] == pytest.approx(-100 * 6 / 9)
    assert by.loc["without shop.order", "own_delta_pp"] == -100.0
    assert set(by["eval_runs"]) == {2} and set(by["n_tasks"]) == {9}


def test_a_rerun_runs_nothing_and_reads_the_same_rows(attributed) -> None:
    wh, bench, spec, rows = attributed
    before = wh.query("SELECT count(*) AS n FROM episodes")["n"][0]
    again = run_attribution(wh, spec, bench=bench, agent_factory=NeighbourReader)
    assert wh.query("SELECT count(*) AS n FROM episodes")["n"][0] == before
    cols = ["variant", "delta_pp", "own_delta_pp", "others_delta_pp"]
    assert again[cols].equals(rows[cols])
    assert attribution_rows(wh, spec.attribution_id)[cols].equals(rows[cols])


def test_results_section_names_each_variant(attributed) -> None:
    wh, _, spec, _ = attributed
    text = attribution_section(wh)
    assert text is not None and spec.attribution_id in text
    for label in (
        "only shop.order",
        "only shop.stock",
        "without shop.stock",
        "the target (every changed doc)",
    ):
        assert label in text
    assert "+33.3 [" in text and "-33.3 [" in text  # the stock doc alone, and the target without it


def test_bad_references_name_what_is_missing(warehouse) -> None:
    base, target = _docsets()
    with pytest.raises(AttributionError, match="no finished comparison 'nope'"):
        from_comparison(warehouse, "nope", "dc")
    with pytest.raises(AttributionError, match="same doc set"):
        AttributionSpec("shop", ("order-000",), AgentConfig(), base.docset_id, base.docset_id)
    with pytest.raises(AttributionError, match="changes no tool"):
        plan_variants(base, base)
    fewer = DocSet([d for t, d in target.items() if t != "shop.stock"])
    with pytest.raises(AttributionError, match="shop.stock"):
        changed_tools(base, fewer)


def test_cli_names_a_missing_comparison(tmp_path) -> None:
    from click.testing import CliRunner

    from core.cli.main import cli

    res = CliRunner().invoke(
        cli,
        [
            "study",
            "attribute",
            "--compare",
            "nope",
            "--method",
            "dc",
            "--warehouse",
            str(tmp_path / "w.duckdb"),
        ],
    )
    assert res.exit_code != 0 and "no finished comparison 'nope'" in res.output

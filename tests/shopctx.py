"""A ToolContext for `shop.order` of the toy ShopBench, for tests of the field synthesisers."""

from __future__ import annotations

from typing import Any


def shop_order_context(warehouse: Any, doc: Any = None, priors: Any = None) -> Any:
    """The optimizer's view of `shop.order` at iteration 1: original docs, the opt split's ground truth."""
    from core.benchmarks.splits import DEFAULT_GROUPING, get_or_create_split
    from core.chisel.access import GroundTruth
    from core.chisel.engines.base import Observations, ToolContext
    from core.chisel.introspect import signature
    from tests.test_chisel_toy import ShopBench

    bench = ShopBench(n=24, quote_tasks=0)
    split = get_or_create_split(warehouse, bench.key, bench.tasks(), seed=0, grouping=DEFAULT_GROUPING)
    original = bench.original_docs()
    doc = doc or original["shop.order"]
    return ToolContext(
        benchmark=bench,
        tool="shop.order",
        domain="shop",
        original=doc,
        current=doc,
        docset=original,
        iteration=1,
        seed=0,
        gt=GroundTruth(warehouse, "probe", split, bench.tasks()),
        signature=signature(bench, "shop.order", doc),
        opt_task_ids=split.ids("opt"),
        observations=Observations(),
        priors=priors or {},
    )

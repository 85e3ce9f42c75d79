"""A small doc-sensitive benchmark for the optimizer tests (and a few checks of its own).

`ShopBench` has one domain and three tools. Its `DocReadingAgent` behaves like
a model that follows the documentation literally: it passes `qty` only when
the doc marks it required (PRF), writes dates as ISO dates only when the date
parameter's own description or type shows that format (a YYYY-MM-DD pattern
or an ISO date: IPD / IPT),
and, on requests that could mean a quote (every fourth order), asks for a
quote first unless the order doc carries usage guidance or a usage example
(UG / UE) — a model that needs to be shown when a tool applies. Its failure
modes are defined by which fields the doc has and by the standard notation of
a date format, never by the optimizer's own wording, so the optimizer has
real, field-level problems to find and fix, deterministically and in
milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.agents.base import AgentConfig, EpisodeContext
from core.benchmarks.base import Call, Score, Task, ToolError
from core.docs import DocSet, Param, Return, ToolDoc

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
ISO_IN_DOC = re.compile(r"YYYY-MM-DD|\b\d{4}-\d{2}-\d{2}\b")


class ShopSandbox:
    def execute(self, call: Call) -> str:
        a = call.args
        if call.tool == "shop.order":
            if "qty" not in a:
                raise ToolError("qty is required")
            if not DATE.match(str(a.get("date", ""))):
                raise ToolError("date must use the format YYYY-MM-DD")
            return str({"order_id": f"o-{a.get('item')}", "status": "placed"})
        if call.tool == "shop.quote":
            return str({"price": 9.5})
        if call.tool == "shop.stock":
            return str({"in_stock": True})
        raise ToolError(f"unknown tool {call.tool}")


class ShopBench:
    name = "shop"
    key = "shop/v1"

    def __init__(self, n: int = 40, quote_tasks: int = 10) -> None:
        self._tasks = [
            Task(
                f"order-{i:03d}",
                "shop",
                f"Please order {i % 5 + 1} units of item{i} for day {i % 28 + 1}.",
                (
                    Call(
                        "shop.order",
                        {"item": f"item{i}", "qty": i % 5 + 1, "date": f"2024-02-{i % 28 + 1:02d}"},
                    ),
                ),
                ("shop.order",),
            )
            for i in range(n)
        ] + [
            Task(
                f"quote-{i:03d}",
                "shop",
                f"How much is item{i}?",
                (Call("shop.quote", {"item": f"item{i}"}),),
                ("shop.quote",),
            )
            for i in range(quote_tasks)
        ]

    def tool_names(self) -> list[str]:
        return ["shop.order", "shop.quote", "shop.stock"]

    def original_docs(self) -> DocSet:
        return DocSet(
            [
                ToolDoc(
                    tool="shop.order",
                    name="shop.order",
                    description="Order an item.",
                    parameters=(
                        Param(name="item", description="Item id.", type="str"),
                        Param(name="qty", description="How many.", type="int"),
                        Param(name="date", description="Delivery day.", type="str"),
                    ),
                    code="def order(item, qty=1, date=None): ...",
                ),
                ToolDoc(
                    tool="shop.quote",
                    name="shop.quote",
                    description="Price of an item.",
                    parameters=(Param(name="item", description="Item id.", type="str", required=True),),
                    returns=(Return(name="price", type="float"),),
                ),
                ToolDoc(tool="shop.stock", name="shop.stock", description="Whether an item is in stock."),
            ],
            name="original",
        )

    def tool_signature(self, tool: str) -> list[dict]:
        if tool == "shop.order":
            return [
                {"name": "item", "type": "str", "required": True},
                {"name": "qty", "type": "int", "required": True},
                {"name": "date", "type": "str", "required": True},
            ]
        return []

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def domains(self) -> list[str]:
        return ["shop"]

    def tools_for(self, task: Task) -> list[str]:
        return self.tool_names()

    def system_prompt(self, task: Task) -> str:
        return "You run a shop."

    def new_sandbox(self, task: Task) -> ShopSandbox:
        return ShopSandbox()

    def score(self, task: Task, calls: Sequence[Call], final_answer: str | None, sandbox) -> Score:
        ok = [c.key() for c in calls] == [c.key() for c in task.gold]
        return Score(ok, {c.tool for c in calls} == set(task.tools))


class DocReadingAgent:
    """A 'model' that follows the docs literally (see the module docstring).

    `hurt_on`: task ids on which a doc carrying a usage example (UE) confuses
    the agent, to produce candidates whose validation TS drops.
    """

    def __init__(self, config: AgentConfig, hurt_on: frozenset[str] = frozenset()) -> None:
        self.config = config
        self.hurt_on = hurt_on

    def run(self, ctx: EpisodeContext) -> str | None:
        gold = ctx.task.gold[0]
        docs = {d.tool: d for d in ctx.docs}
        if gold.tool != "shop.order":
            ctx.execute(gold)
            return "done"
        doc = docs["shop.order"]
        if doc.examples and ctx.task.task_id in self.hurt_on:
            ctx.execute(Call("shop.quote", {"item": gold.args["item"]}))
            return "confused"
        shown_when = doc.has("UG") or doc.has("UE")
        if not shown_when and int(ctx.task.task_id[-3:]) % 4 == 0:
            ctx.execute(Call("shop.quote", {"item": gold.args["item"]}))
        args = {"item": gold.args["item"]}
        qty = doc.param("qty")
        if qty is not None and qty.required:
            args["qty"] = gold.args["qty"]
        date = doc.param("date")
        if date is not None and ISO_IN_DOC.search(f"{date.description or ''} {date.type or ''}"):
            args["date"] = gold.args["date"]
        else:
            y, m, d = gold.args["date"].split("-")
            args["date"] = f"{m}/{d}/{y}"
        ctx.execute(Call("shop.order", args))
        return "ordered"


def test_toy_original_docs_fail_and_the_fixed_doc_passes() -> None:
    from core.agents.base import EpisodeContext

    bench = ShopBench(n=4, quote_tasks=0)
    task = bench.tasks()[1]
    docs = bench.original_docs()
    fixed = (
        docs["shop.order"]
        .add("PRF", {"item": True, "qty": True, "date": True})
        .refine("IPD", {"date": "Delivery day. Format: YYYY-MM-DD."})
    )
    for doc, expected in ((docs["shop.order"], False), (fixed, True)):
        ctx = EpisodeContext(
            task, bench, [doc, docs["shop.quote"]], ShopSandbox(), "", AgentConfig(model="scripted/x")
        )
        DocReadingAgent(ctx.config).run(ctx)
        assert bench.score(task, ctx.calls, None, None).success is expected

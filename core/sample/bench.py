"""`SampleShop`: two domains, five tools, docs that leave out what the tools insist on.

The shop's `order` needs `qty` and a YYYY-MM-DD date, the calendar's
`create_event` a YYYY-MM-DD date; the original docs say neither (no required
flags, no format). A model that follows the docs literally (`core.sample.model`)
fails those tasks until the docs say it, which gives every producer real,
field-level failures to work on. Scoring is call matching with a reason per
failure, like the real benchmarks' scorers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from core.benchmarks.base import Call, Score, Task, ToolError
from core.docs import DocSet, Param, Return, ToolDoc

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TOOLS = ("shop.order", "shop.quote", "shop.stock", "calendar.create_event", "calendar.search_events")
DOMAIN = {t: t.split(".")[0] for t in TOOLS}


class SampleSandbox:
    """Fresh per episode; rejects calls the way the real tools do."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def execute(self, call: Call) -> str:
        a = call.args
        if call.tool == "shop.order":
            if "qty" not in a:
                raise ToolError("qty is required")
            if not DATE.match(str(a.get("date", ""))):
                raise ToolError("date must use the format YYYY-MM-DD")
            return str({"order_id": f"o-{a.get('item')}", "status": "placed"})
        if call.tool == "shop.quote":
            return str({"item": a.get("item"), "price": 9.5})
        if call.tool == "shop.stock":
            return str({"item": a.get("item"), "in_stock": True})
        if call.tool == "calendar.create_event":
            if not DATE.match(str(a.get("date", ""))):
                raise ToolError("date must use the format YYYY-MM-DD")
            self.events.append(dict(a))
            return str({"event_id": len(self.events), "title": a.get("title")})
        if call.tool == "calendar.search_events":
            return str([e for e in self.events if str(a.get("query", "")).lower() in str(e).lower()])
        raise ToolError(f"unknown tool {call.tool}")


class SampleShop:
    name = "sample-shop"
    key = "sample-shop/v1"

    def __init__(self, orders: int = 24, quotes: int = 6, events: int = 12) -> None:
        self._tasks = (
            [
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
                for i in range(orders)
            ]
            + [
                Task(
                    f"quote-{i:03d}",
                    "shop",
                    f"What is the stock price of item{i}?",
                    (Call("shop.quote", {"item": f"item{i}"}),),
                    ("shop.quote",),
                )
                for i in range(quotes)
            ]
            + [
                Task(
                    f"event-{i:03d}",
                    "calendar",
                    f"Put 'Review {i}' in my calendar on day {i % 28 + 1}.",
                    (
                        Call(
                            "calendar.create_event",
                            {"title": f"Review {i}", "date": f"2024-03-{i % 28 + 1:02d}"},
                        ),
                    ),
                    ("calendar.create_event",),
                )
                for i in range(events)
            ]
        )

    # ------------------------------------------------------------------ the Benchmark protocol
    def tool_names(self) -> list[str]:
        return list(TOOLS)

    def tool_domain(self, tool: str) -> str:
        return DOMAIN[tool]

    def tool_signature(self, tool: str) -> list[dict[str, Any]] | None:
        """What the implementation requires (the truth the docs leave out)."""
        sigs = {
            "shop.order": [("item", "str"), ("qty", "int"), ("date", "str")],
            "calendar.create_event": [("title", "str"), ("date", "str")],
        }
        if tool not in sigs:
            return None
        return [{"name": n, "type": t, "required": True, "source": "sample signature"} for n, t in sigs[tool]]

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
                ),
                ToolDoc(
                    tool="shop.quote",
                    name="shop.quote",
                    description="Price of an item.",
                    parameters=(Param(name="item", description="Item id.", type="str", required=True),),
                    returns=(Return(name="price", type="float"),),
                ),
                ToolDoc(
                    tool="shop.stock",
                    name="shop.stock",
                    description="Whether an item is in stock.",
                    parameters=(Param(name="item", description="Item id.", type="str", required=True),),
                ),
                ToolDoc(
                    tool="calendar.create_event",
                    name="calendar.create_event",
                    description="Create a calendar event.",
                    parameters=(
                        Param(name="title", description="Title of the event.", type="str", required=True),
                        Param(name="date", description="Day of the event.", type="str", required=True),
                    ),
                ),
                ToolDoc(
                    tool="calendar.search_events",
                    name="calendar.search_events",
                    description="Find events whose title contains the query.",
                    parameters=(
                        Param(name="query", description="Words of the title.", type="str", required=True),
                    ),
                ),
            ],
            name="original",
        )

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def domains(self) -> list[str]:
        return ["calendar", "shop"]

    def tools_for(self, task: Task) -> list[str]:
        return [t for t in TOOLS if DOMAIN[t] == task.domain]

    def system_prompt(self, task: Task) -> str:
        return "You help with the shop and the calendar. Use the tools."

    def new_sandbox(self, task: Task) -> SampleSandbox:
        return SampleSandbox()

    def score(self, task: Task, calls: Sequence[Call], final_answer: str | None, sandbox: Any) -> Score:
        gold = task.gold[0]
        tool_correct = {c.tool for c in calls} == {gold.tool}
        mine = [c for c in calls if c.tool == gold.tool]
        if not mine:
            return Score(False, tool_correct, {"reason": "missing_call", "gold": gold.to_json()})
        if [c.key() for c in calls] == [gold.key()]:
            return Score(True, tool_correct, {"reason": "exact"})
        got = mine[-1].args
        for name, want in gold.args.items():
            if name not in got:
                return Score(False, tool_correct, {"reason": "missing_argument", "param": name})
            if got[name] != want:
                return Score(
                    False,
                    tool_correct,
                    {"reason": "wrong_value", "param": name, "expected": want, "got": got[name]},
                )
        return Score(False, tool_correct, {"reason": "extra_calls", "calls": len(calls)})

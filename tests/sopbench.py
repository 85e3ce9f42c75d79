"""A small office benchmark with two-step routines, and a weak agent, for the EvoSOP tests.

`OfficeBench` has a contact list, a calendar and an outbox. Its tasks need a
lookup before the write ("send X to Ann": look Ann's contact id up, then send;
"delete the event about Y": search it, then delete it; "rename ..."), and the
ground truth holds only the writes, as WorkBench's does. Scoring replays the
calls on fresh state and compares end states.

`RoutineAgent` plays a weak model deterministically: with atomic tools it
looks the input up but then passes the id correctly only on every third task
(`task index % 3 == 0`); offered an SOP whose tools fit the task it calls the
SOP with the values the task names. Each decision is recorded as a model call,
so reasoning rounds can be counted.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from typing import Any

from core.agents.base import AgentConfig, EpisodeContext
from core.benchmarks.base import Call, Score, Task, ToolError
from core.docs import DocSet, Param, Return, ToolDoc

CONTACTS = {"Ann Lee": "c-1", "Bob Stone": "c-2", "Cy Park": "c-3", "Di Moss": "c-4", "Ed Vale": "c-5"}
EVENTS = {"e-1": "Budget review", "e-2": "Design sync", "e-3": "Hiring panel", "e-4": "Offsite plan"}
WRITES = {"mail.send", "events.delete", "events.rename"}


class OfficeSandbox:
    def __init__(self) -> None:
        self.outbox: list[tuple[str, str]] = []
        self.events = dict(EVENTS)

    def state(self) -> Any:
        return (tuple(self.outbox), tuple(sorted(self.events.items())))

    def execute(self, call: Call) -> str:
        a = dict(call.args)
        if call.tool == "contacts.lookup":
            hits = [
                {"contact_id": cid, "name": n}
                for n, cid in CONTACTS.items()
                if str(a.get("name", "")).lower() in n.lower()
            ]
            return str(hits) if hits else "No contacts found."
        if call.tool == "mail.send":
            if a.get("contact_id") not in CONTACTS.values():
                return "Contact not found."
            self.outbox.append((a["contact_id"], str(a.get("text"))))
            return "Sent."
        if call.tool == "events.search":
            q = str(a.get("query", "")).lower()
            hits = [{"event_id": e, "title": t} for e, t in self.events.items() if q and q in t.lower()]
            return str(hits) if hits else "No events found."
        if call.tool == "events.delete":
            if self.events.pop(str(a.get("event_id")), None) is None:
                return "Event not found."
            return "Deleted."
        if call.tool == "events.rename":
            if str(a.get("event_id")) not in self.events:
                return "Event not found."
            self.events[str(a["event_id"])] = str(a.get("title"))
            return "Renamed."
        raise ToolError(f"unknown tool {call.tool}")


def _doc(tool: str, description: str, params: Sequence[tuple[str, str]]) -> ToolDoc:
    return ToolDoc(
        tool=tool,
        name=tool,
        description=description,
        parameters=tuple(Param(name=n, description=d, type="str", required=True) for n, d in params),
        returns=(Return(name="result", type="str"),),
    )


class OfficeBench:
    name = "office"
    key = "office/v1"

    def __init__(self, n: int = 12) -> None:
        people, titles = list(CONTACTS), list(EVENTS.items())
        tasks = []
        for i in range(n):
            kind = ("send", "delete", "rename")[i % 3] if i % 2 else "send"
            if kind == "send":
                name = people[i % len(people)]
                meta = {"kind": kind, "i": i, "name": name.split()[0], "text": f"note {i}"}
                gold = (Call("mail.send", {"contact_id": CONTACTS[name], "text": f"note {i}"}),)
                query = f"Send 'note {i}' to {name}."
            else:
                eid, title = titles[i % len(titles)]
                meta = {"kind": kind, "i": i, "query": title.split()[0]}
                if kind == "delete":
                    gold = (Call("events.delete", {"event_id": eid}),)
                    query = f"Delete the event about {title}."
                else:
                    meta["title"] = f"{title} v{i}"
                    gold = (Call("events.rename", {"event_id": eid, "title": f"{title} v{i}"}),)
                    query = f"Rename the {title} event to '{title} v{i}'."
            tasks.append(Task(f"office-{i:03d}", kind, query, gold, (gold[0].tool,), meta))
        self._tasks = tasks

    def tool_names(self) -> list[str]:
        return ["contacts.lookup", "mail.send", "events.search", "events.delete", "events.rename"]

    def original_docs(self) -> DocSet:
        return DocSet(
            [
                _doc(
                    "contacts.lookup",
                    "Find contacts whose name contains the text.",
                    [("name", "Part of a name.")],
                ),
                _doc(
                    "mail.send",
                    "Send a message to a contact.",
                    [("contact_id", "The contact id."), ("text", "Body.")],
                ),
                _doc(
                    "events.search",
                    "Find events whose title contains the text.",
                    [("query", "Part of a title.")],
                ),
                _doc("events.delete", "Delete an event.", [("event_id", "The event id.")]),
                _doc(
                    "events.rename",
                    "Rename an event.",
                    [("event_id", "The event id."), ("title", "New title.")],
                ),
            ],
            name="original",
        )

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def domains(self) -> list[str]:
        return ["delete", "rename", "send"]

    def tools_for(self, task: Task) -> list[str]:
        return self.tool_names()

    def system_prompt(self, task: Task) -> str:
        return "You run an office."

    def new_sandbox(self, task: Task) -> OfficeSandbox:
        return OfficeSandbox()

    def tool_writes(self, tool: str) -> bool | None:
        return tool in WRITES if tool in self.tool_names() else None

    def is_error_output(self, text: str | None) -> bool:
        return (text or "").strip().endswith("not found.")

    def score(
        self, task: Task, calls: Sequence[Call], final_answer: str | None, sandbox: Any = None
    ) -> Score:
        def replay(cs: Sequence[Call]) -> Any:
            box = OfficeSandbox()
            for c in cs:
                if c.tool in WRITES:
                    try:
                        box.execute(c)
                    except ToolError:
                        pass
            return box.state()

        ok = replay(calls) == replay(task.gold)
        return Score(
            ok, {c.tool for c in calls if c.tool in WRITES} == set(task.tools), {"n_calls": len(calls)}
        )


def end_state(calls: Sequence[Call]) -> Any:
    box = OfficeSandbox()
    for c in calls:
        if c.tool in WRITES:
            box.execute(copy.deepcopy(c))
    return box.state()


class RoutineAgent:
    """The weak agent of the module docstring; `sleep` paces episodes for the resume test."""

    sleep = 0.0

    def __init__(self, config: AgentConfig) -> None:
        self.config = config

    def _think(self, ctx: EpisodeContext) -> None:
        ctx.recorder.add("model_call", payload={"agent": "routine"})
        if self.sleep:
            time.sleep(self.sleep)

    def run(self, ctx: EpisodeContext) -> str | None:
        m = dict(ctx.task.meta)
        kind = m["kind"]
        write = {"send": "mail.send", "delete": "events.delete", "rename": "events.rename"}[kind]
        values = {k: v for k, v in m.items() if k in ("name", "text", "query", "title")}
        for doc in ctx.docs:
            if not doc.tool.startswith("sop."):
                continue
            names = [p.name for p in doc.parameters]
            direct = doc.tool.endswith("_then_" + write.split(".")[1])
            if "action" in names and write.split(".")[1] in (doc.description or ""):
                args = {"action": write.split(".")[1], **{k: v for k, v in values.items() if k in names}}
            elif direct and set(names) <= set(values):
                args = {k: values[k] for k in names}
            else:
                continue
            self._think(ctx)
            ctx.execute(Call(doc.tool, args))
            self._think(ctx)
            return "done"
        self._think(ctx)
        if kind == "send":
            out = ctx.execute(Call("contacts.lookup", {"name": m["name"]}))
            key, tool_arg = "contact_id", "contact_id"
        else:
            out = ctx.execute(Call("events.search", {"query": m["query"]}))
            key, tool_arg = "event_id", "event_id"
        self._think(ctx)
        found = out.split(f"'{key}': '")[1].split("'")[0] if f"'{key}': '" in out else None
        value = found if m["i"] % 3 == 0 and found else (m.get("name") or m.get("query"))
        args = {tool_arg: value}
        if kind == "send":
            args["text"] = m["text"]
        if kind == "rename":
            args["title"] = m["title"]
        ctx.execute(Call(write, args))
        self._think(ctx)
        return "done"

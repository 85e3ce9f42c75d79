"""The offline composer mines a known two-step routine and its SOP reproduces the gold end state; merging."""

from __future__ import annotations

import pytest

from core.benchmarks.base import Call
from core.evaluation import Step, Trace
from core.sop.bench import SopBenchmark
from core.sop.composer import compose
from core.sop.executor import Limits
from core.sop.merge import merge_offline
from core.sop.mining import Experience, mine
from core.sop.model import Toolset
from core.sop.validate import validate
from tests.sopbench import OfficeBench, end_state

LIMITS = Limits(cpu_s=1, wall_s=5, memory_mb=200)


def _trace(task_id: str, steps: list[tuple[str, dict, str]], success: bool) -> Trace:
    return Trace(
        episode_id=f"ep-{task_id}",
        task_id=task_id,
        domain="send",
        query="",
        success=success,
        tool_correct=success,
        steps=tuple(Step(tool=t, args=a, output=o) for t, a, o in steps),
    )


def _send(
    task_id: str, name: str, cid: str, text: str, success: bool = True, noise: bool = False
) -> Experience:
    steps = [("events.search", {"query": "zzz"}, "No events found.")] if noise else []
    steps += [
        ("contacts.lookup", {"name": name}, str([{"contact_id": cid, "name": name}])),
        (
            "mail.send",
            {"contact_id": cid if success else name, "text": text},
            "Sent." if success else "Contact not found.",
        ),
    ]
    gold = (Call("mail.send", {"contact_id": cid, "text": text}),)
    return Experience(task_id, _trace(task_id, steps, success), gold)


def test_the_composer_mines_a_two_step_routine_with_its_data_flow() -> None:
    exps = [
        _send("t1", "Ann", "c-1", "hi"),
        _send("t2", "Bob", "c-2", "yo", noise=True),
        _send("t3", "Cy", "c-3", "x"),
    ]
    patterns = mine(exps)
    top = patterns[0]
    assert top.tools == ("contacts.lookup", "mail.send") and top.support == {"t1", "t2", "t3"}
    bindings = {a: (b.kind, b.step, b.key) for a, b in top.steps[1].args}
    assert bindings == {"contact_id": ("output", 0, "contact_id"), "text": ("param", -1, None)}
    assert not any("events.search" in p.tools for p in patterns), "an unlinked call is not part of a routine"

    sops, rejected = compose(patterns, OfficeBench().original_docs(), max_new=1)
    assert not rejected and len(sops) == 1
    sop = sops[0]
    assert sop.name == "lookup_then_send" and sop.uses == ("contacts.lookup", "mail.send")
    assert [p.name for p in sop.doc.parameters] == ["name", "text"]
    assert validate(sop.code).uses == sop.uses
    assert "tools.failed(out1) or tools.empty(out1)" in sop.code, "it checks the lookup before using it"
    again, _ = compose(mine(exps), OfficeBench().original_docs(), max_new=1)
    assert again[0].sop_id == sop.sop_id, "deterministic"


def test_the_sop_reproduces_the_gold_end_state_through_the_benchmark_wrapper() -> None:
    bench = OfficeBench(6)
    sops, _ = compose(
        mine([_send("t1", "Ann", "c-1", "hi"), _send("t2", "Bob", "c-2", "yo")]), bench.original_docs()
    )
    sop_bench = SopBenchmark(bench, Toolset(sops), limits=LIMITS)
    task = next(t for t in bench.tasks() if t.meta["kind"] == "send")
    assert sops[0].tool in sop_bench.tools_for(task)
    box = sop_bench.new_sandbox(task)
    out = box.execute(Call(sops[0].tool, {"name": task.meta["name"], "text": task.meta["text"]}))
    assert out == "Sent."
    inner = box.take_inner_calls()
    assert [c.call.tool for c in inner] == ["contacts.lookup", "mail.send"]
    assert end_state([c.call for c in inner]) == end_state(task.gold)
    calls = [Call(sops[0].tool, {"name": task.meta["name"]}), *(c.call for c in inner)]
    assert sop_bench.score(task, calls, "done", box).success, "scoring sees the inner (atomic) calls"


def test_failed_trajectories_teach_only_when_the_gold_write_confirms_the_link() -> None:
    failed = _send("t9", "Ann", "c-1", "hi", success=False)
    patterns = mine([failed])
    assert patterns and patterns[0].tools == ("contacts.lookup", "mail.send"), (
        "the agent's own lookup + the training task's gold write"
    )
    assert patterns[0].sources == ["ep-t9"]
    assert mine([Experience("t9", failed.trace, ())]) == [], "without gold a failed trajectory is not trusted"


def test_merge_adds_a_composite_and_keeps_its_parts() -> None:
    bench = OfficeBench(6)

    def ev(tid: str, query: str, eid: str, write: Call) -> Experience:
        steps = [("events.search", {"query": query}, str([{"event_id": eid, "title": query}]))]
        steps.append(
            (write.tool, dict(write.args), "Deleted." if write.tool.endswith("delete") else "Renamed.")
        )
        return Experience(tid, _trace(tid, steps, True), (write,))

    exps = [
        ev("d1", "Budget", "e-1", Call("events.delete", {"event_id": "e-1"})),
        ev("r1", "Design", "e-2", Call("events.rename", {"event_id": "e-2", "title": "New"})),
    ]
    parts, _ = compose(mine(exps), bench.original_docs(), max_new=5)
    toolset = Toolset(parts)
    merged, rejected = merge_offline(toolset, bench.original_docs())
    assert not rejected and len(merged) == 1
    comp = merged[0]
    assert comp.origin == "merge" and set(comp.parents) == {p.sop_id for p in parts}
    assert [p.name for p in comp.doc.parameters] == ["action", "query", "title"]
    after = toolset.union(merged)
    assert {p.sop_id for p in parts} <= set(after.ids), "non-destructive: the parts stay"
    assert merge_offline(after, bench.original_docs())[0] == [], "a group gets one composite"

    sop_bench = SopBenchmark(bench, after, limits=LIMITS)
    for task in bench.tasks():
        if task.meta["kind"] not in ("delete", "rename"):
            continue
        box = sop_bench.new_sandbox(task)
        args = {"action": task.meta["kind"], "query": task.meta["query"]}
        if task.meta["kind"] == "rename":
            args["title"] = task.meta["title"]
        box.execute(Call(comp.tool, args))
        assert end_state([c.call for c in box.take_inner_calls()]) == end_state(task.gold)
    box = sop_bench.new_sandbox(bench.tasks()[1])
    assert box.execute(Call(comp.tool, {"action": "explode", "query": "x"})).startswith("Unknown action")


def test_wrong_arguments_are_the_callers_error_not_a_defect() -> None:
    bench = OfficeBench(3)
    sops, _ = compose(mine([_send("t1", "Ann", "c-1", "hi")]), bench.original_docs())
    box = SopBenchmark(bench, Toolset(sops), limits=LIMITS).new_sandbox(bench.tasks()[0])
    from core.benchmarks.base import ToolError

    with pytest.raises(ToolError, match="unexpected argument") as err:
        box.execute(Call(sops[0].tool, {"name": "Ann", "text": "x", "cc": "y"}))
    assert "defect" not in str(err.value)


def test_an_sop_call_may_not_outlive_the_episode() -> None:
    """The episode context passes its time left (`accepts_timeout`); the SOP's wall clock shrinks to it."""
    import time

    from core.benchmarks.base import ToolError
    from core.docs import ToolDoc
    from core.sop.model import Sop

    bench = OfficeBench(3)
    hang = Sop(
        name="hang",
        doc=ToolDoc(tool="sop.hang", name="hang"),
        code="def hang():\n    while True:\n        pass\n",
        uses=("contacts.lookup",),
        origin="manual",
    )
    box = SopBenchmark(bench, Toolset([hang]), limits=Limits(cpu_s=30, wall_s=30)).new_sandbox(
        bench.tasks()[0]
    )
    assert box.accepts_timeout
    t0 = time.monotonic()
    with pytest.raises(ToolError, match=r"defect: wall_time"):
        box.execute(Call("sop.hang", {}), timeout_s=0.5)
    assert time.monotonic() - t0 < 3


def _workbench_renames():
    """WorkBench, its read-only tools, its "rename the next X meeting" tasks, and four as experiences."""
    from core.benchmarks.meta import read_only_tools
    from core.benchmarks.registry import get_benchmark

    bench = get_benchmark("workbench")
    read_only = read_only_tools(bench)
    renames = [
        t
        for t in bench.tasks()
        if t.domain == "calendar" and len(t.gold) == 1 and t.gold[0].tool == "calendar.update_event"
    ]
    return bench, read_only, renames, [Experience(t.task_id, None, t.gold, t.query) for t in renames[:4]]


@pytest.mark.usefixtures("data_dir")  # WorkBench's tasks: skipped where its data is absent
def test_doc_links_give_the_lookup_a_weak_agent_never_made_and_the_sop_reproduces_the_gold_end_state() -> (
    None
):
    """WorkBench's "rename the next X meeting": gold holds only the write; the lookup comes from the docs."""
    from core.sop.engines import ComposerConstructor
    from core.sop.mining import doc_linked

    bench, read_only, renames, exps = _workbench_renames()
    assert mine(exps) == [], "no trajectory, no mined routine"
    patterns = doc_linked(exps, bench.original_docs(), read_only)
    assert [p.tools for p in patterns] == [("calendar.search_events", "calendar.update_event")]
    top = patterns[0]
    assert top.support == {e.task_id for e in exps} and top.sources[0] == "doc:calendar.search_events"
    bindings = {a: (b.kind, b.step, b.key) for a, b in top.steps[1].args}
    assert bindings["event_id"] == ("output", 0, "event_id") and bindings["field"][0] == "param"
    assert doc_linked(exps, bench.original_docs(), frozenset()) == [], "no read-only tool, no link"

    sops, rejected = ComposerConstructor(doc_links=True, read_only=read_only).construct(
        exps, bench.original_docs(), Toolset(), run_id="r", epoch=0
    )
    assert not rejected and len(sops) == 1
    sop = sops[0]
    assert {p.name: p.required for p in sop.doc.parameters} == {
        "field": True,
        "new_value": True,
        "query": False,  # the lookup's own default
        "time_min": False,
        "time_max": False,
    }
    assert not sop.doc.examples, "no call of it was seen: no example values"
    assert ComposerConstructor(read_only=read_only).construct(
        exps, bench.original_docs(), Toolset(), run_id="r", epoch=0
    ) == ([], []), "off by default: routines from trajectories only"

    sop_bench = SopBenchmark(bench, Toolset(sops), limits=LIMITS)
    task = next(t for t in renames if t.task_id == "calendar-042")  # "rename the next sync up meeting"
    box = sop_bench.new_sandbox(task)
    args = {
        "query": "sync up",
        "time_min": "2023-11-30 00:00:00",
        "field": "event_name",
        "new_value": "daily stand-up",
    }
    assert box.execute(Call(sop.tool, args)) == "Event updated successfully."
    inner = [c.call for c in box.take_inner_calls()]
    assert [c.tool for c in inner] == ["calendar.search_events", "calendar.update_event"]
    assert sop_bench.score(task, [Call(sop.tool, args), *inner], "done", box).success


def test_doc_links_are_part_of_the_run_id_only_when_on() -> None:
    from core.sop.config import SopConfig

    assert "doc_links" not in SopConfig().key("workbench/domains")  # runs without keep their ids
    assert SopConfig(doc_links=True).key("workbench/domains")["doc_links"] is True


@pytest.mark.usefixtures("data_dir")  # WorkBench's tasks: skipped where its data is absent
def test_offered_instead_the_wrapped_write_is_withheld_from_the_agent_but_not_from_the_sop() -> None:
    """The `offer="instead"` ablation: the agent gets the routine, not the atomic write it wraps."""
    from core.benchmarks.base import ToolError
    from core.sop.config import SopConfig
    from core.sop.engines import ComposerConstructor

    bench, read_only, renames, exps = _workbench_renames()
    sops, _ = ComposerConstructor(doc_links=True, read_only=read_only).construct(
        exps, bench.original_docs(), Toolset(), run_id="r", epoch=0
    )
    toolset = Toolset(sops)
    withhold = toolset.wrapped_writes(read_only)
    assert withhold == {"calendar.update_event"}, "the lookup is read-only and stays offered"

    beside = SopBenchmark(bench, toolset, limits=LIMITS)
    instead = SopBenchmark(bench, toolset, limits=LIMITS, withhold=withhold)
    task = next(t for t in renames if t.task_id == "calendar-042")
    assert "calendar.update_event" in beside.tools_for(task)
    offered = instead.tools_for(task)
    assert "calendar.update_event" not in offered
    assert "calendar.search_events" in offered and sops[0].tool in offered
    assert instead.key == beside.key + ":instead", "the two offers never share an episode"
    assert instead.source.load().tools_for(task) == offered, "a worker rebuilds the same offer"
    email = next(t for t in bench.tasks() if t.domain == "email")
    assert instead.tools_for(email) == beside.tools_for(email), "no SOP offered there, nothing withheld"

    box = instead.new_sandbox(task)
    with pytest.raises(ToolError, match=r"not offered here; call sop\."):
        box.execute(
            Call("calendar.update_event", {"event_id": "00000000", "field": "event_name", "new_value": "x"})
        )
    args = {
        "query": "sync up",
        "time_min": "2023-11-30 00:00:00",
        "field": "event_name",
        "new_value": "daily stand-up",
    }
    assert box.execute(Call(sops[0].tool, args)) == "Event updated successfully."
    inner = [c.call for c in box.take_inner_calls()]
    assert instead.score(task, [Call(sops[0].tool, args), *inner], "done", box).success

    assert "offer" not in SopConfig().key("workbench/domains")
    assert SopConfig(offer="instead").key("workbench/domains")["offer"] == "instead"
    with pytest.raises(ValueError, match="unknown SOP offer"):
        SopConfig(offer="nowhere")

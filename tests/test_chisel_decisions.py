"""The optimizer's decisions as pure functions: no warehouse, no model."""

from __future__ import annotations

from core.benchmarks.base import Call, Task
from core.chisel.decisions import Candidate, ToolProfile, accepted, fixed, judge, regressions, select
from core.docs import ToolDoc
from core.evaluation import EvalBatch, Trace


def _batch(run: str, outcomes: dict[str, list[bool]], part: str = "opt") -> EvalBatch:
    traces = tuple(
        Trace(
            episode_id=f"{run}-{t}-{r}",
            task_id=t,
            domain="d",
            query="q",
            success=ok,
            tool_correct=ok,
            repeat=r,
        )
        for t, oks in sorted(outcomes.items())
        for r, ok in enumerate(oks)
    )
    return EvalBatch(run, part, "ds", traces, len(traces))


def _one_call_task(tid: str, tool: str) -> Task:
    """A task whose ground truth is one call of `tool`."""
    return Task(tid, "d", "q", (Call(tool, {}),), (tool,))


def _calling(tid: str, tool: str, ok: bool = False, n: int = 0) -> Trace:
    """Episode `n` of task `tid` in which the agent called `tool` (failed unless `ok`)."""
    return Trace(
        episode_id=f"{tid}-{n}",
        task_id=tid,
        domain="d",
        query="q",
        success=ok,
        tool_correct=ok,
        steps=({"tool": tool, "args": {}},),
    )


def test_acceptance_is_at_least_the_original_validation_ts():
    assert accepted(0.5, 0.5) and accepted(0.75, 0.5) and not accepted(0.25, 0.5)


def test_regressions_and_fixes_compare_passing_tasks():
    base = {"a": True, "b": False, "c": True}
    now = {"a": False, "b": True}  # c missing now: counts as failing
    assert regressions(base, now) == ["a", "c"] and fixed(base, now) == ["b"]


def test_judge_builds_a_regression_aware_evaluation_with_repeats():
    profile = ToolProfile(
        "t",
        "d",
        opt=_batch("p-opt", {"x": [True, True], "y": [False, False], "z": [True, False]}),
        val=_batch("p-val", {"v": [False, True]}, "val"),
    )
    # z passes with the original (1 of 2 repeats is half) and y fails
    val = _batch("c-val", {"v": [True, True]}, "val")
    opt = _batch("c-opt", {"x": [False, False], "y": [True, True], "z": [True, True]})
    ev = judge(profile, val, opt)
    assert (ev.val_ts, ev.base_val_ts, ev.opt_ts) == (1.0, 0.5, 4 / 6)
    assert ev.regressions == ["x"] and ev.fixed == ["y"] and ev.accepted
    assert ev.new_failures == ["c-opt-x-0", "c-opt-x-1"] and (ev.val_run, ev.opt_run) == ("c-val", "c-opt")
    worse = judge(profile, _batch("w", {"v": [False, False]}, "val"), opt)
    assert not worse.accepted


def test_profile_views_and_selection_over_typed_candidates():
    batch = _batch("r", {"a": [True], "b": [False]})
    assert (
        batch.only(["b"]).ts == 0.0 and batch.only(["a", "b"]).ts == 0.5 and batch.failed()[0].task_id == "b"
    )
    d0 = ToolDoc(tool="t", name="t", description="x")
    good = d0.add("UG", "use it")
    profile = ToolProfile("t", "d", opt=batch, val=_batch("v", {"v": [False]}, "val"))
    ev = judge(profile, _batch("cv", {"v": [True]}, "val"), batch)
    chosen = select(d0, 0.0, [Candidate(good, ev, 12, 1)])
    assert chosen.doc == good and chosen.val_ts == 1.0 and "iteration 1" in chosen.reason


def test_partial_credit_of_calls_against_the_gold() -> None:
    from core.benchmarks.base import Call
    from core.benchmarks.credit import call_match, partial_credit

    gold = Call("book", {"day": "2024-02-03", "qty": 2, "name": "Ann"})
    # right tool, 2 of 3 arguments (loose: case, quotes and number spelling do not matter)
    assert call_match(gold, Call("book", {"day": "2024-02-03", "qty": "2.0", "name": "bob"})) == 3 / 4
    assert call_match(gold, Call("quote", {"day": "2024-02-03"})) == 0.0
    assert partial_credit([gold], [Call("quote", {}), Call("book", {"name": " ann "})]) == 2 / 4
    assert partial_credit([gold], []) == 0.0 and partial_credit([], []) == 1.0
    # the best call per gold call, averaged over the gold calls
    two = [gold, Call("pay", {})]
    assert partial_credit(two, [Call("pay", {}), gold]) == 1.0
    assert partial_credit(two, [Call("pay", {})]) == 0.5


def _scored(run: str, outcomes: dict[str, list[tuple[bool, float]]], part: str) -> EvalBatch:
    traces = tuple(
        Trace(
            episode_id=f"{run}-{t}-{r}",
            task_id=t,
            domain="d",
            query="q",
            success=ok,
            tool_correct=ok,
            repeat=r,
            score={"partial": partial},
        )
        for t, samples in sorted(outcomes.items())
        for r, (ok, partial) in enumerate(samples)
    )
    return EvalBatch(run, part, "ds", traces, len(traces))


def test_repeated_samples_accept_on_ts_and_partial_credit_only_breaks_ties() -> None:
    """Acceptance and selection over repeated samples: TS decides, partial credit breaks exact TS ties."""
    d0 = ToolDoc(tool="t", name="t", description="x")
    closer, further, wrong = d0.add("UG", "a"), d0.add("UG", "bb"), d0.add("UG", "c")
    profile = ToolProfile(
        "t",
        "d",
        opt=_scored("p-opt", {"o1": [(False, 0.25)] * 3, "o2": [(True, 1.0)] * 3}, "opt"),
        val=_scored("p-val", {"v1": [(True, 1.0), (False, 0.25), (False, 0.25)]}, "val"),
    )
    assert profile.val.partial == 0.5 and profile.opt.partial == 0.625
    same_ts_nearer = judge(
        profile,
        _scored("a-val", {"v1": [(True, 1.0), (False, 0.75), (False, 0.5)]}, "val"),
        _scored("a-opt", {"o1": [(False, 0.75)] * 3, "o2": [(True, 1.0)] * 3}, "opt"),
    )
    same_ts_same_credit = judge(profile, profile.val, profile.opt)
    lower_ts_high_credit = judge(
        profile,
        _scored("c-val", {"v1": [(False, 0.9)] * 3}, "val"),
        _scored("c-opt", {"o1": [(False, 0.9)] * 3, "o2": [(True, 1.0)] * 3}, "opt"),
    )
    assert same_ts_nearer.accepted and same_ts_same_credit.accepted
    assert not lower_ts_high_credit.accepted  # credit never replaces TS
    assert same_ts_nearer.val_partial > same_ts_nearer.base_val_partial
    # equal TS everywhere: the candidate that got closer to the gold calls is selected ...
    chosen = select(
        d0,
        profile.base_val,
        [
            Candidate(further, same_ts_same_credit, 10, 1),
            Candidate(closer, same_ts_nearer, 30, 2),
            Candidate(wrong, lower_ts_high_credit, 5, 3),
        ],
    )
    assert chosen.doc == closer and "partial credit" in chosen.reason
    # ... and a candidate that ties on TS and on credit does not replace the original
    kept = select(d0, profile.base_val, [Candidate(further, same_ts_same_credit, 10, 1)])
    assert kept.doc == d0 and "original kept" in kept.reason


def test_headroom_below_the_band_needs_partial_credit() -> None:
    """TS⁰ = 0 with most of each call right is a doc-fixable tool; TS⁰ = 0 with nothing right is not."""
    from core.chisel.decisions import outside_headroom

    close = _scored("c", {"a": [(False, 0.75)] * 3, "b": [(False, 0.5)] * 3}, "opt")
    hopeless = _scored("h", {"a": [(False, 0.0)] * 3, "b": [(False, 0.0)] * 3}, "opt")
    always = _scored("w", {"a": [(True, 1.0)] * 3}, "opt")
    empty = _scored("v", {}, "val")
    band = (0.15, 0.85)
    assert outside_headroom(ToolProfile("t", "d", close, empty), band) is None
    assert "partial credit (0.00)" in outside_headroom(ToolProfile("t", "d", hopeless, empty), band)
    assert "above the headroom band" in outside_headroom(ToolProfile("t", "d", always, empty), band)
    assert outside_headroom(ToolProfile("t", "d", hopeless, empty), None) is None
    # no-call guard tasks pass when the agent does nothing: they are not the tool's headroom
    guarded = _scored("g", {"n1": [(True, 1.0)] * 3, "n2": [(True, 1.0)] * 3}, "val")
    assert outside_headroom(ToolProfile("t", "d", hopeless, guarded), band) is None  # 6 of 12 pass
    assert "partial credit" in outside_headroom(ToolProfile("t", "d", hopeless, guarded), band, {"a", "b"})


def test_validation_is_topped_up_to_the_minimum_from_the_domain() -> None:
    from core.benchmarks.base import Task
    from core.chisel.decisions import pool_validation
    from core.chisel.profile import ToolTasks

    def tasks(*ids: str) -> list[Task]:
        return [Task(i, "d", "q", (), ()) for i in ids]

    few = ToolTasks("a", "d", tasks("o1"), tasks("v1"))
    many = ToolTasks("b", "d", tasks("o2"), tasks("v2", "v3", "v4", "v5", "v6"))
    pooled = {tt.tool: tt for tt in pool_validation([few, many], 4, seed=0)}
    a_val = [t.task_id for t in pooled["a"].val]
    assert len(a_val) == 4 and "v1" in a_val  # its own task plus three of the domain's others
    assert pooled["b"] == many  # enough of its own
    assert [t.task_id for t in pool_validation([few, many], 4, seed=0)[0].val] == a_val  # seeded
    assert any(
        [t.task_id for t in pool_validation([few, many], 4, seed=s)[0].val] != a_val for s in range(1, 6)
    )
    assert pool_validation([few], 4)[0] == few  # nothing to pool from


def test_selection_weighs_validation_and_the_optimization_rerun_by_their_episodes() -> None:
    """A candidate that gains 2 validation episodes while losing 4 of its own tasks' episodes is not chosen."""
    from core.chisel.types import Evaluation

    d0 = ToolDoc(tool="t", name="t", description="x")
    base = dict(
        base_val_ts=5 / 12, base_opt_ts=9 / 18, val_run="", opt_run="", accepted=True, n_val=12, n_opt=18
    )
    val_up_opt_down = Evaluation(val_ts=7 / 12, opt_ts=5 / 18, **base)
    both_up = Evaluation(val_ts=6 / 12, opt_ts=10 / 18, **base)
    assert val_up_opt_down.delta < 0 < both_up.delta
    kept = select(d0, 5 / 12, [Candidate(d0.add("UG", "a"), val_up_opt_down, 5, 1)])
    assert kept.doc == d0 and "does not improve" in kept.reason
    chosen = select(
        d0,
        5 / 12,
        [Candidate(d0.add("UG", "a"), val_up_opt_down, 5, 1), Candidate(d0.add("UG", "b"), both_up, 9, 2)],
    )
    assert chosen.doc == d0.add("UG", "b")
    # the paper's rule looks at validation only
    assert select(d0, 5 / 12, [Candidate(d0.add("UG", "a"), val_up_opt_down, 5, 1)], "paper").doc != d0


def test_every_tool_is_judged_on_the_same_no_call_validation_tasks_of_its_domain() -> None:
    """judged_groups pools, then adds a seeded sample of the domain's no-call validation tasks (never test)."""
    from core.benchmarks.base import Call, Task
    from core.chisel.decisions import guard_validation, judged_groups
    from core.chisel.profile import ToolTasks

    def task(i: str, domain: str = "d", tool: str | None = None) -> Task:
        return Task(i, domain, "q", (Call(tool, {}),) if tool else (), (tool,) if tool else ())

    class Parts:
        parts = {"o1": "opt", "v1": "val", "v2": "val", "n1": "val", "n2": "val", "n3": "val", "t1": "test"}

        def tasks(self, tasks, part):
            return [t for t in tasks if self.parts.get(t.task_id) == part]

    tasks = [
        task("o1", tool="a"),
        task("v1", tool="a"),
        task("v2", tool="b"),
        task("n1"),
        task("n2"),
        task("n3"),
        task("t1"),
        task("x1", domain="e"),
    ]
    groups = {"d": [ToolTasks("a", "d", [tasks[0]], [tasks[1]]), ToolTasks("b", "d", [], [tasks[2]])]}
    judged = judged_groups(groups, tasks, Parts(), min_val=0, guard_val=2, seed=0)
    vals = {tt.tool: [t.task_id for t in tt.val] for tt in judged["d"]}
    guard_a = set(vals["a"]) - {"v1"}
    assert len(guard_a) == 2 and guard_a <= {"n1", "n2", "n3"}  # no test task, no other domain's task
    assert set(vals["b"]) - {"v2"} == guard_a  # the same sample for every tool: profiled once
    assert judged_groups(groups, tasks, Parts(), 0, 0) == {"d": groups["d"]}  # off: unchanged
    assert guard_validation(groups["d"], [tasks[3]], 4)[0].val == [tasks[3], tasks[1]]  # in task-id order
    assert guard_validation(groups["d"], [tasks[1]], 4)[0] == groups["d"][0]  # already there


def test_misuse_tasks_are_failed_profiled_tasks_of_other_tools_most_misused_first() -> None:
    from core.chisel.decisions import misuse_tasks
    from core.chisel.profile import ToolTasks

    task, tr = _one_call_task, _calling
    tasks = {t.task_id: t for t in (task("a1", "A"), task("b1", "B"), task("b2", "B"), task("b3", "B"))}

    profiled = [tr("b1", "A"), tr("b2", "A", n=0), tr("b2", "A", n=1), tr("b3", "A", ok=True), tr("a1", "A")]
    items = [ToolTasks("A", "d", [tasks["a1"]]), ToolTasks("B", "d", [tasks["b1"], tasks["b2"], tasks["b3"]])]
    found = misuse_tasks(items, profiled, tasks, limit=1)
    assert [t.task_id for t in found["A"]] == ["b2"]  # two misuse episodes beat one; a success is none
    assert sorted(t.task_id for t in misuse_tasks(items, profiled, tasks, limit=5)["A"]) == ["b1", "b2"]
    assert misuse_tasks(items, profiled, tasks, limit=5, read_only={"A"}) == {}  # a look-up is no misuse
    assert misuse_tasks(items, profiled, tasks, limit=0) == {}


def test_misused_tools_are_other_tools_called_in_the_optimized_ones_place_most_first() -> None:
    from core.chisel.decisions import misuse_tasks, misused_tools
    from core.chisel.profile import ToolTasks

    task, tr = _one_call_task, _calling
    tasks = {t.task_id: t for t in (task("b1", "B"), task("b2", "B"), task("b3", "B"))}
    # only B is optimized; A is called in its place on 3 failed episodes, C on 2
    profiled = [tr("b1", "A"), tr("b2", "A", n=0), tr("b2", "A", n=1), tr("b3", "A", ok=True)]
    profiled += [tr("b1", "C"), tr("b3", "C")]
    items = [ToolTasks("B", "d", [tasks["b1"], tasks["b2"], tasks["b3"]])]
    documented = {"A", "B", "C", "L"}
    assert misused_tools(items, profiled, tasks, 2, documented, read_only={"L"}) == ["A", "C"]
    assert misused_tools(items, profiled, tasks, 3, documented, read_only={"L"}) == ["A"]  # a success is none
    only_c = misused_tools(items, profiled, tasks, 2, {"B", "C"}, read_only={"L"})
    assert only_c == ["C"]  # only documented tools
    assert misused_tools([*items, ToolTasks("A", "d")], profiled, tasks, 1, documented, {"L"}) == ["C"]
    assert misused_tools(items, profiled, tasks, 0, documented) == []  # off
    # a look-up L counts where it replaced the task's call, not on the way to it
    steps = ({"tool": "L", "args": {}}, {"tool": "B", "args": {}})
    on_the_way = Trace(
        episode_id="b2-9", task_id="b2", domain="d", query="q", success=False, tool_correct=False, steps=steps
    )
    looked = [tr("b1", "L"), tr("b3", "L"), on_the_way, on_the_way]
    assert misused_tools(items, looked, tasks, 2, documented, read_only={"L"}) == ["L"]
    assert misused_tools(items, looked, tasks, 3, documented, read_only={"L"}) == []
    # and only as a misused tool: a look-up among the optimized tools still gets no misuse tasks
    assert misuse_tasks([*items, ToolTasks("L", "d")], looked, tasks, 4, read_only={"L"}) == {}
    joined = misuse_tasks([*items, ToolTasks("L", "d", misused=True)], looked, tasks, 4, read_only={"L"})
    assert sorted(t.task_id for t in joined["L"]) == ["b1", "b3"]


def test_validation_gets_the_tasks_of_the_tools_a_misused_tool_was_called_in_place_of() -> None:
    from core.chisel.decisions import with_misuse_tasks
    from core.chisel.profile import ToolTasks

    task, tr = _one_call_task, _calling
    tasks = {t.task_id: t for t in (task("a1", "A"), task("b1", "B"), task("bv", "B"), task("cv", "C"))}

    items = [ToolTasks("A", "d", [tasks["a1"]]), ToolTasks("B", "d", [tasks["b1"]], [tasks["bv"]])]
    val = [tr("bv", "B"), tr("cv", "C")]  # no misuse seen on validation
    grown = with_misuse_tasks(items, [tr("b1", "A")], val, tasks, limit=4)
    a = grown[0]
    assert [t.task_id for t in a.opt] == ["a1", "b1"]
    assert [t.task_id for t in a.val] == ["bv"]  # B's validation task judges "not for these; call B"
    assert grown[1] == items[1]  # B was never called in another tool's place


def test_cross_validation_takes_the_other_tools_optimization_tasks_in_turn() -> None:
    from core.chisel.decisions import cross_validation
    from core.chisel.profile import ToolTasks

    def tasks(*ids: str) -> list[Task]:
        return [_one_call_task(i, i[0].upper()) for i in ids]

    items = [
        ToolTasks("A", "d", tasks("a1", "a2"), tasks("av")),
        ToolTasks("B", "d", tasks("b1", "b2", "b3"), tasks("bv")),
        ToolTasks("C", "d", tasks("c1"), []),
    ]
    assert cross_validation(items, 0) == items
    grown = {tt.tool: tt for tt in cross_validation(items, 3, seed=0)}
    a_val = [t.task_id for t in grown["A"].val]
    assert "av" in a_val and len(a_val) == 4  # its own, then three of the others' opt tasks
    assert {t[0] for t in a_val if t != "av"} == {"b", "c"}  # both other tools, in turn
    assert grown["A"].opt == items[0].opt  # optimization sets are untouched
    c_val = [t.task_id for t in grown["C"].val]
    assert len(c_val) == 3 and {t[0] for t in c_val} == {"a", "b"}
    assert not {t.task_id for t in grown["B"].val} & {"b1", "b2", "b3"}  # never its own tasks
    assert cross_validation(items, 3, seed=0) == list(grown.values())  # seeded
    assert [t.task_id for t in cross_validation(items, 9, seed=0)[0].val] == ["av", "b1", "b2", "b3", "c1"]


def test_a_validation_view_takes_cross_tasks_from_the_optimization_batch() -> None:
    val = _batch("rv", {"v1": [True, False]}, part="val")
    opt = _batch("ro", {"o1": [True, True], "o2": [False]})
    joined = val.joined(opt, ["v1", "o1"])
    assert [(t.task_id, t.repeat) for t in joined.traces] == [("o1", 0), ("o1", 1), ("v1", 0), ("v1", 1)]
    assert joined.ts == 0.75 and joined.run_id == "rv" and joined.part == "val"
    assert val.joined(opt, ["v1"]) is val  # nothing to add

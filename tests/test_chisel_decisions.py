"""The optimizer's decisions as pure functions: no warehouse, no model."""

from __future__ import annotations

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

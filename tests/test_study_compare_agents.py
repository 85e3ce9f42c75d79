"""The newest DocsChisel revision across target agents: which comparisons enter, and the pooled test."""

from __future__ import annotations

import pytest

from core.study.compare_agents import agents_frame, agents_part, revision_number
from core.study.compare_report import StoredComparison
from core.study.stats import bootstrap_interval, cluster_bootstrap_interval, mcnemar_exact
from tests.test_study_compare import _stored_comparison


def _stored(
    cid: str,
    model: str,
    revision: str | None,
    per_task: dict[str, dict[str, float]],
    paradigm: str = "react",
    **setting,
) -> StoredComparison:
    """A stored health comparison of `model` whose methods (OG first) have the given per-task TS."""
    og, dc, peers = (
        per_task["og"],
        per_task.get("dc"),
        {m: t for m, t in per_task.items() if m not in ("og", "dc")},
    )
    c = _stored_comparison(cid, dc, peers=peers, agent={"model": model, "paradigm": paradigm}, **setting)
    c.detail["per_task"]["og"]["ts"] = og
    c.dc_algorithm = revision if dc is not None else None
    return c


def test_a_cluster_bootstrap_resamples_whole_tasks() -> None:
    """Equal-sized clusters: the same interval as the plain bootstrap of the cluster means (same seed)."""
    clusters = [[1.0, 1.0], [0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    means = [sum(c) / 2 for c in clusters]
    got, plain = cluster_bootstrap_interval(clusters), bootstrap_interval(means)
    assert (got.mean, got.low, got.high) == pytest.approx((plain.mean, plain.low, plain.high))
    assert got.n == 10
    # units counted one by one as independent give a narrower interval than whole tasks
    alike = [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]  # a task's units agree
    flat = bootstrap_interval([v for c in alike for v in c])
    whole = cluster_bootstrap_interval(alike)
    assert flat.high - flat.low < whole.high - whole.low
    # unequal sizes: the point estimate is the mean over all units, not over clusters
    assert cluster_bootstrap_interval([[1.0], [0.0, 0.0, 0.0]]).mean == pytest.approx(0.25)
    assert cluster_bootstrap_interval([]).n == 0


def test_the_newest_revision_is_pooled_over_agents_by_agent_and_task() -> None:
    tasks = ["t1", "t2", "t3", "t4"]
    zero = dict.fromkeys(tasks, 0.0)
    small = _stored(
        "small-17",
        "qwen-0.5b",
        "docschisel-17",
        {"og": zero, "dc": {"t1": 1.0, "t2": 2 / 3, "t3": 0.0, "t4": 0.0}},
    )
    small_old = _stored(
        "small-16", "qwen-0.5b", "docschisel-16", {"og": zero, "dc": dict.fromkeys(tasks, 1.0)}
    )
    gepa = _stored("small-gepa", "qwen-0.5b", None, {"og": zero, "gepa": {**zero, "t1": 1.0}})
    large = _stored(
        "large-17",
        "qwen-1.5b",
        "docschisel-17",
        {"og": {**zero, "t4": 1.0}, "dc": {"t1": 1.0, "t2": 1.0, "t3": 1.0, "t4": 0.0}},
    )
    other = _stored(
        "other", "qwen-3b", "docschisel-17", {"og": zero, "dc": dict.fromkeys(tasks, 1.0)}, misuse_tasks=4
    )
    newer = _stored("small-18", "qwen-0.5b", "docschisel-18", {"og": zero, "dc": zero})  # one agent so far
    frame = agents_frame([newer, large, other, gepa, small, small_old])  # newest first
    rows = {(r["agents"], r["versus"]): r for r in frame.to_dict("records")}
    # the 3b agent has other DocsChisel settings, and revision 16 is not the newest: neither enters
    assert set(rows) == {
        ("qwen-0.5b", "OG (original)"),
        ("qwen-1.5b", "OG (original)"),
        ("qwen-0.5b + qwen-1.5b", "OG (original)"),
        ("qwen-0.5b", "GEPA"),  # GEPA was measured for one agent only, in another comparison
    }
    pooled = rows[("qwen-0.5b + qwen-1.5b", "OG (original)")]
    assert (pooled["units"], pooled["tasks"]) == (8, 4)
    assert pooled["DC %"] == pytest.approx(100 * (1 + 2 / 3 + 1 + 1 + 1) / 8)
    assert pooled["other %"] == pytest.approx(100 * 1 / 8)
    # McNemar over units by majority outcome: 0.5b gains t1, t2; 1.5b gains t1, t2, t3 and loses t4
    expected = mcnemar_exact([True, True, False, False, True, True, True, False], [False] * 7 + [True])
    assert pooled["McNemar b/c"] == "5/1" == f"{expected.b}/{expected.c}"
    assert pooled["p (McNemar)"] == f"{expected.p:.4f}"
    assert pooled["comparisons"] == "`small-17`, `large-17`"
    peer = rows[("qwen-0.5b", "GEPA")]
    assert peer["comparisons"] == "`small-17 + small-gepa`"
    assert peer["McNemar b/c"] == "1/0" and peer["units"] == 4
    assert "| qwen-0.5b + qwen-1.5b |" in (agents_part([large, small, gepa]) or "")
    # another paradigm of the same model is another agent, on the same tasks
    multi = _stored(
        "multi-17", "qwen-0.5b", "docschisel-17", {"og": zero, "dc": {**zero, "t3": 1.0}}, "multi"
    )
    pooled = agents_frame([multi, large, small]).iloc[-1]
    assert pooled["agents"] == "qwen-0.5b + qwen-0.5b (multi/native) + qwen-1.5b"
    assert (pooled["units"], pooled["tasks"], pooled["McNemar b/c"]) == (12, 4, "6/1")
    # one agent alone is its own comparison's table
    assert agents_frame([small, gepa]).empty and agents_part([small, gepa]) is None
    assert revision_number("docschisel-17") == 17 and revision_number(None) == -1


def test_a_revision_re_run_on_some_units_keeps_the_fuller_revision_beside_it() -> None:
    """Revision 18 on two of 17's three agents shows with 17; measured on all of 17's units, it alone shows;
    an earlier revision shows while it holds units no newer revision shown holds."""
    tasks = ["t1", "t2", "t3"]
    zero = dict.fromkeys(tasks, 0.0)
    one = dict.fromkeys(tasks, 1.0)
    old = [
        _stored(f"{m}-17", m, "docschisel-17", {"og": zero, "dc": one})
        for m in ("qwen-0.5b", "qwen-1.5b", "qwen-3b")
    ]
    new = [
        _stored(f"{m}-18", m, "docschisel-18", {"og": zero, "dc": zero}) for m in ("qwen-0.5b", "qwen-1.5b")
    ]
    frame = agents_frame([*new, *old])  # newest first
    pooled = frame[frame["agents"].str.contains(r"\+")]
    assert sorted(zip(pooled["method"].str[-2:], pooled["units"], strict=True)) == [("17", 9), ("18", 6)]
    assert pooled.iloc[0]["method"].endswith("docschisel-18")  # the newest comes first
    # revision 18 measured on every agent and task of 17: 17 no longer shows
    full = [*new, _stored("qwen-3b-18", "qwen-3b", "docschisel-18", {"og": zero, "dc": zero}), *old]
    assert set(agents_frame(full)["method"].str[-2:]) == {"18"}
    # a newest revision on one agent still does not hide the pooled one before it
    assert set(agents_frame([new[0], *old])["method"].str[-2:]) == {"17"}
    # a third revision on the same two agents as 18: 18's units are all its, so 18 gives way, while 17
    # still holds the 3B agent's units
    newer = [
        _stored(f"{m}-19", m, "docschisel-19", {"og": zero, "dc": one}) for m in ("qwen-0.5b", "qwen-1.5b")
    ]
    assert set(agents_frame([*newer, *new, *old])["method"].str[-2:]) == {"19", "17"}
    # 18 measured on the 3B agent instead: 19 and 18 between them hold every unit of 17
    other = [new[0], _stored("qwen-3b-18", "qwen-3b", "docschisel-18", {"og": zero, "dc": zero})]
    assert set(agents_frame([*newer, *other, *old])["method"].str[-2:]) == {"19", "18"}

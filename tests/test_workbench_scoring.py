"""WorkBench scoring: gold replay 690/690, hand-made wrong answers, TC and upstream label rules."""

from __future__ import annotations

import pytest

from core.benchmarks.base import Call
from core.config import DataDirError, benchmark_dir

try:
    benchmark_dir("workbench")
except DataDirError as exc:  # pragma: no cover
    pytest.skip(f"WorkBench data not available: {exc}", allow_module_level=True)

from core.benchmarks.workbench import WorkBench, check  # noqa: E402
from core.benchmarks.workbench.replay import parse_call_string  # noqa: E402
from core.benchmarks.workbench.scoring import upstream_value  # noqa: E402


@pytest.fixture(scope="module")
def bench() -> WorkBench:
    return WorkBench(variant="all")


def score(bench: WorkBench, task_id: str, calls: list[Call], error: str | None = None):
    task = bench.task(task_id)
    return bench.score(task, calls, None, bench.new_sandbox(task), error=error)


def test_gold_replay_reproduces_every_end_state(bench: WorkBench) -> None:
    report = check(bench)
    assert report["gold_calls"] == 947 and report["gold_calls_ok"] == 947
    assert report["tasks"] == 690 and report["self_correct"] == 690
    assert all(report["spot_checks"].values()), report["spot_checks"]
    assert report["ok"], report["failures"]


def test_wrong_id_is_a_side_effect(bench: WorkBench) -> None:
    s = score(bench, "email-000", [Call("email.delete_email", {"email_id": "00000070"})])
    assert not s.success and s.tool_correct
    assert s.details["unwanted_side_effects"] and not s.details["exact_match"]


def test_partial_answer(bench: WorkBench) -> None:
    gold = bench.task("multi_domain-151").gold
    s = score(bench, "multi_domain-151", [gold[0]])
    assert not s.success and not s.tool_correct and s.details["side_effects"]
    full = score(bench, "multi_domain-151", [*gold])
    assert full.success and full.tool_correct and full.details["exact_match"]


def test_no_actions_and_reads_only(bench: WorkBench) -> None:
    s = score(bench, "email-000", [])
    assert not s.success and not s.details["side_effects"] and s.details["no_actions"] and not s.tool_correct
    empty = next(t for t in bench.tasks() if not t.gold)
    reads = [Call("email.search_emails", {"query": "x"}), Call("analytics.total_visits_count", {})]
    s = bench.score(empty, reads, "no", bench.new_sandbox(empty))
    assert s.success and s.tool_correct and not s.details["side_effects"]


def test_error_makes_it_incorrect_but_keeps_the_other_view(bench: WorkBench) -> None:
    gold = list(bench.task("email-000").gold)
    s = score(bench, "email-000", gold, error="Context window exceeded")
    assert not s.success and s.details["correct_ignoring_error"] and not s.details["side_effects"]
    assert s.details["error"] == "Context window exceeded"


def test_comparison_is_case_insensitive_and_string_typed(bench: WorkBench) -> None:
    gold = bench.task("multi_domain-151").gold
    shouting = Call(
        gold[0].tool, {**gold[0].args, "participant_email": "LEILA.AZIZI@ATLAS.COM", "duration": 30}
    )
    assert score(bench, "multi_domain-151", [shouting, gold[1]]).success
    # Status stays case-sensitive.
    crm = next(t for t in bench.tasks() if any(c.args.get("field") == "status" for c in t.gold))
    wrong_case = [Call(c.tool, {**c.args, "new_value": c.args["new_value"].lower()}) for c in crm.gold]
    assert not bench.score(crm, wrong_case, None, bench.new_sandbox(crm)).success


def test_unknown_keyword_skips_the_call(bench: WorkBench) -> None:
    """Q7: scoring replays with the extra keyword, so the call is skipped."""
    s = score(
        bench, "email-000", [Call("email.delete_email", {"email_id": "00000479", "date_min": "2023-11-01"})]
    )
    assert not s.success and not s.details["side_effects"] and s.details["calls_skipped"] == 1


def test_newlines_written_either_way_match(bench: WorkBench) -> None:
    task = next(t for t in bench.tasks() if any("\n" in str(c.args.get("body", "")) for c in t.gold))
    real = list(task.gold)
    escaped = [Call(c.tool, {k: str(v).replace("\n", "\\n") for k, v in c.args.items()}) for c in task.gold]
    assert bench.score(task, real, None, None).success
    assert bench.score(task, escaped, None, None).success


def test_quotes_in_live_values_do_not_break_scoring(bench: WorkBench) -> None:
    task = bench.task("multi_domain-151")
    calls = [Call(c.tool, dict(c.args)) for c in task.gold]
    assert "'" in calls[1].args["body"]
    assert bench.score(task, calls, None, None).success
    assert upstream_value('say "hi"\\tthere') == 'say "hi"\tthere'
    assert upstream_value(None) == "None" and upstream_value(["a"]) == "['a']"


def test_recorded_call_string_rules(bench: WorkBench) -> None:
    assert parse_call_string('email.delete_email.func(email_id="1")') == (
        "email.delete_email",
        {"email_id": "1"},
    )
    assert parse_call_string('email.delete_email(email_id="1")') is None  # no .func: upstream skipped it
    assert parse_call_string('crm.search_customers.func(status="Lead")') is None
    assert parse_call_string('email.send_email.func(body="a "b" c")') is None
    assert parse_call_string('email.delete_email.func("1")') is None
    assert parse_call_string("__import__('os').system('true')") is None


def test_minor_error_labels(bench: WorkBench) -> None:
    plot = next(t for t in bench.tasks() if t.gold and all("2023-11-29" in s for s in t.meta["gold_strings"]))
    off_by_one = [s.replace("2023-11-29", "2023-11-30") for s in plot.meta["gold_strings"]]
    labels = bench.score_strings(plot, off_by_one)
    assert labels.end_date_minor_error and not labels.correct and labels.unwanted_side_effects
    meeting = next(
        t for t in bench.tasks() if t.gold and all("13:00:00" in s for s in t.meta["gold_strings"])
    )
    early = [s.replace("13:00:00", "09:00:00") for s in meeting.meta["gold_strings"]]
    assert bench.score_strings(meeting, early).meeting_start_time_error
    wrong = [s.replace("@atlas", "@example") for s in meeting.meta["gold_strings"]]
    assert bench.score_strings(meeting, wrong).wrong_email


def test_failure_reason_names_what_the_writes_got_wrong(bench: WorkBench) -> None:
    """A failed episode's reason: no write, an unwanted or missing write, or the right write misfilled."""
    assert score(bench, "email-000", []).details["reason"] == "no write call (needs email.delete_email)"
    wrong_id = score(bench, "email-000", [Call("email.delete_email", {"email_id": "00000070"})])
    assert wrong_id.details["reason"] == "wrong arguments: email.delete_email"
    gold = list(bench.task("email-000").gold)
    extra = score(bench, "email-000", [*gold, Call("calendar.delete_event", {"event_id": "00000013"})])
    assert extra.details["reason"] == "unwanted write: calendar.delete_event"
    partial = score(bench, "multi_domain-151", [bench.task("multi_domain-151").gold[0]])
    assert partial.details["reason"].startswith("missing write: ")
    # a success, or a failure only by the episode's abnormal end, has none: the error class says why
    assert "reason" not in score(bench, "email-000", gold).details
    assert "reason" not in score(bench, "email-000", gold, error="Context window exceeded").details

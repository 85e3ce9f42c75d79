"""Import of the recorded WorkBench runs: safe parsing, events, label agreement, warehouse write."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from core.config import DataDirError, benchmark_dir

try:
    ROOT = benchmark_dir("workbench")
except DataDirError as exc:  # pragma: no cover
    pytest.skip(f"WorkBench data not available: {exc}", allow_module_level=True)

from core.benchmarks.workbench.importer import (  # noqa: E402
    import_workbench_results,
    iter_recorded_episodes,
    label_agreement,
    results_files,
)
from core.benchmarks.workbench.traces import (  # noqa: E402
    RecordedArray,
    Stamp,
    TraceParseError,
    parse_full_response,
    parse_function_calls,
)


@pytest.fixture(scope="module")
def pairs():
    return list(iter_recorded_episodes())


def test_all_rows_import_and_agree_with_reference_labels(pairs) -> None:
    assert len(pairs) == 5520
    report = label_agreement([e for e, _ in pairs])
    assert report["mismatches"] == []  # no known disagreements: every label of every row matches
    assert report["agreement"] == 1.0
    gpt4_all = report["per_run"]["gpt-4 all"]
    assert (gpt4_all["accuracy_ours"], gpt4_all["side_effects_ours"]) == (0.4261, 0.2565)
    assert sum(bool(e.score.get("has_trace")) for e, _ in pairs) == 4756
    assert sum(e.n_steps for e, _ in pairs) == 14365


def test_episode_shape(pairs) -> None:
    ep, events = next(
        (e, ev)
        for e, ev in pairs
        if e.task_id == "email-000" and e.model == "gpt-4-0125-preview" and e.variant == "all"
    )
    assert ep.source == "import" and ep.paradigm == "react-text" and ep.success and ep.tool_correct
    assert [c["tool"] for c in ep.calls] == ["email.search_emails", "email.delete_email"]
    kinds = [e.kind for e in events]
    assert kinds == ["tool_call", "tool_call", "final_answer"]
    assert events[0].args == {"query": "nadia", "date_max": "2023-11-30"}
    assert events[0].output.startswith("[{'email_id': '00000479', 'inbox/outbox': 'inbox'")
    assert events[1].output == "Email deleted successfully."
    assert [e.seq for e in events] == [0, 1, 2]
    runs = {(e.model, e.variant): e.run_id for e, _ in pairs}
    assert len(runs) == 8 and len(set(runs.values())) == 8
    assert len({e.episode_id for e, _ in pairs}) == 5520


def test_errors_are_classified(pairs) -> None:
    classes = {}
    for e, evs in pairs:
        if e.error:
            classes[e.error_class] = classes.get(e.error_class, 0) + 1
            assert evs[-1].kind == "error"
    assert classes["context_window"] == 517 and classes["iteration_limit"] == 180
    assert classes["harness_conversion"] == 44 and classes["output_parsing"] == 46


def test_whitelist_parser() -> None:
    text = (
        "{'input': 'q', 'output': 'done', 'intermediate_steps': [(AgentAction(tool='company_directory.find_email_address',"
        " tool_input={'name': 'kofi'}, log='Thought: look up\\nAction:\\n```{}```'), array(['kofi.mensah@atlas.com',"
        " 'x@atlas.com'], dtype=object)), (AgentAction(tool='email.search_emails', tool_input='kofi', log=''),"
        " [{'sent_datetime': Timestamp('2023-11-30 00:00:00'), 'phone': nan, 'n': -1}])]}"
    )
    trace = parse_full_response(text)
    first, second = trace.steps
    assert isinstance(first.observation, RecordedArray)
    assert first.observation_text == "['kofi.mensah@atlas.com' 'x@atlas.com']"
    assert first.thought == "look up"
    assert second.tool_input == "kofi"
    assert isinstance(second.observation[0]["sent_datetime"], Stamp)
    assert (
        second.observation_text
        == "[{'sent_datetime': Timestamp('2023-11-30 00:00:00'), 'phone': nan, 'n': -1}]"
    )
    for bad in (
        "{'intermediate_steps': [__import__('os').system('true')]}",
        "{'intermediate_steps': [], 'x': open('f')}",
        "{'intermediate_steps': [], 'x': (lambda: 1)()}",
        "{'intermediate_steps': [], 'x': a.b}",
        "{'intermediate_steps': [(AgentAction('t', {}, ''), 1)]}",
        "{'intermediate_steps': [], **{}}",
    ):
        with pytest.raises(TraceParseError):
            parse_full_response(bad)
    with pytest.raises(TraceParseError):
        parse_function_calls("[print('x')]")
    assert parse_function_calls("") == []


def _mini_data_dir(tmp_path: Path, results: Path | None = None) -> Path:
    """A data dir holding the real tables and tasks and chosen results files."""
    root = tmp_path / "workbench"
    (root / "data" / "results" / "email").mkdir(parents=True)
    for name in ("processed", "raw"):
        (root / "data" / name).symlink_to(ROOT / "data" / name)
    (root / "derived").symlink_to(ROOT / "derived")
    if results is not None:
        (root / "data" / "results" / "email" / results.name).symlink_to(results)
    return root


def test_malformed_rows_become_error_episodes(tmp_path: Path) -> None:
    root = _mini_data_dir(tmp_path)
    path = root / "data" / "results" / "email" / "gpt-4_all_2024-03-21_15-21-12.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL)
        w.writerow(["query", "function_calls", "full_response", "error"])
        w.writerow(["Delete my last email from nadia", "[os.system('x')]", "{'input': 1", ""])
        w.writerow(
            [
                "Delete my last email from sofia",
                "['email.delete_email.func(email_id=\"00000438\")']",
                "{'a': b}",
                "",
            ]
        )
        w.writerow(["a query that is no task", "[]", "", ""])
    pairs = list(iter_recorded_episodes(root))
    assert len(pairs) == 2
    (bad, bad_events), (half, half_events) = pairs
    assert not bad.success and bad.error_class == "import_parse_error" and bad.score["unscorable"]
    assert "function_calls" in bad.error and bad_events[-1].kind == "error"
    # The calls still score even when the trace text is unreadable.
    assert half.success and half.error_class == "import_parse_error"
    assert "full_response" in half.score["import_problems"][0]


def test_import_into_warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import core.warehouse.writes
    from core.warehouse import Warehouse

    # Doc token counts would import litellm (slow, and not what this test is about).
    monkeypatch.setattr(core.warehouse.writes, "_doc_tokens", lambda doc: None)

    source = next(
        f.path
        for f in results_files(ROOT)
        if f.domain == "email" and f.alias == "claude-2" and f.variant == "all"
    )
    root = _mini_data_dir(tmp_path, source)
    wh = Warehouse(tmp_path / "wh.duckdb")
    summary = import_workbench_results(wh, root)
    assert summary["episodes"] == 90 and summary["written"] == 90
    assert wh.scalar("SELECT count(*) FROM episodes WHERE source = 'import'") == 90
    assert wh.scalar("SELECT count(*) FROM events") == summary["events"]
    assert wh.scalar("SELECT count(*) FROM tasks WHERE benchmark = 'workbench'") == 690
    again = import_workbench_results(wh, root)
    assert again["written"] == 0  # immutable traces: a re-import adds nothing

"""`docschisel demo` says what it does: numbered phases with durations, and where to watch the jobs."""

from __future__ import annotations

import pytest

from core.cli.demo import phase, where_to_watch


def test_phases_are_numbered_and_timed(capsys: pytest.CaptureFixture[str]) -> None:
    with phase(1, 3, "importing"):
        pass
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "[1/3] importing ..." and out[1].startswith("[1/3] importing: done in ")


def test_the_closing_note_says_where_to_watch_and_what_ctrl_c_does() -> None:
    note = where_to_watch("http://127.0.0.1:8501", ["eval-1", "study-2"])
    assert "http://127.0.0.1:8501/re_evaluation" in note and "2 background job(s)" in note
    assert "Ctrl-C stops the dashboard only" in note
    assert where_to_watch("http://127.0.0.1:8501", []) == "Dashboard: http://127.0.0.1:8501"

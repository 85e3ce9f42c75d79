"""Diagnoses read per trace (implicated fields, quoted evidence, the planned operations, the candidate),
an analyst's verdict is a new row through the write path, and the review queue shows disputed ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.sample import seeded_copy
from core.ui import actions
from core.ui.testing import open_app, problems, show
from core.warehouse import Warehouse


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[Path, dict]:
    path = tmp_path / "wh.duckdb"
    return path, seeded_copy(path)


def test_trace_cards_link_diagnosis_plan_and_candidate_and_take_a_verdict(seeded: tuple[Path, dict]) -> None:
    path, ids = seeded
    wh = Warehouse(path)
    run_id, tool, diagnosis_id, episode_id = wh.rows(
        "SELECT d.run_id, d.tool, d.diagnosis_id, d.episode_id FROM diagnoses d JOIN episodes e USING (episode_id) "
        "WHERE d.doc_related AND len(d.fields) > 0 "
        "AND d.diagnosis_id IN (SELECT diagnosis_id FROM plans WHERE scope = 'trace') "
        "ORDER BY d.iteration, e.task_id, d.episode_id"  # the cards' order: this one leads
    )[0]
    at = show(open_app(path), "diagnoses", run=run_id, tool=tool, iteration="all")
    assert not problems(at)
    text = " ".join(m.value for m in at.markdown)
    assert "Implicated fields: **" in text and "Planned: **" in text
    assert "candidate of iteration 1: diff & review" in text and episode_id in text
    assert any(t.value.startswith("“") for t in at.text)  # the evidence, quoted as recorded

    at.button(key=f"dg_disagree_{diagnosis_id}").click().run()
    assert not problems(at)
    at.text_input(key=f"dg_note_{diagnosis_id}").input("the agent misread the request, not the doc").run()
    at.button(key=f"dg_savenote_{diagnosis_id}").click().run()
    rows = wh.rows(
        "SELECT verdict, note FROM diagnosis_verdicts WHERE diagnosis_id = ? ORDER BY created_at",
        [diagnosis_id],
    )
    assert rows == [("disagree", ""), ("note", "the agent misread the request, not the doc")]
    assert wh.scalar("SELECT count(*) FROM diagnoses WHERE diagnosis_id = ?", [diagnosis_id]) == 1
    text = " ".join(m.value for m in at.markdown)
    assert ":red-badge[analyst disagrees]" in text
    assert any("the agent misread the request" in c.value for c in at.caption)

    at = show(at, "review", tool=tool)
    assert not problems(at)
    assert "1 disputed diagnoses" in at.selectbox(key="rv_tool").format_func(tool)  # type: ignore[misc]


def test_verdicts_are_validated(seeded: tuple[Path, dict]) -> None:
    wh = Warehouse(seeded[0])
    with pytest.raises(ValueError):
        actions.record_verdict(wh, "d", "r", "t", "maybe", "ann")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        actions.record_verdict(wh, "d", "r", "t", "note", "ann", "  ")
    first = actions.record_verdict(wh, "d", "r", "t", "agree", "ann")
    assert first != actions.record_verdict(wh, "d", "r", "t", "agree", "ann")  # a log: both rows kept


def test_study_variants_are_not_to_review(seeded: tuple[Path, dict]) -> None:
    from core.ui.queries import docs as q

    tools = q.review_tools.raw(Warehouse(seeded[0]))
    wh = Warehouse(seeded[0])
    study_only = wh.scalar(
        "SELECT count(*) FROM doc_versions v WHERE origin = 'study' AND doc_id NOT IN "
        "(SELECT doc_id FROM doc_versions WHERE origin <> 'study')"
    )
    assert study_only > 0
    non_study = dict(
        wh.rows(
            "SELECT tool, count(*) FROM doc_versions WHERE origin NOT IN ('original', 'study') GROUP BY tool"
        )
    )
    for r in tools.itertuples():
        assert r.candidates == non_study.get(r.tool, 0)

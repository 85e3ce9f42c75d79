"""Diagnoses read per trace (implicated fields, quoted evidence, the planned operations, the candidate),
an analyst's verdict is a new row through the write path, and the review queue shows disputed ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.sample import seeded_copy
from core.ui import actions
from core.ui.testing import open_app, problems, show
from core.ui.views.diagnoses import CARDS_PER_PAGE, VIEWS
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


def _busiest_tool(seeded: tuple[Path, dict]) -> tuple[Path, str, str, dict[str, str]]:
    """The optimization run's tool with the most diagnoses, and its diagnoses (id → episode)."""
    path, ids = seeded
    run_id = ids["optimize_run"]
    by_tool: dict[str, dict[str, str]] = {}
    for tool, diagnosis, episode in Warehouse(path).rows(
        "SELECT tool, diagnosis_id, episode_id FROM diagnoses WHERE run_id = ?", [run_id]
    ):
        by_tool.setdefault(tool, {})[diagnosis] = episode
    tool = max(by_tool, key=lambda t: len(by_tool[t]))
    return path, run_id, tool, by_tool[tool]


def _cards(at: AppTest) -> list[str]:
    """The diagnoses drawn as cards (each card has its own verdict buttons)."""
    return [b.key.removeprefix("dg_agree_") for b in at.button if b.key and b.key.startswith("dg_agree_")]


def test_the_default_view_draws_one_page_of_cards_and_defers_the_rest(seeded: tuple[Path, dict]) -> None:
    """A visit draws a page of trace cards; the pager reaches every failed trace, and the table, the
    fields across tools, the plan, the candidates and the memories are built only in their tab."""
    path, run_id, tool, diagnoses = _busiest_tool(seeded)
    n = len(diagnoses)
    assert n > CARDS_PER_PAGE  # more failed traces than one page of cards
    at = show(open_app(path), "diagnoses", run=run_id, tool=tool)
    assert not problems(at)
    assert len(_cards(at)) == CARDS_PER_PAGE
    assert not at.dataframe and not at.get("vega_lite_chart")  # no table, no chart
    assert any(f"Failed traces 1–{CARDS_PER_PAGE} of {n}" in c.value for c in at.caption)

    seen = set(_cards(at))
    for page in range(2, -(-n // CARDS_PER_PAGE) + 1):
        at.session_state[f"dg_cards_{run_id}_{tool}_None"] = page
        at.run()
        assert not problems(at)
        seen |= set(_cards(at))
    assert seen == set(diagnoses)  # every failed trace has its card on some page

    at.session_state["dg_tab"] = VIEWS[1]
    at.run()
    assert not _cards(at) and len(at.dataframe) == 1 and len(at.dataframe[0].value) == n
    at.session_state["dg_tab"] = "Operation plan"
    at.run()
    assert not problems(at) and at.dataframe and "Operation" in at.dataframe[0].value.columns
    at.session_state["dg_tab"] = "Candidate docs and their validation"
    at.run()
    assert not problems(at) and "val_ts" in at.dataframe[0].value.columns
    at.session_state["dg_tab"] = "Memories"
    at.run()
    assert not problems(at) and not _cards(at)


def test_a_traces_link_opens_its_card_first(seeded: tuple[Path, dict]) -> None:
    """Coming from a trace: its card leads on the first page, whatever view or page was open before."""
    path, run_id, tool, diagnoses = _busiest_tool(seeded)
    at = show(open_app(path), "diagnoses", run=run_id, tool=tool)
    later = next(d for d in diagnoses if d not in _cards(at))  # a trace whose card is not on page 1
    at.session_state["dg_tab"] = "Operation plan"
    at.session_state[f"dg_cards_{run_id}_{tool}_None"] = 2
    at.run()
    at = show(at, "diagnoses", run=run_id, tool=tool, episode=diagnoses[later])
    assert not problems(at)
    assert _cards(at)[0] in {d for d, e in diagnoses.items() if e == diagnoses[later]}
    first = next(m.value for m in at.markdown if "Implicated fields: " in m.value)
    assert "the trace you came from" in first

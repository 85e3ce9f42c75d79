"""The analyst's loop on a warehouse made by the real producers, page by page (AppTest):

failed trace → its diagnosis → the planned operation → the candidate → edit a field → approve →
register → re-evaluate against the docs it replaces → the card shows TS/TC and the flipped tasks →
one flipped task side by side.

The evaluation job's command runs in a separate process, where the sample's scripted model does not
exist; so the test checks the command the page starts (`eval --docs <new> --against <old>`), then runs
that evaluation in-process with the same runner and records the job as the supervisor would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.sample import seeded_copy
from core.ui.testing import open_app, problems, show
from core.ui.views.jobs import eval_argv
from core.warehouse import Warehouse
from tests.test_ui_reeval import reevaluated

pytestmark = pytest.mark.slow
TOOL = "shop.order"


def _text(at) -> str:  # noqa: ANN001
    return " ".join(m.value for m in at.markdown)


def test_the_whole_loop(tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    ids = seeded_copy(path)
    wh = Warehouse(path)
    run_id = ids["optimize_run"]
    episode, diagnosis = wh.rows(
        "SELECT episode_id, diagnosis_id FROM diagnoses WHERE run_id = ? AND tool = ? AND doc_related "
        "AND diagnosis_id IN (SELECT diagnosis_id FROM plans WHERE scope = 'trace') ORDER BY iteration LIMIT 1",
        [run_id, TOOL],
    )[0]

    # a failed trace, and its diagnosis on the trace page
    at = show(open_app(path), "traces", episode=episode, outcome="failed")
    assert not problems(at)
    assert any(m.value == "##### Diagnoses" for m in at.markdown)

    # the diagnosis → the planned operation → the candidate it produced
    at = show(at, "diagnoses", run=run_id, tool=TOOL, iteration="all")
    assert not problems(at)
    text = _text(at)
    assert "Planned: **" in text and "diff & review" in text
    candidate = wh.rows(
        "SELECT doc_id FROM candidates WHERE run_id = ? AND tool = ? ORDER BY iteration LIMIT 1",
        [run_id, TOOL],
    )[0][0]
    assert f"b={candidate}" in text

    # the candidate: edit a field, approve the edited version
    at = show(at, "review", tool=TOOL, b=candidate)
    assert not problems(at) and at.selectbox(key="rv_b").value == candidate
    at.text_area(key=f"edit_IC_{candidate}").set_value("Order at most 100 units per request.")
    at.text_input(key=f"edit_reason_{candidate}").set_value("the shop caps orders")
    at.button(key="save_edit").click().run()
    assert not problems(at)
    edited = at.selectbox(key="rv_b").value
    assert edited != candidate
    at.text_input(key="review_reason").set_value("states the format, the required quantity and the cap")
    at.button(key="approve").click().run()
    assert not problems(at)

    # register: the default base is the tool's own original set, and the edited doc is swapped in
    base = at.selectbox(key=f"export_base_{TOOL}").value
    assert wh.rows("SELECT origin, benchmark FROM doc_sets WHERE docset_id = ?", [base])[0] == (
        "original",
        "sample-shop",
    )
    at.text_input(key="export_name").set_value("reviewed order docs").run()
    at.button(key="register_docset").click().run()
    assert not problems(at)
    registered = wh.rows("SELECT docset_id FROM doc_sets WHERE origin = 'review'")[0][0]
    members = dict(wh.rows("SELECT tool, doc_id FROM doc_set_members WHERE docset_id = ?", [registered]))
    assert members[TOOL] == edited

    # re-evaluate: the form opens on the new set, compared against the docs it replaces
    at = show(at, "jobs", docset=registered)
    assert not problems(at)
    assert at.selectbox(key="job_docset").value == registered
    against = at.selectbox(key=f"job_against_{registered}").value
    assert against == base
    argv = eval_argv("sample-shop", registered, "test", "m", "react", str(path), against=against)
    assert argv[argv.index("--docs") + 1] == registered and argv[argv.index("--against") + 1] == base

    reevaluated(wh, base, registered, "eval-loop", "loop-reader")

    # the card: TS/TC against the old docs and the flipped tasks
    at = show(at, "jobs")
    assert not problems(at)
    card = next(m.value for m in at.markdown if "against docs" in m.value)
    assert "TS " in card and "TC " in card and "fixed" in card and "broken" in card
    assert ":green[0 fixed]" not in card  # the edited order docs fix order tasks

    # one flipped task side by side, the doc diff above it
    at = show(at, "jobs", job="eval-loop")
    assert not problems(at)
    fixed = at.dataframe[0].value
    task = at.selectbox(key="runcmp_task").value
    assert task in set(fixed["task_id"])
    text = _text(at)
    assert "Doc diff · 1 tool(s) this task can use" in text
    changed = {t for t, d in members.items() if d != dict(wh.rows(
        "SELECT tool, doc_id FROM doc_set_members WHERE docset_id = ?", [base]))[t]}  # fmt: skip
    assert TOOL in changed and any(f"`{t}`" in text for t in changed)
    orders = [t for t in fixed["task_id"] if t.startswith("order")]
    if orders:  # an order task the edited doc fixed: the diff shows the edited tool
        at.selectbox(key="runcmp_task").set_value(orders[0]).run()
        assert not problems(at) and f"`{TOOL}`" in _text(at)
    assert ":red-badge[failed]" in text and ":green-badge[success]" in text

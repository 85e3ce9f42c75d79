"""The analyst's loop on a warehouse made by the real producers, page by page (AppTest):

failed trace → its diagnosis → the planned operation → the candidate → edit a field → approve →
register → re-evaluate against the docs it replaces → the card shows TS/TC and the flipped tasks →
one flipped task side by side.

The re-evaluation is the real job the page starts: `docschisel eval --docs <new> --against <old>` in its
own process, which knows the sample benchmark and its doc-reading model through the sample's plugin
(DOCSCHISEL_PLUGINS=core.sample.plugin, inherited by jobs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core import jobs
from core.sample import seeded_copy
from core.ui.testing import open_app, problems, show
from core.warehouse import Warehouse

pytestmark = pytest.mark.slow
TOOL = "shop.order"


def _text(at) -> str:  # noqa: ANN001
    return " ".join(m.value for m in at.markdown)


def test_the_whole_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCSCHISEL_PLUGINS", "core.sample.plugin")  # the jobs this page starts load it
    path = tmp_path / "wh.duckdb"
    ids = seeded_copy(path)
    wh = Warehouse(path)
    run_id = ids["optimize_run"]
    episode, diagnosis, iteration = wh.rows(
        "SELECT episode_id, diagnosis_id, iteration FROM diagnoses WHERE run_id = ? AND tool = ? AND doc_related "
        "AND diagnosis_id IN (SELECT diagnosis_id FROM plans WHERE scope = 'trace') "
        "AND iteration = (SELECT iteration FROM candidates WHERE run_id = ? AND tool = ? "
        "                 ORDER BY val_ts DESC, iteration DESC LIMIT 1) "  # the candidate that validated
        "ORDER BY episode_id LIMIT 1",
        [run_id, TOOL, run_id, TOOL],
    )[0]

    # a failed trace, and its diagnosis on the trace page
    at = show(open_app(path), "traces", episode=episode, outcome="failed")
    assert not problems(at)
    assert any(m.value == "##### Diagnoses" for m in at.markdown)
    link = next(m.value for m in at.markdown if "Its diagnosis, planned operations and candidate" in m.value)
    assert f"run={run_id}" in link and f"iteration={iteration}" in link and f"episode={episode}" in link

    # the diagnosis → the planned operation → the candidate it produced
    at = show(at, "diagnoses", run=run_id, tool=TOOL, iteration=str(iteration), episode=episode)
    assert not problems(at)
    text = _text(at)
    assert "Planned: **" in text and "diff & review" in text
    assert text.index("the trace you came from") < text.index("Planned: **")  # its card comes first
    candidate = wh.rows(
        "SELECT doc_id FROM candidates WHERE run_id = ? AND tool = ? ORDER BY val_ts DESC, iteration DESC "
        "LIMIT 1",
        [run_id, TOOL],
    )[0][0]
    assert f"b={candidate}" in text

    # the candidate: edit a field, approve the edited version
    at = show(at, "review", tool=TOOL, b=candidate)
    assert not problems(at) and at.selectbox(key="rv_b").value == candidate
    at.session_state["review_tab"] = "Edit"
    at.run()
    constraint = at.text_area(key=f"edit_IC_{candidate}")
    constraint.set_value(f"{constraint.value} Order at most 100 units per request.".strip())
    at.text_input(key=f"edit_reason_{candidate}").set_value("the shop caps orders")
    at.button(key="save_edit").click().run()
    assert not problems(at)
    edited = at.selectbox(key="rv_b").value
    assert edited != candidate
    at.text_input(key="review_reason").set_value("states the format, the required quantity and the cap")
    at.button(key="approve").click().run()
    assert not problems(at)

    # register: the default base is the tool's own original set, and the edited doc is swapped in
    at.session_state["review_tab"] = "Export approved set"
    at.run()
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
    at.selectbox(key="job_model").set_value("scripted/sample-doc-reader").run()
    at.button(key="start_eval").click().run()
    assert not problems(at)
    job = jobs.list_jobs(wh, kind="eval")[0]
    argv = job.argv
    assert argv[argv.index("--docs") + 1] == registered and argv[argv.index("--against") + 1] == base
    state = jobs.wait_for(wh, job.job_id, timeout_s=600)
    assert state.status == "done" and state.done == state.total, jobs.log_tail(wh, job.job_id)

    # the card: TS/TC against the old docs and the flipped tasks
    at.run()
    assert not problems(at)
    card = next(m.value for m in at.markdown if "against docs" in m.value)
    assert "TS " in card and "TC " in card and "fixed" in card and "broken" in card
    assert ":green[0 fixed]" not in card  # the edited order docs fix order tasks

    # one flipped task side by side, the doc diff above it
    at = show(at, "jobs", job=job.job_id)
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
    assert orders  # the edited order doc states what the reader needs: order tasks flipped to success
    at.selectbox(key="runcmp_task").set_value(orders[0]).run()
    assert not problems(at) and f"`{TOOL}`" in _text(at)
    assert ":red-badge[failed]" in text and ":green-badge[success]" in text

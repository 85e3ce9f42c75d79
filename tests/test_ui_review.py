"""Doc review: any-two-version diff, approve / reject / label, field-by-field edits as new versions, export."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from core.docs import DocSet, Param, ToolDoc, diff
from core.sample import seeded_copy
from core.ui import actions, docedit
from core.ui.testing import open_app, problems, show
from core.warehouse import Warehouse

TOOL = "shop.order"


@pytest.fixture
def seeded(tmp_path: Path) -> Path:
    path = tmp_path / "wh.duckdb"
    seeded_copy(path)
    return path


def _versions(wh: Warehouse) -> list[tuple[str, str, str | None]]:
    return wh.rows(
        "SELECT doc_id, origin, parent_doc_id FROM doc_versions WHERE tool = ? ORDER BY created_at", [TOOL]
    )


def test_approve_label_and_audit_trail(seeded: Path) -> None:
    wh = Warehouse(seeded)
    at = show(open_app(seeded), "review", tool=TOOL)
    assert not problems(at)
    after = at.selectbox(key="rv_b").value
    before = at.selectbox(key="rv_a").value
    assert before != after
    assert wh.rows("SELECT origin FROM doc_versions WHERE doc_id = ?", [before])[0][0] == "original"
    # the field-level diff is a table of changed fields, not a JSON dump
    changes = diff(wh.load_doc(before), wh.load_doc(after))
    diff_table = next(df.value for df in at.dataframe if "change" in df.value.columns)
    assert list(diff_table["code"]) == [c.code for c in changes]

    at.text_input(key="reviewer").set_value("nadia")
    at.text_input(key="review_reason").set_value("examples now match the ground truth")
    at.button(key="approve").click().run()
    assert not problems(at)
    at.text_input(key="new_label").set_value("ship-it").run()
    at.button(key="add_label").click().run()
    rows = wh.rows(
        "SELECT action, label, reviewer, reason FROM approvals WHERE doc_id = ? ORDER BY created_at", [after]
    )
    assert ("approve", "approved", "nadia", "examples now match the ground truth") in rows
    assert any(r[0] == "label" and r[1] == "ship-it" for r in rows)
    # the audit trail and the version table show it after the rerun
    at.session_state["review_tab"] = "Audit trail"
    at.session_state["rv_versions"] = True
    at.run()
    audit = next(df.value for df in at.dataframe if "reviewer" in df.value.columns)
    assert {"approve", "label"} <= set(audit["action"])
    versions = next(df.value for df in at.dataframe if "decision" in df.value.columns)
    assert versions.set_index("doc_id").loc[after, "decision"] == "approve"


def test_any_two_versions_can_be_compared(seeded: Path) -> None:
    wh = Warehouse(seeded)
    ids = [v[0] for v in _versions(wh)]
    assert len(ids) >= 3
    at = show(open_app(seeded), "review", tool=TOOL, a=ids[1], b=ids[2])
    assert (at.selectbox(key="rv_a").value, at.selectbox(key="rv_b").value) == (ids[1], ids[2])
    at.selectbox(key="rv_a").set_value(ids[2]).run()
    assert any("document every field identically" in i.value for i in at.info)


def test_edit_field_by_field_creates_a_new_version(seeded: Path) -> None:
    wh = Warehouse(seeded)
    at = show(open_app(seeded), "review", tool=TOOL)
    base = at.selectbox(key="rv_b").value
    n_before = len(_versions(wh))
    at.session_state["review_tab"] = "Edit"
    at.run()
    at.text_area(key=f"edit_IC_{base}").set_value("Send at most 10 emails per minute.")
    at.text_input(key=f"edit_reason_{base}").set_value("rate limit seen in tool errors")
    at.button(key="save_edit").click().run()
    assert not problems(at)
    versions = _versions(wh)
    assert len(versions) == n_before + 1
    new_id, origin, parent = versions[-1]
    assert (origin, parent) == ("edit", base)
    new, old = wh.load_doc(new_id), wh.load_doc(base)
    assert [c.code for c in diff(old, new)] == [
        "IC"
    ] and new.constraints == "Send at most 10 emails per minute."
    assert wh.rows("SELECT action, reason FROM approvals WHERE doc_id = ?", [new_id]) == [
        ("edit", "rate limit seen in tool errors")
    ]
    # the page now compares the edited version against the one it came from
    assert (at.selectbox(key="rv_a").value, at.selectbox(key="rv_b").value) == (base, new_id)
    assert any("Saved new version" in s.value for s in at.success)


def test_export_registers_the_approved_set(seeded: Path) -> None:
    wh = Warehouse(seeded)
    at = show(open_app(seeded), "review", tool=TOOL)
    approved = at.selectbox(key="rv_b").value
    at.button(key="approve").click().run()
    at.session_state["review_tab"] = "Export approved set"
    at.run()
    at.selectbox(key=f"export_base_{TOOL}").set_value(
        wh.scalar("SELECT docset_id FROM doc_sets WHERE origin = 'original' AND benchmark = 'sample-shop'")
    ).run()
    at.text_input(key="export_name").set_value("reviewed v1").run()
    at.button(key="register_docset").click().run()
    assert not problems(at)
    sid, name, origin = wh.rows("SELECT docset_id, name, origin FROM doc_sets WHERE origin = 'review'")[0]
    assert (name, origin) == ("reviewed v1", "review")
    members = dict(wh.rows("SELECT tool, doc_id FROM doc_set_members WHERE docset_id = ?", [sid]))
    assert members[TOOL] == approved
    exported = json.loads(actions.export_json(wh.load_docset(sid)))
    assert {t["tool"] for t in exported["tools"]} == set(members)
    openai = actions.export_openai(wh.load_docset(sid))
    assert openai is None or json.loads(openai)[0]["type"] == "function"


def test_export_defaults_to_the_edited_tools_own_set_and_warns(seeded: Path) -> None:
    """An unknown benchmark (empty `tools` table) and another benchmark's newer original set: the export
    still starts from a set that documents the edited tool, approved tools listed first."""
    wh = Warehouse(seeded)
    with wh.transaction() as con:  # the situation of imported traces: no tool rows
        con.execute("DELETE FROM tools")
    other = DocSet([ToolDoc(tool=f"wb.t{i}", name=f"t{i}", description="x") for i in range(27)])
    wh.register_docset(other, benchmark="workbench", origin="original", name="workbench-original")
    at = open_app(seeded)
    at.session_state["review_tab"] = "Export approved set"
    at = show(at, "review", tool=TOOL)
    assert not problems(at)
    base = at.selectbox(key=f"export_base_{TOOL}").value
    members = dict(wh.rows("SELECT tool, doc_id FROM doc_set_members WHERE docset_id = ?", [base]))
    assert TOOL in members
    shown = at.dataframe[-1].value
    approved_first = list(shown["uses"])
    assert approved_first[0] == "approved version" and approved_first == sorted(
        approved_first, key=lambda u: u != "approved version"
    )
    # a set without approvals: warned, and warned again when it equals a stored set
    at.selectbox(key=f"export_base_{TOOL}").set_value(
        wh.scalar("SELECT docset_id FROM doc_sets WHERE name = 'workbench-original'")
    ).run()
    warnings = " ".join(w.value for w in at.warning)
    assert "No tool of this set has an approved version" in warnings
    assert "identical to the stored doc set *workbench-original*" in warnings


def test_docedit_round_trip_and_tables() -> None:
    doc = ToolDoc(
        tool="t",
        name="t",
        description="does t",
        parameters=(Param(name="x", type="int", required=True, has_default=True, default=3),),
        examples=("t(x=1)",),
    )
    same = docedit.apply_edits(
        doc, docedit.text_fields(doc), docedit.params_frame(doc), docedit.returns_frame(doc)
    )
    assert same == doc
    params = docedit.params_frame(doc)
    params.loc[0, "description"] = "how many"
    params.loc[0, "default"] = ""
    params = pd.concat([params, pd.DataFrame([{"name": "y", "type": "str", "optional": "yes"}])])
    new = docedit.apply_edits(doc, {"UE": "t(x=1)\nt(x=2, y='a')"}, params)
    assert new.param("x").description == "how many" and not new.param("x").has_default
    assert new.param("y").optional is True and new.examples == ("t(x=1)", "t(x=2, y='a')")
    assert doc.param("x").default == 3  # the original is untouched
    table = docedit.change_rows(diff(doc, new))
    assert set(table["code"]) >= {"IPN", "IPD", "DPV", "UE"}
    assert "how many" in docedit.format_value({"x": "how many"})
    assert "<ins" in docedit.inline_diff("a b c", "a x c") and "<del" in docedit.inline_diff("a b c", "a x c")


def test_the_default_view_defers_the_secondary_sections(seeded: Path) -> None:
    """A visit draws the pickers, the diff and Decide; the version table, the rendered docs, the editor,
    the audit trail and the export are built only when opened, and an opened tab stays built."""
    at = show(open_app(seeded), "review", tool=TOOL)
    assert not problems(at)
    after = at.selectbox(key="rv_b").value

    def grids() -> list[set[str]]:
        return [set(df.value.columns) for df in at.dataframe]

    def rendered() -> bool:
        return any("dc-mono" in e.proto.body for e in at.get("html"))

    def audit() -> bool:  # the trail's table, or the line that says it is empty
        return any("reviewer" in g for g in grids()) or any("No review action" in c.value for c in at.caption)

    assert grids() == [{"code", "field", "change", "before", "after"}]  # the diff only
    assert at.button(key="approve") and not rendered() and not audit()
    assert not [t for t in at.text_area if t.key.startswith("edit_")]
    assert not [s for s in at.selectbox if s.key.startswith("export_base_")]
    assert not any("register_docset" == b.key for b in at.button)

    at.session_state["rv_versions"] = True
    at.session_state["rv_rendered"] = True
    at.run()
    assert any("decision" in g for g in grids()) and rendered()

    at.session_state["review_tab"] = "Edit"
    at.run()
    assert not problems(at)
    at.text_area(key=f"edit_IC_{after}").set_value("Order at most 100 units.").run()
    at.session_state["review_tab"] = "Audit trail"
    at.run()
    assert audit()
    # the editor stays built, hidden: an unsaved edit survives a look at another tab
    assert at.text_area(key=f"edit_IC_{after}").value == "Order at most 100 units."

    at.session_state["review_tab"] = "Export approved set"
    at.run()
    assert not problems(at) and at.selectbox(key=f"export_base_{TOOL}").value
    assert any("register_docset" == b.key for b in at.button)

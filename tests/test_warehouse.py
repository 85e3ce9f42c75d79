"""Warehouse: migrations, immutability, identities, and two real processes at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from core.docs import DocSet, Param, ToolDoc
from core.warehouse import Episode, Event, Warehouse
from core.warehouse.store import close_all, migrations


def _episode(i: int, run: str = "r1") -> Episode:
    return Episode(
        episode_id=f"e{i}",
        run_id=run,
        benchmark="b",
        task_id=f"t{i}",
        domain="d",
        docset_id="s",
        config_id="c",
        repeat=0,
        model="m",
        paradigm="react",
        success=i % 2 == 0,
        tool_correct=True,
        score={"i": i},
        calls=[{"tool": "x", "args": {"i": i}}],
    )


def test_migrations_are_numbered_and_idempotent(tmp_path: Path) -> None:
    nums = [n for n, _, _ in migrations()]
    assert nums == sorted(nums) and nums[0] == 1
    Warehouse(tmp_path / "a.duckdb")
    close_all()
    wh2 = Warehouse(tmp_path / "a.duckdb")
    assert wh2.scalar("SELECT max(version) FROM schema_version") == nums[-1]
    assert wh2.scalar("SELECT count(*) FROM schema_version") == len(nums)


def test_episodes_are_written_once(warehouse: Warehouse) -> None:
    events = [Event(0, "thought", text="plan"), Event(1, "tool_call", tool="x", args={"a": 1}, output="ok")]
    assert warehouse.record_episode(_episode(1), events)
    # A second write of the same episode (e.g. a re-run) changes nothing.
    changed = _episode(1)
    changed.success = True
    assert not warehouse.record_episode(changed, [Event(0, "error", error="other")])
    df = warehouse.query("SELECT * FROM events ORDER BY seq")
    assert list(df["kind"]) == ["thought", "tool_call"]
    assert warehouse.scalar("SELECT count(*) FROM episodes") == 1
    assert warehouse.existing_episodes(["e1", "e9"]) == {"e1"}


def test_docsets_round_trip_by_content_hash(warehouse: Warehouse) -> None:
    a = ToolDoc(tool="t.a", name="t.a", description="does a", parameters=(Param(name="x", type="int"),))
    b = ToolDoc(tool="t.b", name="t.b", description="does b")
    ds = DocSet([a, b], name="original")
    sid = warehouse.register_docset(ds, benchmark="b", origin="original")
    assert sid == ds.docset_id
    assert warehouse.register_docset(ds, benchmark="b", origin="original") == sid  # idempotent
    back = warehouse.load_docset(sid)
    assert back.docset_id == sid and back["t.a"] == a
    assert warehouse.scalar("SELECT count(*) FROM doc_versions") == 2


def test_run_ids_are_stable_for_the_same_config(warehouse: Warehouse) -> None:
    r1 = warehouse.start_run("eval", {"benchmark": "b", "model": "m"})
    r2 = warehouse.start_run("eval", {"model": "m", "benchmark": "b"})
    assert r1 == r2
    assert warehouse.scalar("SELECT count(*) FROM runs") == 1
    assert warehouse.scalar("SELECT count(*) FROM run_status WHERE run_id = ?", [r1]) == 2


WRITER = textwrap.dedent(
    """
    import sys
    from core.warehouse import Warehouse, Episode, Event
    wh = Warehouse(sys.argv[1], timeout_s=60)
    for i in range(int(sys.argv[2])):
        ep = Episode(episode_id=f"w{i}", run_id="w", benchmark="b", task_id=f"t{i}", domain="d",
                     docset_id="s", config_id="c", repeat=0, model="m", paradigm="p",
                     success=True, tool_correct=True)
        wh.record_episode(ep, [Event(j, "thought", text=f"step {j}") for j in range(10)])
    print("writer done")
    """
)

READER = textwrap.dedent(
    """
    import sys, time
    from core.warehouse import Warehouse
    wh = Warehouse(sys.argv[1], timeout_s=60)
    seen, deadline = [], time.time() + 60
    n = int(sys.argv[2])
    while time.time() < deadline:
        count = wh.scalar("SELECT count(*) FROM episodes WHERE run_id = 'w'")
        seen.append(count)
        # the dashboard also writes (approvals), interleaved with the job's writes
        wh.insert("approvals", [{"approval_id": f"a{len(seen)}", "doc_id": "d", "action": "approve"}])
        if count == n:
            break
        time.sleep(0.01)
    assert seen == sorted(seen), "counts must never go backwards"
    print("reader done", len(seen), seen[-1])
    """
)


def test_two_processes_read_and_write_without_lock_errors(tmp_path: Path) -> None:
    path = tmp_path / "shared.duckdb"
    Warehouse(path)
    close_all()
    n = 60
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(path), str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    w_out, w_err = writer.communicate(timeout=180)
    r_out, r_err = reader.communicate(timeout=180)
    assert writer.returncode == 0, w_err
    assert reader.returncode == 0, r_err
    assert "lock" not in (w_err + r_err).lower()
    assert "reader done" in r_out and r_out.strip().endswith(str(n))
    wh = Warehouse(path)
    assert wh.scalar("SELECT count(*) FROM episodes") == n
    assert wh.scalar("SELECT count(*) FROM events") == n * 10
    assert wh.scalar("SELECT count(DISTINCT approval_id) FROM approvals") == wh.scalar(
        "SELECT count(*) FROM approvals"
    )


def test_typed_rows_match_their_tables(warehouse):
    """Every row type's fields are exactly its table's columns, so a schema change fails here first."""
    from dataclasses import fields

    from core.warehouse.rows import ROW_TYPES

    for kind in ROW_TYPES:
        cols = [
            r[0]
            for r in warehouse.rows(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [kind.TABLE]
            )
        ]
        assert cols, kind.TABLE
        assert sorted(f.name for f in fields(kind)) == sorted(cols), kind.TABLE


def test_record_writes_typed_rows_once_and_keeps_the_audit_trail_strict(warehouse):
    import duckdb
    import pytest

    from core.warehouse.rows import ApprovalRow, SelectionRow

    sel = SelectionRow(run_id="r", tool="t", doc_id="d", reason="best")
    warehouse.record([sel, sel])
    warehouse.record([sel])
    assert warehouse.scalar("SELECT count(*) FROM selections") == 1
    a = ApprovalRow(
        approval_id="a1",
        doc_id="d",
        tool="t",
        action="approve",
        label="ok",
        reviewer="me",
        reason="",
        run_id=None,
    )
    b = ApprovalRow(**{**a.values(), "approval_id": "a2"})
    warehouse.record([a, b])
    assert warehouse.scalar("SELECT count(*) FROM approvals") == 2
    with pytest.raises(duckdb.ConstraintException):  # the audit trail never silently drops an action
        warehouse.record([a])

"""docs/RESULTS.md is a projection of the warehouse: sections appear only with data, from any file."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from core.cli.main import cli
from core.reports import render_results
from core.warehouse import Episode, Warehouse


def _imported(wh: Warehouse, ok: bool, i: int) -> None:
    ep = Episode(
        episode_id=f"e{i}",
        run_id="r",
        benchmark="workbench",
        task_id=f"t{i}",
        domain="email",
        docset_id="s",
        config_id="c",
        repeat=0,
        model="gpt-4",
        paradigm="react-text",
        variant="all",
        success=ok,
        tool_correct=True,
        score={"side_effects": not ok},
        source="import",
    )
    wh.record_episode(ep, [])


def test_sections_follow_the_data(tmp_path: Path) -> None:
    empty = Warehouse(tmp_path / "empty.duckdb")
    text = render_results(empty)
    assert text.startswith("# Results") and "## " not in text
    wh = Warehouse(tmp_path / "wh.duckdb")
    for i, ok in enumerate([True, False, False, True]):
        _imported(wh, ok, i)
    text = render_results([empty, wh])
    assert "## Recorded WorkBench traces" in text
    row = next(line for line in text.splitlines() if line.startswith("| gpt-4 |"))
    assert "| 50.0 | 50.0 | 100.0 |" in row  # accuracy, side effects, TC — computed, not typed


def test_results_command_writes_the_file(tmp_path: Path) -> None:
    wh_path = tmp_path / "wh.duckdb"
    _imported(Warehouse(wh_path), True, 0)
    out = tmp_path / "RESULTS.md"
    res = CliRunner().invoke(cli, ["results", "--warehouse", str(wh_path), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "Recorded WorkBench traces" in out.read_text()


def test_sections_without_a_warehouse_here_are_carried_over_marked(tmp_path: Path) -> None:
    """A section whose warehouse is not at hand keeps its measured tables, saying where they came from."""
    wh_path = tmp_path / "wh.duckdb"
    _imported(Warehouse(wh_path), True, 0)
    out = tmp_path / "RESULTS.md"
    runner = CliRunner()
    assert runner.invoke(cli, ["results", "--warehouse", str(wh_path), "--out", str(out)]).exit_code == 0
    first = out.read_text()
    other = tmp_path / "other.duckdb"
    Warehouse(other)
    for _ in range(2):  # carried twice: marked once
        res = runner.invoke(cli, ["results", "--warehouse", str(other), "--out", str(out)])
        assert res.exit_code == 0, res.output
    text = out.read_text()
    body = text.split("## Recorded WorkBench traces, re-scored by our scorer", 1)[1]
    assert body.count("_Carried over unchanged from the results of") == 1 and "`wh.duckdb`" in body
    assert "| gpt-4 |" in body and first.split("## ", 1)[1].split("\n", 1)[1].strip() in body
    res = runner.invoke(cli, ["results", "--warehouse", str(other), "--out", str(out), "--drop-missing"])
    assert res.exit_code == 0 and "## " not in out.read_text()

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


def _cell(wh: Warehouse, study: str, model: str, delta: float) -> None:
    from core.warehouse.rows import FieldImpactRow

    wh.record(
        [
            FieldImpactRow(
                study_id=study,
                benchmark="api-bank",
                domain="finance",
                model=model,
                paradigm="react",
                field=code,
                operation="remove",
                n_tools=4,
                base_ts=0.5,
                variant_ts=0.5 + sign * delta / 100,
                delta_pp=sign * delta,
                ci_low=sign * delta - 5,
                ci_high=sign * delta + 5,
                repeats=3,
                docset_id=f"{study}-{code}",
                run_id=f"run-{study}",
                delta_tc_pp=0.0,
                detail={"n_tasks": 12, "task_ids": [f"t{i}" for i in range(12)]},
            )
            for code, sign in (("TN", -1), ("FD", 1))
        ]
    )


def test_cells_measured_in_separate_warehouses_meet_in_the_results_archive(tmp_path: Path) -> None:
    """A field-study cell whose warehouse is gone still shows, beside the cell measured today."""
    archive = tmp_path / "results"
    out = tmp_path / "RESULTS.md"
    runner = CliRunner()
    first, second = tmp_path / "monday.duckdb", tmp_path / "tuesday.duckdb"
    _cell(Warehouse(first), "s-small", "local/smollm2-135m", 20.0)
    args = ["results", "--out", str(out), "--archive", str(archive)]
    assert runner.invoke(cli, [*args, "--warehouse", str(first)]).exit_code == 0
    first.unlink()  # the machine that measured it is gone; its archived rows are not
    _cell(Warehouse(second), "s-coder", "local/qwen2.5-coder-0.5b", 10.0)
    for _ in range(2):  # archiving the same rows again adds nothing
        res = runner.invoke(cli, [*args, "--warehouse", str(second)])
        assert res.exit_code == 0, res.output
    text = out.read_text()
    impact = text.split("## Field-impact study", 1)[1].split("\n## ", 1)[0]
    assert "local/smollm2-135m" in impact and "local/qwen2.5-coder-0.5b" in impact
    assert "Carried over" not in impact and "results archive" in text.splitlines()[2]
    import pandas as pd

    assert len(pd.read_parquet(archive / "field_impact.parquet")) == 4


def test_a_damaged_archive_file_is_named_and_nothing_is_overwritten(tmp_path: Path) -> None:
    archive = tmp_path / "results"
    archive.mkdir()
    (archive / "field_impact.parquet").write_bytes(b"not parquet")
    wh = tmp_path / "wh.duckdb"
    _cell(Warehouse(wh), "s", "local/smollm2-135m", 5.0)
    out = tmp_path / "RESULTS.md"
    res = CliRunner().invoke(
        cli, ["results", "--warehouse", str(wh), "--out", str(out), "--archive", str(archive)]
    )
    assert res.exit_code != 0 and "field_impact.parquet" in res.output
    assert (archive / "field_impact.parquet").read_bytes() == b"not parquet" and not out.exists()


def test_the_baseline_table_leaves_a_field_studys_original_runs_to_its_own_section(tmp_path: Path) -> None:
    from core.reports.sections import local_baseline

    wh = Warehouse(tmp_path / "wh.duckdb")
    wh.insert(
        "doc_sets", [{"docset_id": "orig", "name": "original", "benchmark": "api-bank", "origin": "original"}]
    )
    agent = {"model": "local/qwen2.5-coder-0.5b", "paradigm": "react", "doc_mode": "native"}
    for run_id, extra in (("baseline", {}), ("study", {"study_id": "s1"})):
        config = {
            "docset_id": "orig",
            "benchmark": "api-bank/domain",
            "split": "test",
            "agent": agent,
            **extra,
        }
        wh.insert("runs", [{"run_id": run_id, "kind": "eval", "benchmark": "api-bank", "config": config}])
        for i in range(2 if run_id == "baseline" else 5):
            eid = f"{run_id}-{i}"
            wh.insert(
                "episodes",
                [{"episode_id": eid, "run_id": run_id, "task_id": f"t{i}", "domain": "finance", "success": True,
                  "tool_correct": True, "latency_s": 1.0, "n_steps": 1}],
            )  # fmt: skip
            wh.insert("run_episodes", [{"run_id": run_id, "episode_id": eid}])
    text = local_baseline(wh)
    assert text is not None and "| finance | react/native | test | 2 |" in text


def test_a_field_paired_with_an_original_run_measured_again_drops_out_until_re_measured(
    tmp_path: Path,
) -> None:
    """After the docs render differently, a re-run study has a new original-docs run; rows still paired
    with the old one are not current (here FD, not yet re-measured), the re-measured ones are."""
    from datetime import timedelta

    from core.study.report import latest_impacts
    from core.warehouse.reads import field_impacts
    from core.warehouse.records import now
    from core.warehouse.rows import FieldImpactRow

    wh = Warehouse(tmp_path / "wh.duckdb")
    start = now()

    def row(code: str, base_run: str, delta: float, minutes: int) -> FieldImpactRow:
        return FieldImpactRow(
            study_id="s", benchmark="workbench", domain="analytics", model="local/m", paradigm="react",
            field=code, operation="remove", n_tools=7, base_ts=0.4, variant_ts=0.4 + delta / 100,
            delta_pp=delta, ci_low=delta - 5, ci_high=delta + 5, repeats=1, docset_id=f"d-{code}",
            run_id="study", delta_tc_pp=0.0, detail={"n_tasks": 12, "base_runs": [base_run] if base_run else []},
            created_at=start + timedelta(minutes=minutes),
        )  # fmt: skip

    wh.record([row("TN", "orig-v1", 0.0, 0), row("FD", "orig-v1", 0.0, 1), row("IPD", "", 3.0, 2)])
    assert set(latest_impacts(wh)["field"]) == {"TN", "FD", "IPD"}
    wh.record([row("TN", "orig-v2", -8.3, 10)])  # the study re-run: a new original run, TN measured again
    current = latest_impacts(wh)
    assert set(current["field"]) == {"TN", "IPD"}  # IPD names no run: kept as it was
    assert current.set_index("field").loc["TN", "delta_pp"] == -8.3
    assert {r["field"] for r in field_impacts(wh, "workbench", "local/m", "react")} == {"TN", "IPD"}


def test_a_section_carried_from_before_a_measurement_change_says_so(monkeypatch) -> None:
    """Results carried over from before a change to what an episode measures name that change."""
    from datetime import UTC, datetime

    from core.reports import results

    change = results.MeasurementChange(datetime(2026, 1, 2, 12, 0, tzinfo=UTC), "a new seeding", ("Speed",))
    monkeypatch.setattr(results, "MEASUREMENT_CHANGES", (change,))

    def doc(when: str, body: str) -> str:
        return (
            f"# Results\n\nRegenerated from the warehouse file(s) `a.duckdb`, `b.duckdb` by `docschisel "
            f"results` on {when} UTC. Do not edit by hand.\n\n## Method comparison\n\n{body}\n"
        )

    provenance, old = results.previous_sections(doc("2026-01-01 09:00", "| OG | 50 |"))
    first = results.carried(old["Method comparison"], provenance, "Method comparison")
    assert first.startswith(
        "_Carried over unchanged from the results of 2026-01-01 09:00 UTC (warehouse file(s) `a.duckdb`, "
        "`b.duckdb`), measured before these changes, so re-running the experiment measures them again: "
        "a new seeding (since 2026-01-02 12:00 UTC): no warehouse given here holds these runs._"
    )
    # carried again from a later document: one marker, the first provenance, the change still named
    provenance, old = results.previous_sections(doc("2026-01-03 09:00", first))
    again = results.carried(old["Method comparison"], provenance, "Method comparison")
    assert again == first and again.count("_Carried over") == 1 and again.endswith("| OG | 50 |")
    # a section carried before the change was known is named outdated once it is
    plain = (
        "_Carried over unchanged from the results of 2026-01-01 09:00 UTC (warehouse file(s) `a.duckdb`): no "
    )
    plain += "warehouse given here holds these runs._\n\n| OG | 50 |"
    assert "a new seeding (since 2026-01-02 12:00 UTC)" in results.carried(plain, "later")
    # a section the change left as it was, or measured after the change: nothing to say
    early, _ = results.previous_sections(doc("2026-01-01 09:00", ""))
    assert "measured before" in results.carried("| tok/s | 70 |", early, "Latency")
    assert "measured before" not in results.carried("| tok/s | 70 |", early, "Speed")
    provenance, old = results.previous_sections(doc("2026-01-02 13:00", "| OG | 50 |"))
    assert "measured before" not in results.carried(old["Method comparison"], provenance, "Method comparison")

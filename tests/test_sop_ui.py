"""The SOPs page: an evolve run's lifetimes, curves, SOP detail and export; its empty state; starting a job."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.ui.testing import open_app, problems, show


@pytest.fixture(scope="module")
def evolved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    from core.agents.base import AgentConfig
    from core.chisel.access import GroundTruth
    from core.sop.evolve import SopConfig, evolve
    from core.sop.executor import Limits
    from core.warehouse import Warehouse
    from core.warehouse.store import close_all
    from tests.sopbench import OfficeBench, RoutineAgent

    path = tmp_path_factory.mktemp("sopui") / "wh.duckdb"
    wh = Warehouse(path)
    cfg = SopConfig(
        benchmark="office",
        agent=AgentConfig(model="scripted/routine"),
        epochs=3,
        batch_size=4,
        construct_epochs=2,
        limits=Limits(cpu_s=1, wall_s=5, memory_mb=200),
    )
    res = evolve(
        wh,
        cfg,
        benchmark=OfficeBench(24),
        agent_factory=RoutineAgent,
        ground_truth=lambda run_id, split, tasks: GroundTruth(wh, run_id, split, tasks),
        concurrency=1,
    )
    close_all()
    return path, res.run_id


def test_the_sops_page_shows_a_run(evolved: tuple[Path, str]) -> None:
    path, run_id = evolved
    at = show(open_app(path), "sops")
    assert not problems(at), problems(at)
    assert at.title[0].value == "SOPs"
    assert at.selectbox(key="sop_run").value == run_id
    assert len(at.get("vega_lite_chart")) == 2  # lifetimes and curves
    uptake = next(df.value for df in at.dataframe if "with an SOP call" in df.value.columns)
    assert list(uptake["evaluation"])[-1] == "test" and uptake["with an SOP call"].sum() > 0
    codes = [c.value for c in at.code]
    assert any(c.startswith("def ") and "tools.call(" in c for c in codes), "the SOP's code, read-only"
    assert any("Returns" in c or "Parameters" in c or "lookup" in c for c in codes), "its schema"
    names = at.selectbox(key="sop_sop").options
    for name in names:
        at.selectbox(key="sop_sop").set_value(name).run()
        assert not problems(at), (name, problems(at))
    at.selectbox(key="sop_sop").set_value(names[0]).run()
    links = [v for df in at.dataframe if "trace" in df.value.columns for v in df.value["trace"]]
    assert links and all(v.startswith("./traces?") and "episode=" in v for v in links), "origin trajectories"
    assert [b.label for b in at.get("download_button")] == [
        "Download OPENAI tools + code",
        "Download MCP tools + code",
    ]
    t1 = next(df.value for df in at.dataframe if "test TS %" in df.value.columns)
    assert list(t1["method"]) == ["atomic", "full"], "Table 1 on the page"
    paired = next(df.value for df in at.dataframe if "Δ test TS pp [95 % CI]" in df.value.columns)
    assert list(paired["method"]) == ["full"] and paired["paired tasks"].iloc[0] > 0


def test_the_sops_page_has_an_empty_state_and_builds_the_job_command(tmp_path: Path) -> None:
    from core.ui.views.sops import evolve_argv

    at = show(open_app(tmp_path / "empty.duckdb"), "sops")
    assert not problems(at) and at.title[0].value == "SOPs"
    # the job list is the same backing-off live fragment as the other job views (core/ui/live.py)
    captions = [c.value for c in at.caption]
    assert "No EvoSOP job yet." in captions
    assert any(c.startswith("Live · updated") and "every 2 s" in c for c in captions)
    argv = evolve_argv(
        "workbench", ["email"], model="local/qwen2.5-coder-0.5b", variant="full", constructor="composer",
        warehouse="w.duckdb", max_train=25, max_test=40, doc_links=True, offer="instead",
    )  # fmt: skip
    assert "--doc-links" in argv and argv[argv.index("--offer") + 1] == "instead"
    assert "--offer" not in evolve_argv(
        "workbench", [], model="m", variant="full", constructor="composer", warehouse="w.duckdb"
    ), "the default offer passes no option"
    from click.testing import CliRunner

    from core.cli.main import cli

    out = CliRunner().invoke(cli, [*argv, "--help"])  # every option the page passes parses
    assert out.exit_code == 0, out.output


def test_a_run_still_under_way_shows_its_epochs_without_a_result(
    evolved: tuple[Path, str], tmp_path: Path
) -> None:
    """A run whose process was stopped before its result row (NULL selected epoch and test) still draws."""
    import shutil

    from core.warehouse import Warehouse
    from core.warehouse.store import close_all

    path, run_id = evolved
    copy = tmp_path / "unfinished.duckdb"
    shutil.copy(path, copy)
    with Warehouse(copy).transaction() as con:
        con.execute("DELETE FROM sop_results WHERE run_id = ?", [run_id])
    close_all()
    at = show(open_app(copy), "sops")
    assert not problems(at), problems(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Selected epoch"] == "–" and "Held-out test TS" not in metrics
    assert len(at.get("vega_lite_chart")) == 2

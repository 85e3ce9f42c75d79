"""An evolve run killed mid-epoch resumes: the re-run ends where an uninterrupted run ends, nothing twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from core.warehouse import Warehouse
from core.warehouse.store import close_all

SCRIPT = textwrap.dedent(
    """
    import sys
    from tests.sopbench import RoutineAgent
    from tests.test_sop_resume import run

    class Slow(RoutineAgent):
        sleep = float(sys.argv[2])

    run(sys.argv[1], Slow)
    """
)
TABLES = (
    "sops",
    "sop_epochs",
    "sop_usage",
    "sop_reviews",
    "sop_decisions",
    "sop_results",
    "episodes",
    "events",
)


def run(path: str, agent_factory):
    from core.agents.base import AgentConfig
    from core.chisel.access import GroundTruth
    from core.sop.evolve import SopConfig, evolve
    from core.sop.executor import Limits
    from tests.sopbench import OfficeBench

    wh = Warehouse(path)
    cfg = SopConfig(
        benchmark="office",
        agent=AgentConfig(model="scripted/routine"),
        epochs=3,
        batch_size=4,
        construct_epochs=2,
        limits=Limits(cpu_s=1, wall_s=5, memory_mb=200),
    )
    return evolve(
        wh,
        cfg,
        benchmark=OfficeBench(30),
        agent_factory=agent_factory,
        ground_truth=lambda run_id, split, tasks: GroundTruth(wh, run_id, split, tasks),
        concurrency=1,
    )


def _counts(db: Path) -> dict[str, object]:
    wh = Warehouse(db)
    out: dict[str, object] = {t: wh.scalar(f"SELECT count(*) FROM {t}") for t in TABLES}
    out["epochs"] = tuple(wh.rows("SELECT epoch, toolset_id, ts, kept FROM sop_epochs ORDER BY epoch"))
    out["duplicate episodes"] = wh.scalar(
        "SELECT count(*) FROM (SELECT episode_id FROM episodes GROUP BY 1 HAVING count(*) > 1)"
    )
    close_all()
    return out


@pytest.mark.slow
def test_sigkill_mid_epoch_then_rerun_resumes_without_duplicates(tmp_path: Path) -> None:
    from tests.sopbench import RoutineAgent

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    killed = tmp_path / "killed.duckdb"
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(killed), "0.05"],  # ~0.2 s per episode: an epoch takes seconds
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 240
    wh = Warehouse(killed)
    stored = 0
    while time.time() < deadline and proc.poll() is None:
        if killed.exists() and wh.scalar("SELECT count(*) FROM sop_epochs") >= 2:
            if not stored:
                stored = wh.scalar("SELECT count(*) FROM episodes")
            elif wh.scalar("SELECT count(*) FROM episodes") >= stored + 3:  # some of epoch 2's episodes
                break
        time.sleep(0.05)
    close_all()
    assert proc.poll() is None, proc.communicate()[1][-2000:]
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    partial = _counts(killed)
    assert partial["epochs"] and len(partial["epochs"]) == 2 and partial["sop_results"] == 0

    resumed = run(str(killed), RoutineAgent)  # the same run again, in this process
    reference = run(str(tmp_path / "reference.duckdb"), RoutineAgent)  # an uninterrupted run
    assert resumed.run_id == reference.run_id and resumed.toolset.toolset_id == reference.toolset.toolset_id
    after = _counts(killed)
    assert after == _counts(tmp_path / "reference.duckdb")
    assert after["duplicate episodes"] == 0

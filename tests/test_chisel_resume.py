"""A killed optimization resumes: the re-run ends exactly where an uninterrupted run ends."""

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
    from functools import partial
    from core.agents.base import AgentConfig
    from core.chisel import OptimizeConfig
    from core.chisel.loop import optimize
    from core.warehouse import Warehouse
    from tests.test_chisel_toy import DocReadingAgent, ShopBench
    import time

    class Slow(DocReadingAgent):
        def run(self, ctx):
            time.sleep(float(sys.argv[2]))
            return super().run(ctx)

    cfg = OptimizeConfig(
        benchmark="shop", agent=AgentConfig(model="scripted/doc-reader"), iterations=3, engine="evidence"
    )
    res = optimize(Warehouse(sys.argv[1]), cfg, benchmark=ShopBench(n=24, quote_tasks=6), agent_factory=Slow)
    print("docset", res.docset_id)
    """
)

TABLES = ("diagnoses", "plans", "candidates", "memories", "selections", "chisel_tools")


def _counts(db: Path) -> dict[str, object]:
    wh = Warehouse(db)
    out: dict[str, object] = {t: wh.scalar(f"SELECT count(*) FROM {t}") for t in TABLES}
    out["episodes"] = wh.scalar("SELECT count(*) FROM episodes")
    out["candidate_docs"] = tuple(
        r[0] for r in wh.rows("SELECT doc_id FROM candidates ORDER BY tool, iteration")
    )
    close_all()
    return out


def _optimize(db: Path):
    from core.agents.base import AgentConfig
    from core.chisel import OptimizeConfig
    from core.chisel.loop import optimize
    from tests.test_chisel_toy import DocReadingAgent, ShopBench

    cfg = OptimizeConfig(
        benchmark="shop", agent=AgentConfig(model="scripted/doc-reader"), iterations=3, engine="evidence"
    )
    return optimize(
        Warehouse(db), cfg, benchmark=ShopBench(n=24, quote_tasks=6), agent_factory=DocReadingAgent
    )


@pytest.mark.slow
def test_sigkill_then_rerun_resumes_to_the_same_result(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    killed = tmp_path / "killed.duckdb"
    proc = subprocess.Popen(
        # 0.15 s per episode: an iteration takes seconds, so the poll below sees the first candidate long
        # before a tool's last one (the runner writes fast episodes in batches, so they no longer pace it)
        [sys.executable, "-c", SCRIPT, str(killed), "0.15"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 300
    wh = Warehouse(killed)
    while time.time() < deadline and proc.poll() is None:
        if wh.scalar("SELECT count(*) FROM candidates") >= 1:  # killed in the middle of a tool's iterations
            break
        time.sleep(0.05)
    close_all()
    assert proc.poll() is None, proc.communicate()[1][-2000:]
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    partial = _counts(killed)
    assert 1 <= partial["candidates"] < 3 and partial["chisel_tools"] == 0

    resumed = _optimize(killed)  # the same command again, in this process
    reference = _optimize(tmp_path / "reference.duckdb")  # an uninterrupted run
    assert resumed.run_id == reference.run_id and resumed.docset_id == reference.docset_id
    assert _counts(killed) == _counts(tmp_path / "reference.duckdb")

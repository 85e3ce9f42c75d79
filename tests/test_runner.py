"""The runner: failures become data, resume finishes only what is missing, metrics by scope."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from core.agents.base import AgentConfig
from core.runner import RunPlan, run
from core.warehouse import Warehouse
from core.warehouse.store import close_all
from tests.toybench import OracleAgent, ToyBench


def _plan(bench: ToyBench, repeats: int = 2) -> RunPlan:
    return RunPlan(
        bench,
        bench.original_docs(),
        AgentConfig(model="scripted/oracle"),
        bench.tasks(),
        repeats=repeats,
        split="test",
    )


def test_failures_are_recorded_not_raised(warehouse: Warehouse) -> None:
    bench = ToyBench()
    res = run(warehouse, _plan(bench), agent_factory=OracleAgent, concurrency=2)
    assert res.planned == res.ran == 12
    eps = warehouse.query(
        "SELECT task_id, success, error_class, error FROM episodes WHERE repeat = 0 ORDER BY task_id"
    )
    by = {r.task_id: r for r in eps.itertuples()}
    assert by["t0"].success and pd.isna(by["t0"].error_class)
    assert by["t1"].error_class == "parse_error" and not by["t1"].success
    assert by["t3"].error_class == "agent_error" and "agent bug" in by["t3"].error
    assert by["t5"].success  # an unknown tool is an observation; the agent recovered
    ev = warehouse.query(
        "SELECT e.kind, e.tool, e.error FROM events e JOIN episodes p USING (episode_id) "
        "WHERE p.task_id = 't3' AND p.repeat = 0 ORDER BY seq"
    )
    assert list(ev["kind"]) == ["tool_call", "error"]
    assert "crashed" in ev["error"][0]
    assert abs(res.metrics.ts - 8 / 12) < 1e-9
    assert set(res.metrics.by_domain["domain"]) == {"arith", "other"}
    assert list(res.metrics.by_tool["tool"]) == ["math.add"]
    # every episode carries its call-level partial credit (a success has full credit)
    credit = warehouse.query("SELECT success, json_extract(score, '$.partial')::DOUBLE AS p FROM episodes")
    assert credit["p"].notna().all() and (credit[credit.success]["p"] == 1.0).all()


def test_rerun_reuses_finished_episodes(warehouse: Warehouse) -> None:
    bench = ToyBench()
    first = run(warehouse, _plan(bench), agent_factory=OracleAgent)
    second = run(warehouse, _plan(bench), agent_factory=OracleAgent)
    assert second.run_id == first.run_id
    assert second.ran == 0 and second.reused == 12
    assert warehouse.scalar("SELECT count(*) FROM episodes") == 12


def test_episodes_run_again_exactly_when_their_tools_render_differently(
    warehouse: Warehouse, monkeypatch
) -> None:
    import core.agents.tooling as tooling

    bench = ToyBench()
    first = run(warehouse, _plan(bench), agent_factory=OracleAgent)
    shown = tooling.render_openai

    def renderer_v2(doc, alias=None):  # a renderer change that alters what the agent reads
        out = shown(doc, alias=alias)
        out["function"]["description"] = (out["function"].get("description") or "") + " (v2)"
        return out

    monkeypatch.setattr(tooling, "render_openai", renderer_v2)
    monkeypatch.setattr(tooling, "_RENDERINGS", {})
    again = run(warehouse, _plan(bench), agent_factory=OracleAgent)
    assert again.run_id != first.run_id and (again.ran, again.reused) == (12, 0)
    text_mode = RunPlan(
        bench, bench.original_docs(), AgentConfig(model="scripted/oracle", doc_mode="text"), []
    )
    assert text_mode.rendering() != _plan(bench).rendering()  # each doc mode hashes what it shows


def test_the_tasks_of_a_repeat_sample_independently_and_doc_sets_share_their_samples(
    warehouse: Warehouse,
) -> None:
    from core.runner.episodes import episode_config

    seeds: dict[tuple[str, str], int] = {}

    class Recording(OracleAgent):
        def run(self, ctx):
            seeds[(ctx.docs[0].description or "", ctx.task.task_id)] = self.config.seed
            return super().run(ctx)

    bench = ToyBench(n=6)
    hot = AgentConfig(model="scripted/oracle", temperature=0.7, seed=5)
    run(
        warehouse,
        RunPlan(bench, bench.original_docs(), hot, bench.tasks(), split="test"),
        agent_factory=Recording,
    )
    edited = bench.original_docs().replace(
        bench.original_docs()["math.add"].model_copy(update={"description": "Add."})
    )
    run(warehouse, RunPlan(bench, edited, hot, bench.tasks(), split="test"), agent_factory=Recording)
    by_docs: dict[str, dict[str, int]] = {}
    for (docs, task), seed in seeds.items():
        by_docs.setdefault(docs, {})[task] = seed
    original, changed = by_docs.values()
    assert len(set(original.values())) == len(original) == 6  # one seed per task, not one per repeat
    assert original == changed  # the two doc sets are compared on the same samples, task by task
    # repeat r of a run draws what a run configured with seed + r draws; greedy runs keep the seed
    t = bench.tasks()[0].task_id
    assert episode_config(hot, t, 2).seed == episode_config(replace(hot, seed=7), t, 0).seed
    assert episode_config(replace(hot, temperature=0.0), t, 0).seed == 5
    assert "seeding" in hot.identity() and "seeding" not in replace(hot, temperature=0.0).identity()


def test_a_changed_model_runtime_makes_a_new_run_not_a_run_of_old_and_new_episodes(
    warehouse: Warehouse, monkeypatch
) -> None:
    import core.llm

    bench = ToyBench()
    first = run(warehouse, _plan(bench), agent_factory=OracleAgent)
    monkeypatch.setattr(core.llm, "model_identity", lambda model: "weights-v2")  # e.g. a new llama.cpp
    second = run(warehouse, _plan(bench), agent_factory=OracleAgent)
    assert second.run_id != first.run_id and (second.ran, second.reused) == (12, 0)
    linked = "SELECT count(*) FROM run_episodes WHERE run_id = ?"
    assert warehouse.scalar(linked, [second.run_id]) == warehouse.scalar(linked, [first.run_id]) == 12


def test_a_local_models_identity_leaves_the_cpu_kernels_out() -> None:
    from core.llm.local import KERNELS, cache_salt

    runtime = AgentConfig(model="local/smollm2-135m").identity()["runtime"]
    assert not any(f"/{k}" in runtime for k in KERNELS)  # episodes resume on either kind of CPU
    assert runtime == cache_salt("local/smollm2-135m", kernels=False)


def test_cancel_stops_between_episodes(warehouse: Warehouse) -> None:
    bench = ToyBench(n=10)
    calls = {"n": 0}

    def cancelled() -> bool:
        calls["n"] += 1
        return calls["n"] > 3

    res = run(
        warehouse, _plan(bench, repeats=1), agent_factory=OracleAgent, concurrency=1, cancelled=cancelled
    )
    assert res.cancelled and 0 < warehouse.scalar("SELECT count(*) FROM episodes") < 10


def test_fast_episodes_share_transactions(warehouse: Warehouse, monkeypatch) -> None:
    """Episodes that finish within the flush window are written together, and all of them are stored."""
    writes: list[int] = []
    original = Warehouse.record_episodes

    def counting(self, pairs, **kw):
        pairs = list(pairs)
        writes.append(len(pairs))
        return original(self, pairs, **kw)

    monkeypatch.setattr(Warehouse, "record_episodes", counting)
    res = run(warehouse, _plan(ToyBench(n=10), repeats=2), agent_factory=OracleAgent, flush_s=60.0)
    assert res.ran == 20 and sum(writes) == 20
    assert len(writes) < 20  # grouped, not one commit per episode
    assert warehouse.scalar("SELECT count(*) FROM episodes") == 20


def test_episodes_finished_before_a_storage_error_are_kept(warehouse: Warehouse, monkeypatch) -> None:
    """An error that stops the run still leaves every episode that finished before it in the warehouse."""
    from core.runner.executors import base as runner_mod  # where the executors call run_episode

    real = runner_mod.run_episode
    seen = {"n": 0}

    def flaky(*a, **kw):
        seen["n"] += 1
        if seen["n"] == 6:
            raise OSError("disk full")
        return real(*a, **kw)

    monkeypatch.setattr(runner_mod, "run_episode", flaky)
    try:
        run(
            warehouse,
            _plan(ToyBench(n=10), repeats=1),
            agent_factory=OracleAgent,
            concurrency=1,
            flush_s=60.0,
        )
    except OSError:
        pass
    else:
        raise AssertionError("the storage error must stop the run")
    assert warehouse.scalar("SELECT count(*) FROM episodes") == 5


SCRIPT = textwrap.dedent(
    """
    import sys
    from functools import partial
    from core.agents.base import AgentConfig
    from core.runner import RunPlan, run
    from core.warehouse import Warehouse
    from tests.toybench import OracleAgent, ToyBench
    bench = ToyBench(n=12)
    plan = RunPlan(bench, bench.original_docs(), AgentConfig(model="scripted/oracle"), bench.tasks(), repeats=2)
    res = run(Warehouse(sys.argv[1]), plan, agent_factory=partial(OracleAgent, sleep=float(sys.argv[2])), concurrency=2)
    print("finished", res.planned, res.ran)
    """
)


@pytest.mark.slow
def test_sigkill_then_rerun_completes_exactly(tmp_path: Path) -> None:
    db = tmp_path / "kill.duckdb"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(db), "0.15"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wh = Warehouse(db)
    deadline = time.time() + 120
    while time.time() < deadline:
        n = wh.scalar("SELECT count(*) FROM episodes")
        if n >= 6:
            break
        time.sleep(0.1)
    close_all()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    partial_count = Warehouse(db).scalar("SELECT count(*) FROM episodes")
    close_all()
    assert 0 < partial_count < 24
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(db), "0"], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    wh = Warehouse(db)
    assert wh.scalar("SELECT count(*) FROM episodes") == 24
    assert wh.scalar("SELECT count(DISTINCT episode_id) FROM episodes") == 24
    assert (
        wh.scalar(
            "SELECT count(*) FROM (SELECT episode_id, seq FROM events GROUP BY ALL HAVING count(*) > 1)"
        )
        == 0
    )

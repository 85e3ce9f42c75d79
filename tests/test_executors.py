"""The executor seam without a cluster: choosing an executor, benchmark recipes, the worker_lost record."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from click.testing import CliRunner

from core.agents import AgentConfig
from core.benchmarks.registry import benchmark_key, get_benchmark
from core.runner.executors import LocalExecutor, current, make_executor, use
from core.runner.executors.base import EpisodeWork
from core.runner.runner import RunPlan

NOTES = Path(__file__).parent / "fixtures" / "userbench" / "notes"


def test_the_executor_comes_from_the_name_or_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("DOCSCHISEL_EXECUTOR", raising=False)
    assert isinstance(make_executor(), LocalExecutor)
    monkeypatch.setenv("DOCSCHISEL_EXECUTOR", "local")
    assert make_executor().name == "local"
    with pytest.raises(ValueError, match="unknown executor 'spark'"):
        make_executor("spark")


def test_commands_install_the_executor_they_are_given(monkeypatch) -> None:
    from core.cli.main import cli

    monkeypatch.delenv("DOCSCHISEL_EXECUTOR", raising=False)
    previous = current()
    try:
        result = CliRunner().invoke(cli, ["eval", "--executor", "spark"])
        assert result.exit_code == 2 and "'spark' is not one of 'local', 'ray'" in result.output
        # the option is read before the command's own work: an unknown benchmark fails after it
        result = CliRunner().invoke(cli, ["eval", "--executor", "local", "--benchmark", "no-such-bench"])
        assert result.exit_code != 0 and isinstance(current(), LocalExecutor)
    finally:
        use(previous)


def test_a_registry_benchmark_carries_the_recipe_that_builds_it_again(tmp_path: Path) -> None:
    bench = get_benchmark(str(NOTES))
    source = pickle.loads(pickle.dumps(bench.source))  # what travels to a worker
    assert source.name == str(NOTES.resolve())
    again = source.load()
    assert benchmark_key(again) == benchmark_key(bench) and again.tool_names() == bench.tool_names()


def test_an_episode_whose_worker_always_dies_is_a_failed_record() -> None:
    from core.runner.executors.lost import lost_episode
    from core.warehouse.records import Episode

    bench = get_benchmark(str(NOTES))
    task = bench.tasks()[0]
    work = EpisodeWork(bench, bench.original_docs(), AgentConfig(model="scripted/x"), "run-1", split="test")
    episode, events = lost_episode(work, task, 1, "the worker running this episode died 3 times")
    planned = RunPlan(bench, work.docset, work.config, [task], repeats=2).episode_ids()
    assert episode.episode_id == planned[1][0]  # the id the runner planned for that repeat
    assert episode.episode_id != Episode.make_id(
        benchmark_key(bench), task.task_id, work.docset.docset_id, work.config.config_id, 1, None
    )
    assert (episode.success, episode.error_class, episode.repeat) == (False, "worker_lost", 1)
    assert [e.kind for e in events] == ["error"]


def test_an_sop_benchmark_is_built_again_from_its_base_recipe_sops_and_limits() -> None:
    from core.sop.bench import SopBenchmark
    from core.sop.executor import Limits
    from core.sop.model import Toolset

    bench = SopBenchmark(get_benchmark(str(NOTES)), Toolset(), limits=Limits(wall_s=5))
    source = pickle.loads(pickle.dumps(bench.source))
    assert repr(source) == repr(bench.source)  # by content: a worker keeps one build per recipe
    again = source.load()
    assert benchmark_key(again) == benchmark_key(bench) and again.limits == Limits(wall_s=5)

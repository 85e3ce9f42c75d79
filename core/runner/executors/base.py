"""The executor seam: where the runner's planned episodes run.

Why a seam. The runner decides *what* runs (episode ids by content hash,
stored ones skipped, claims, batched writes); an executor decides *where*:
threads of this process (`local`, the default) or long-lived actors on a Ray
cluster (`ray`, core.runner.executors.on_ray). Whatever runs an episode hands
back the finished record (`EpisodeResult`); only the runner, in the driver
process, writes it to the warehouse, so the single-writer rule holds on one
machine or fifty.

A run opens a `Session` with the run's shared `EpisodeWork`, submits
episodes up to the session's capacity, reads their futures and closes it.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

from core.agents.base import Agent, AgentConfig
from core.benchmarks.base import Benchmark, Task
from core.docs import DocSet
from core.runner.episodes import episode_config, run_episode
from core.runner.infra import InfraFailure
from core.warehouse.records import Episode, Event

AgentFactory = Callable[[AgentConfig], Agent]
EpisodeResult = tuple[Episode, list[Event]] | InfraFailure


def default_agent_factory(config: AgentConfig) -> Agent:
    """The agent of `config`'s paradigm (ReAct native/text or planner–executor)."""
    from core.agents import make_agent

    return make_agent(config)


@dataclass(frozen=True)
class EpisodeWork:
    """What every episode of one run shares; an executor receives it once per run.

    `config` is the identity the episodes are stored under (repeats sample
    with their own seed, see `episode_config`); `agent_factory` None means the
    default agent of the configuration's paradigm.
    """

    benchmark: Benchmark
    docset: DocSet
    config: AgentConfig
    run_id: str
    split: str = ""
    variant: str = ""
    max_calls_per_reply: int | None = None
    agent_factory: AgentFactory | None = None


def execute(work: EpisodeWork, task: Task, repeat: int) -> EpisodeResult:
    """Run one planned episode of `work`."""
    factory = work.agent_factory or default_agent_factory
    config = episode_config(work.config, task.task_id, repeat)
    return run_episode(
        work.benchmark,
        task,
        work.docset,
        config,
        repeat,
        run_id=work.run_id,
        agent=factory(config),
        split=work.split,
        variant=work.variant,
        identity=work.config,
        max_calls_per_reply=work.max_calls_per_reply,
    )


class Session(Protocol):
    """One run's use of an executor."""

    capacity: int  # episodes the runner keeps in flight

    def submit(self, episode_id: str, task: Task, repeat: int) -> Future[EpisodeResult]:
        """Start one episode; its future resolves to the finished record."""
        ...

    def abort(self) -> bool:
        """Stop episodes in flight now (cancel); True when their futures will never be read."""
        ...

    def close(self) -> None:
        """Release what the run held (waits for in-flight work unless aborted)."""
        ...


class Executor(Protocol):
    """Where episodes run; `open` starts one run's session."""

    name: str

    def open(self, work: EpisodeWork, concurrency: int) -> Session: ...


class LocalSession:
    """Episodes on a thread pool of this process: the behaviour the runner always had."""

    def __init__(self, work: EpisodeWork, concurrency: int) -> None:
        self.work = work
        self.capacity = max(1, concurrency)
        self._pool = ThreadPoolExecutor(max_workers=self.capacity, thread_name_prefix="episode")

    def submit(self, episode_id: str, task: Task, repeat: int) -> Future[EpisodeResult]:
        return self._pool.submit(execute, self.work, task, repeat)

    def abort(self) -> bool:
        return False  # a thread cannot be stopped: in-flight episodes finish and are stored

    def close(self) -> None:
        self._pool.shutdown(wait=True)


class LocalExecutor:
    """The default: concurrent episodes in threads of the calling process."""

    name = "local"

    def open(self, work: EpisodeWork, concurrency: int) -> LocalSession:
        return LocalSession(work, concurrency)

"""The record of an episode whose worker died on every try.

Why an episode and not an infrastructure failure: a task that kills the
process running it (a tool that exhausts memory, a native crash in a model)
does so again on every retry, and a run that kept retrying it would never
finish. After the executor's bounded retries it is measured as what it is —
the agent could not complete it — and stored with the error class
`worker_lost`, so it shows in the failure lists and is not run again.
"""

from __future__ import annotations

from core.agents.tooling import rendering_id
from core.benchmarks.base import Task
from core.benchmarks.registry import benchmark_key
from core.runner.episodes import episode_config
from core.runner.executors.base import EpisodeWork
from core.warehouse.records import Episode, Event, now

WORKER_LOST = "worker_lost"


def lost_episode(work: EpisodeWork, task: Task, repeat: int, error: str) -> tuple[Episode, list[Event]]:
    """A failed episode of `task` (repeat `repeat`) with error class `worker_lost`."""
    bench = work.benchmark
    config = episode_config(work.config, task.task_id, repeat)
    episode_id = Episode.make_id(
        benchmark_key(bench),
        task.task_id,
        work.docset.docset_id,
        work.config.config_id,
        repeat,
        rendering_id(work.docset, work.config.doc_mode),
    )
    at = now()
    episode = Episode(
        episode_id=episode_id,
        run_id=work.run_id,
        benchmark=bench.name,
        task_id=task.task_id,
        domain=task.domain,
        docset_id=work.docset.docset_id,
        config_id=work.config.config_id,
        repeat=repeat,
        model=config.model,
        paradigm=config.label,
        variant=work.variant or getattr(bench, "key", ""),
        split=work.split,
        success=False,
        tool_correct=False,
        score={"partial": 0.0, "error": error},
        error=error,
        error_class=WORKER_LOST,
        source="run",
        started_at=at,
        finished_at=at,
    )
    return episode, [Event(seq=0, kind="error", error=error, text=WORKER_LOST)]

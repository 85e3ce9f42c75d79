"""Typed records for the immutable trace tables (episodes and their events).

Producers (the runner, the recorded-results importer) build these records; the
warehouse's single write path turns them into rows. Keeping them as plain
dataclasses means producers never write SQL.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

EVENT_KINDS = ("model_call", "thought", "tool_call", "final_answer", "error")
# Episodes stored before failures outside the agent were told apart (core.runner.infra): a missing
# local model or a rejected key recorded as the agent's error. They measure nothing, so runs do not
# reuse them: the next run of the command replaces them with real episodes. (SQL over `episodes`.)
LEGACY_INFRA_SQL = (
    "coalesce(error_class = 'agent_error' AND (starts_with(error, 'LocalModelUnavailable:') "
    "OR starts_with(error, 'AuthenticationError:') OR starts_with(error, 'PermissionDeniedError:')), false)"
)

# The `source` of an episode restored from the results archive (core.warehouse.archive): its outcome
# without its trace (no calls, events or answer). It stands for the episode wherever only the outcome
# is read; a caller that reads traces (an optimizer diagnosing failures, GEPA reflecting on them) runs
# it again, and the full episode then replaces it under the same id.
ARCHIVED_SOURCE = "archive"
TRACELESS_SQL = f"coalesce(source = '{ARCHIVED_SOURCE}', false)"


def content_hash(*parts: Any, n: int = 16) -> str:
    """Stable hash of JSON-serialisable parts; the identity of runs, configs and episodes."""
    payload = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:n]


def _shallow(obj: Any) -> dict[str, Any]:
    """Field values without `asdict`'s deep copy (rows are serialised right away; 10x faster in bulk)."""
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass
class Event:
    """One ordered step of an episode.

    kind: model_call (messages in/out, tokens, latency, cost, cache hit),
    thought (agent reasoning text), tool_call (tool, args, output or error),
    final_answer (text), error (what ended the episode abnormally).
    """

    seq: int
    kind: str
    tool: str | None = None
    args: dict[str, Any] | None = None
    output: str | None = None
    error: str | None = None
    text: str | None = None
    payload: dict[str, Any] | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    cost: float = 0.0
    cache_hit: bool = False
    ts: datetime = field(default_factory=now)
    error_class: str | None = None  # of a failed tool call: unknown_tool, bad_arguments, tool_crash, ...

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:
            raise ValueError(f"event kind {self.kind!r} not in {EVENT_KINDS}")


@dataclass
class Episode:
    """One agent attempt at one task under one doc set and agent config.

    `episode_id` is a content hash of (benchmark, task, doc set, agent config,
    repeat) so a re-run recognises finished work.
    """

    episode_id: str
    run_id: str
    benchmark: str
    task_id: str
    domain: str
    docset_id: str
    config_id: str
    repeat: int
    model: str
    paradigm: str
    success: bool
    tool_correct: bool
    variant: str = ""
    split: str = ""
    score: dict[str, Any] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)
    final_answer: str | None = None
    error: str | None = None
    error_class: str | None = None
    n_steps: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    latency_s: float = 0.0
    source: str = "run"
    started_at: datetime = field(default_factory=now)
    finished_at: datetime = field(default_factory=now)

    @staticmethod
    def make_id(
        benchmark: str, task_id: str, docset_id: str, config_id: str, repeat: int, rendering: str | None
    ) -> str:
        """The episode's id; `rendering` hashes how the tools were shown (core.agents.tooling.rendering_id),
        None where the episode was recorded elsewhere (an imported trace: the tools were not shown by us)."""
        if rendering is None:
            return content_hash("episode", benchmark, task_id, docset_id, config_id, int(repeat), n=20)
        return content_hash("episode", benchmark, task_id, docset_id, config_id, int(repeat), rendering, n=20)

    def row(self) -> dict[str, Any]:
        d = _shallow(self)
        d["score"] = json.dumps(d["score"], ensure_ascii=False, default=str)
        d["calls"] = json.dumps(d["calls"], ensure_ascii=False, default=str)
        return d


def event_row(episode_id: str, ev: Event) -> dict[str, Any]:
    d = _shallow(ev)
    d["episode_id"] = episode_id
    d["args"] = None if ev.args is None else json.dumps(ev.args, ensure_ascii=False, default=str)
    d["payload"] = None if ev.payload is None else json.dumps(ev.payload, ensure_ascii=False, default=str)
    return d

"""Which of an episode's calls raised, read from its trace.

TC counts only successful invocations (`core.benchmarks.base.invoked`). The
runner and the re-scorer both learn which calls failed from the same place:
the episode's ordered `tool_call` events, each with its arguments and, when
the tool rejected or crashed on the call, its error. Matching a call to its
event by tool and arguments (first unused event wins) rather than by position
keeps the pairing right when a trace also holds calls that never reached a
tool (an unknown name, unreadable arguments), which are events but not calls.
Calls cut by the per-reply cap are skipped outright: they name an offered tool
with real arguments, so they could otherwise stand in for a later, executed
call.

New episodes carry the mark in their stored calls already (the episode
context sets it when a call raises); the matching is for episodes stored
before calls carried it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from core.benchmarks.base import Call

# (tool, args, error, error_class) of one tool_call event, in the order the trace recorded them
Attempt = tuple[str | None, Mapping[str, Any] | None, str | None, str | None]
NEVER_RUN = ("too_many_calls",)


def _key(tool: str | None, args: Mapping[str, Any] | None) -> str:
    return json.dumps([tool, dict(args or {})], sort_keys=True, ensure_ascii=False, default=str)


def mark_raised(calls: Sequence[Call], attempts: Iterable[Attempt]) -> list[Call]:
    """`calls` with `error` set on each call whose tool_call event recorded an error.

    A call without a matching event keeps what it had (an error it already
    carries stays).
    """
    pending: dict[str, list[str | None]] = {}
    for tool, args, error, error_class in attempts:
        if error_class in NEVER_RUN:
            continue
        pending.setdefault(_key(tool, args), []).append(error)
    out = []
    for call in calls:
        queue = pending.get(_key(call.tool, call.args))
        error = queue.pop(0) if queue else None
        out.append(replace(call, error=error) if error is not None and call.error is None else call)
    return out

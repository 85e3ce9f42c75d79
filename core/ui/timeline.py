"""How one trace reads: its steps as a timeline, repeated identical calls collapsed, unparsed actions named.

Pure functions over the event dicts of `queries.traces.episode_detail`, so the
Traces page and the side-by-side view of a re-evaluation draw the same thing
and tests can check it without a browser.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

# What a model writes when it meant to call a tool but the agent could not read the call: a ReAct
# "Action:" line, a JSON object naming a tool or function, or a tool-call tag of a chat template.
_ACTION = re.compile(
    r'(^|\n)\s*Action\s*:|"(action|tool|tool_name|function|name)"\s*:|<tool_call>|<function[=>]',
    re.IGNORECASE,
)


def missing(value: Any) -> bool:
    """None, NaN or an empty string: a column the trace did not record."""
    if value is None:
        return True
    if isinstance(value, float) and pd.isna(value):
        return True
    return isinstance(value, str) and not value.strip()


def looks_like_action(text: Any) -> bool:
    """Whether a 'final answer' is really a tool call the agent could not parse."""
    return not missing(text) and bool(_ACTION.search(str(text)))


@dataclass(frozen=True)
class Step:
    """One drawn step: an event and how many identical consecutive calls it stands for."""

    event: dict[str, Any]
    repeats: int = 1


def _same_call(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("tool", "output", "error")
    return all(a.get(k) == b.get(k) for k in keys) and json.dumps(
        a.get("args"), sort_keys=True, default=str
    ) == (json.dumps(b.get("args"), sort_keys=True, default=str))


def collapse(events: Sequence[dict[str, Any]], show_model_calls: bool) -> list[Step]:
    """The steps to draw: hidden model calls dropped, runs of identical tool calls folded into one.

    A model stuck in a loop makes the same call twenty times; drawing each one
    made an 8,000-px page that hid the rest of the trace.
    """
    out: list[Step] = []
    for e in events:
        if e.get("kind") == "model_call" and not show_model_calls:
            continue
        last = out[-1] if out else None
        if (
            last
            and e.get("kind") == "tool_call"
            and last.event.get("kind") == "tool_call"
            and _same_call(last.event, e)
        ):
            out[-1] = Step(last.event, last.repeats + 1)
        else:
            out.append(Step(e))
    return out


def timeline(events: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """One row per model call, tool call and answer: start offset, latency, tokens, outcome.

    Latency of an event is what the trace recorded for it (model calls carry
    theirs; tool calls of imported spans too); the start is the sum of the
    latencies before it, so the timeline shows where the time went.
    """
    rows = []
    t = 0.0
    for e in events:
        kind = e.get("kind")
        if kind not in ("model_call", "tool_call", "final_answer", "error"):
            continue
        latency = 0.0 if missing(e.get("latency_s")) else float(e["latency_s"])
        if kind == "model_call":
            what = "model call" + (" (cached)" if e.get("cache_hit") is True else "")
        elif kind == "tool_call":
            what = f"tool call {e.get('tool') or '?'}"
        elif kind == "final_answer":
            what = "unparsed action" if looks_like_action(e.get("text")) else "final answer"
        else:
            what = "error"
        ok = "error" if not missing(e.get("error")) or kind == "error" else "ok"
        rows.append(
            {
                "step": what,
                "start_s": round(t, 3),
                "latency_s": latency if latency else None,
                "tokens_in": None
                if missing(e.get("tokens_in")) or not e.get("tokens_in")
                else int(e["tokens_in"]),
                "tokens_out": None
                if missing(e.get("tokens_out")) or not e.get("tokens_out")
                else int(e["tokens_out"]),
                "result": ok,
            }
        )
        t += latency
    return pd.DataFrame(rows, columns=["step", "start_s", "latency_s", "tokens_in", "tokens_out", "result"])

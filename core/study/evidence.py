"""Metadata and observed evidence about tools, from which absent fields are supplemented.

The field-impact study adds a field where the docs lack it. The paper wrote
those by hand "based on the original documentation and dataset-provided
metadata, e.g. tool code and correct execution outcome"; we derive them
automatically and reproducibly from three sources, never from the tasks being
measured:

- the tool's implementation: signature (parameter names, declared types,
  defaults, required flags) and source code, through the benchmark's hooks
  (`core.benchmarks.meta.tool_meta`);
- ground-truth calls of a split part disjoint from the measured one (usage
  examples, argument values, which tools come before/after);
- outputs observed by executing those ground-truth calls in a fresh sandbox of
  their own task (return shapes, response templates), and the errors observed
  when the tool is called without arguments (invocation constraints).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.benchmarks.base import Benchmark, Call, Task, ToolError
from core.benchmarks.meta import DOMAIN_LABELS, ParamMeta, ToolMeta, tool_meta  # noqa: F401 - re-exported


@dataclass
class Evidence:
    """Observations from the supplement part of the split, per tool."""

    calls: dict[str, list[Call]] = field(default_factory=lambda: defaultdict(list))
    outputs: dict[str, list[tuple[Call, str, bool]]] = field(default_factory=lambda: defaultdict(list))
    probe_errors: dict[str, str] = field(default_factory=dict)
    before: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    after: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    task_ids: list[str] = field(default_factory=list)


def _run(sandbox: Any, call: Call) -> tuple[str, bool]:
    try:
        return str(sandbox.execute(call)), True
    except ToolError as exc:
        return str(exc) or type(exc).__name__, False
    except Exception as exc:  # noqa: BLE001 - a crashing tool is an observation here
        return f"{type(exc).__name__}: {exc}", False


def collect_evidence(
    bench: Benchmark, tasks: Sequence[Task], tools: Sequence[str], max_outputs: int = 6
) -> Evidence:
    """Execute the ground truth of `tasks` (never the measured ones) and probe each tool once."""
    ev = Evidence(task_ids=[t.task_id for t in tasks])
    wanted = set(tools)
    for task in tasks:
        sandbox = None
        # API calls already made in a dialogue history (API-Bank) precede the gold calls.
        earlier = [
            h["api_name"] for h in task.meta.get("history", ()) if isinstance(h, dict) and h.get("api_name")
        ]
        names = [c.tool for c in task.gold]
        for i, call in enumerate(task.gold):
            if call.tool in wanted:
                ev.calls[call.tool].append(call)
                ev.before[call.tool].update(n for n in earlier + names[:i] if n != call.tool)
                ev.after[call.tool].update(n for n in names[i + 1 :] if n != call.tool)
            if sandbox is None:
                sandbox = bench.new_sandbox(task)
            text, ok = _run(sandbox, call)
            if call.tool in wanted and len(ev.outputs[call.tool]) < max_outputs:
                ev.outputs[call.tool].append((call, text, ok))
    for tool in tools:
        host = next((t for t in tasks if tool in bench.tools_for(t)), None)
        if host is None:
            continue
        text, ok = _run(bench.new_sandbox(host), Call(tool, {}))
        if not ok or _looks_like_error(text):
            ev.probe_errors[tool] = text
    return ev


def _looks_like_error(text: str) -> bool:
    low = text.lower()
    return any(w in low for w in ("not provided", "missing", "error", "invalid", "required"))

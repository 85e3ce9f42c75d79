"""Align an episode's tool calls with the ground-truth calls, so the trace view can highlight mismatches.

Pure functions (no Streamlit): the page colours what this module decides. A
call the ground truth does not contain is not necessarily wrong — WorkBench's
ground truth lists only the calls that change state, so lookups are "not in
the ground truth", shown neutrally; a call to a gold tool with different
arguments, a call that raised an error and a gold call never made are the
mismatches an analyst wants to see.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["match", "wrong_args", "error", "unexpected", "missing", "optional"]


def _norm(value: Any) -> str:
    """Canonical text of a value: 1 == 1.0, key order ignored, surrounding spaces ignored."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        value = value.strip()
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class ArgDiff:
    name: str
    kind: Literal["missing", "unexpected", "different"]
    got: Any = None
    expected: Any = None

    def text(self) -> str:
        if self.kind == "missing":
            return f"`{self.name}` missing (expected {_norm(self.expected)})"
        if self.kind == "unexpected":
            return f"`{self.name}` not in ground truth (got {_norm(self.got)})"
        return f"`{self.name}`: got {_norm(self.got)}, expected {_norm(self.expected)}"


@dataclass(frozen=True)
class CallCheck:
    """Verdict on one attempted call (or one unmatched gold call, status 'missing')."""

    tool: str
    args: dict[str, Any]
    status: Status
    gold_index: int | None = None
    diffs: tuple[ArgDiff, ...] = field(default_factory=tuple)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "match"


def arg_diffs(got: dict[str, Any], expected: dict[str, Any]) -> tuple[ArgDiff, ...]:
    out = []
    for k in expected:
        if k not in got:
            out.append(ArgDiff(k, "missing", expected=expected[k]))
        elif _norm(got[k]) != _norm(expected[k]):
            out.append(ArgDiff(k, "different", got[k], expected[k]))
    out += [ArgDiff(k, "unexpected", got=got[k]) for k in got if k not in expected]
    return tuple(out)


def match_calls(
    attempted: list[dict[str, Any]], gold: list[dict[str, Any]], optional: Collection[str] = ()
) -> tuple[list[CallCheck], list[CallCheck]]:
    """Verdicts for each attempted call (in order) and for each gold call (in order).

    `attempted` items: {"tool", "args", optional "error"}; `gold` items: {"tool", "args"}.
    Exact matches are paired first, then the remaining calls to a gold tool are
    paired with the remaining gold calls of that tool, closest arguments first.
    A gold call of an `optional` tool (a look-up the task's scoring allows but
    does not require) that was never made is `optional`, not `missing`.
    """
    gold = [{"tool": str(g.get("tool")), "args": dict(g.get("args") or {})} for g in gold]
    att = [
        {"tool": str(a.get("tool")), "args": dict(a.get("args") or {}), "error": a.get("error")}
        for a in attempted
    ]
    paired: dict[int, int] = {}  # attempted index -> gold index
    free = set(range(len(gold)))
    for i, a in enumerate(att):
        if a["error"]:
            continue
        for j in sorted(free):
            if gold[j]["tool"] == a["tool"] and not arg_diffs(a["args"], gold[j]["args"]):
                paired[i] = j
                free.discard(j)
                break
    for i, a in enumerate(att):
        if i in paired:
            continue
        same = [j for j in sorted(free) if gold[j]["tool"] == a["tool"]]
        if same:
            j = min(same, key=lambda j: len(arg_diffs(a["args"], gold[j]["args"])))
            paired[i] = j
            free.discard(j)
    checks = []
    for i, a in enumerate(att):
        j = paired.get(i)
        if j is None:
            status: Status = "error" if a["error"] else "unexpected"
            checks.append(CallCheck(a["tool"], a["args"], status, error=a["error"]))
            continue
        diffs = arg_diffs(a["args"], gold[j]["args"])
        status = "error" if a["error"] else ("wrong_args" if diffs else "match")
        checks.append(CallCheck(a["tool"], a["args"], status, j, diffs, a["error"]))
    by_gold = {c.gold_index: c for c in checks if c.gold_index is not None}
    gold_checks = []
    for j, g in enumerate(gold):
        c = by_gold.get(j)
        if c is None:
            gone: Status = "optional" if g["tool"] in optional else "missing"
            gold_checks.append(CallCheck(g["tool"], g["args"], gone, j))
        else:
            gold_checks.append(CallCheck(g["tool"], g["args"], c.status, j, c.diffs, c.error))
    return checks, gold_checks


def render_call(tool: str, args: dict[str, Any]) -> str:
    """Python-call text, the way the benchmarks write ground truth."""
    inner = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in args.items())
    return f"{tool}({inner})"

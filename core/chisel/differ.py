"""The trace differ: compare a failed trace with its ground truth and classify the failure.

The evidence engine's diagnosis starts here. Looking only at the tool being
optimized (the focal tool), the differ aligns the calls the agent attempted
with the ground-truth calls and names every mismatch it finds:

| class | what was observed |
|---|---|
| `no_action` | no tool call at all (prose answer or empty reply) |
| `parse_error` | the model output could not be read as a call |
| `step_limit` | the agent ran out of steps |
| `unknown_tool` | the agent called a name that is not an offered tool |
| `wrong_tool` | another tool was called where the ground truth calls the focal tool |
| `misused` | the focal tool was called where the ground truth calls another tool, never the focal one |
| `missing_call` | a ground-truth call of the focal tool was never attempted |
| `extra_call` | the focal tool was called more often than the ground truth does |
| `unknown_argument` | an argument name the tool does not have |
| `missing_argument` | a ground-truth argument was left out |
| `wrong_format` | the right value written in another format or type (dates, case, numbers) |
| `wrong_value` | an argument with a different value |
| `tool_error` | the tool rejected a call and said why |
| `wrong_order` | the right calls in the wrong order |
| `output_misuse` | the calls were right but the task still failed (final answer, later steps) |
| `other_tool` | the focal tool was used correctly; another tool's call failed |
| `infrastructure` | timeout, provider or agent crash: not about documentation |

The classes are facts about the trace; which documentation fields they
implicate is the rule table's job (`core.chisel.rules`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.benchmarks.base import Call
from core.evaluation.traces import Step, Trace

INFRASTRUCTURE = {"timeout", "provider_error", "agent_error", "scorer_error"}
UNKNOWN_TOOL_PREFIX = "Error: unknown tool"

# Order in which findings explain a failure (the first one found is the primary class).
PRIORITY: tuple[str, ...] = (
    "infrastructure",
    "parse_error",
    "no_action",
    "unknown_tool",
    "wrong_tool",
    "misused",
    "missing_call",
    "unknown_argument",
    "missing_argument",
    "wrong_format",
    "wrong_value",
    "tool_error",
    "extra_call",
    "wrong_order",
    "step_limit",
    "output_misuse",
    "other_tool",
)


@dataclass(frozen=True)
class Finding:
    """One observed mismatch, with the facts later stages need (param, values, message...)."""

    cls: str
    text: str
    param: str | None = None
    gold: Any = None
    pred: Any = None
    other_tool: str | None = None
    message: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = {"class": self.cls, "text": self.text}
        for k in ("param", "gold", "pred", "other_tool", "message"):
            v = getattr(self, k)
            if v is not None:
                out[k] = v
        if self.data:
            out["data"] = self.data
        return out


# --------------------------------------------------------------------------- values
_DATE_FORMATS = (
    "%Y-%m-%d",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y/%m/%d",
    "%m/%d/%Y",
    "%d/%m/%Y",
    "%B %d, %Y",
    "%b %d, %Y",
    "%d %B %Y",
    "%Y-%m-%dT%H:%M:%S",
)


def _as_date(v: Any) -> datetime | None:
    if not isinstance(v, str):
        return None
    text = v.strip()
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


def _loose(v: Any) -> str:
    if isinstance(v, list | tuple | dict):
        v = json.dumps(v, sort_keys=True, default=str)
    return re.sub(r"[\s'\"`]+", "", str(v).lower())


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v.strip().replace(",", ""))
        except ValueError:
            return None
    return None


def shape(v: Any) -> Any:
    """The structure of a value without its content: container kinds, object keys, leaf kinds.

    `[{"name": "bp", "value": "120/80"}]` and `[{"name": "hr", "value": "80"}]`
    share a shape; `[120, 80]` has another one.
    """
    if isinstance(v, dict):
        return ("object", tuple(sorted((str(k), shape(x)) for k, x in v.items())))
    if isinstance(v, list | tuple):
        inner = sorted({json.dumps(shape(x), default=str) for x in v})
        return ("list", tuple(inner))
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | float):
        return "number"
    return "string" if v is not None else "null"


def compare_values(gold: Any, pred: Any) -> str | None:
    """None when equal; 'wrong_format' when equal up to format/type or the structure differs; else 'wrong_value'.

    A structured gold value (a list or an object) that the agent wrote with
    another structure (`[120, 80]` for a list of `{"name", "value"}` objects)
    is a format failure: the doc did not say what the argument looks like.
    """
    if gold == pred:
        return None
    if isinstance(gold, dict | list | tuple) and shape(gold) != shape(pred):
        return "wrong_format"
    if isinstance(gold, str) and isinstance(pred, str) and gold.strip() == pred.strip():
        return None
    g_num, p_num = _number(gold), _number(pred)
    if g_num is not None and p_num is not None and abs(g_num - p_num) < 1e-9:
        return "wrong_format"
    g_date, p_date = _as_date(gold), _as_date(pred)
    if g_date is not None and p_date is not None:
        same = g_date == p_date or g_date.date() == p_date.date() and (g_date.time() == p_date.time())
        return "wrong_format" if same else "wrong_value"
    if _loose(gold) and _loose(gold) == _loose(pred):
        return "wrong_format"
    return "wrong_value"


# --------------------------------------------------------------------------- diff
def _call_match(gold: Call, step: Step) -> int:
    """How many gold arguments a step gets exactly right (for aligning calls)."""
    args = step.args or {}
    return sum(1 for k, v in gold.args.items() if k in args and compare_values(v, args[k]) is None)


def _align(gold: Sequence[Call], steps: Sequence[Step]) -> list[tuple[Call, Step | None]]:
    """Greedy alignment of gold calls of one tool with attempted calls of the same tool."""
    free = list(range(len(steps)))
    out = []
    for g in gold:
        if not free:
            out.append((g, None))
            continue
        best = max(free, key=lambda i: (_call_match(g, steps[i]), -i))
        free.remove(best)
        out.append((g, steps[best]))
    return out


def diff_trace(
    trace: Trace,
    gold: Sequence[Call],
    tool: str,
    param_names: Sequence[str] = (),
    read_only: Collection[str] = (),
) -> list[Finding]:
    """Every mismatch of the focal `tool` in a failed trace, most explanatory first.

    `read_only` names tools that only look things up: calling one that the
    ground truth does not list (searching an event before deleting it) is how
    agents gather arguments, not a confusion with the focal tool, so such calls
    never make a `wrong_tool` finding, and a focal look-up is `misused` only
    where the episode called none of the ground truth's tools.
    """
    found: list[Finding] = []
    steps = list(trace.steps)
    if trace.error_class in INFRASTRUCTURE and not steps:
        return [
            Finding("infrastructure", f"episode ended by {trace.error_class}: {(trace.error or '')[:160]}")
        ]
    if not steps:
        if trace.error_class == "parse_error":
            return [Finding("parse_error", f"model output was not a tool call: {(trace.error or '')[:160]}")]
        if trace.error_class == "step_limit":
            return [Finding("step_limit", "the agent ran out of steps without calling a tool")]
        answer = (trace.final_answer or "").strip()
        text = (
            f"no tool call; the agent answered {answer[:120]!r}" if answer else "no tool call and no answer"
        )
        return [Finding("no_action", text)]

    for s in steps:
        if (s.error or "").startswith(UNKNOWN_TOOL_PREFIX):
            found.append(
                Finding("unknown_tool", f"called {s.tool!r}, which is not an offered tool", pred=s.tool)
            )

    gold_t = [c for c in gold if c.tool == tool]
    mine = [s for s in steps if s.tool == tool]
    others = [s for s in steps if s.tool != tool and not (s.error or "").startswith(UNKNOWN_TOOL_PREFIX)]
    gold_tools = {c.tool for c in gold}

    replaced = not gold_tools & {s.tool for s in steps}  # the episode called none of the gold's tools
    if mine and gold and not gold_t and (tool not in read_only or replaced):
        # the other side of a confusion: this tool's doc drew the agent away from the right tool (a
        # look-up called on the way to another tool's call is how agents gather arguments, not this;
        # a look-up called instead of it is: "reschedule my appointment" answered by a symptom search)
        wanted = [c.tool for c in gold if c.tool not in {s.tool for s in steps}] or [gold[0].tool]
        return found + [
            Finding(
                "misused",
                f"called {tool!r} where the ground truth calls {wanted[0]!r}",
                pred=tool,
                other_tool=wanted[0],
                data={"task_id": trace.task_id},
            )
        ]
    lookups = set(read_only) - gold_tools
    # look-ups the task's scoring allows but does not require (a benchmark folder's end-state task):
    # leaving them out is no failure, so they are never a `missing_call`
    optional = set(trace.score.get("allowed_tools") or ())
    acting = [s for s in steps if s.tool not in lookups]
    # Which tool the agent used where the ground truth starts with the focal tool.
    if gold and gold[0].tool == tool and acting and acting[0].tool != tool and tool not in optional:
        first = acting[0].tool
        if first not in gold_tools or not mine:
            found.append(
                Finding(
                    "wrong_tool", f"called {first!r} where the ground truth calls {tool!r}", other_tool=first
                )
            )
    pairs = _align(gold_t, mine)
    for g, s in pairs:
        if s is None:
            if tool in optional:
                continue
            confused = sorted({o.tool for o in others if o.tool not in gold_tools and o.tool not in lookups})
            if confused and not any(f.cls == "wrong_tool" for f in found):
                found.append(
                    Finding(
                        "wrong_tool", f"called {confused[0]!r} instead of {tool!r}", other_tool=confused[0]
                    )
                )
            elif not any(f.cls == "wrong_tool" for f in found):
                found.append(Finding("missing_call", f"never called {tool!r} (expected {g.render()})"))
            continue
        args = s.args or {}
        known = set(param_names) | set(g.args)
        for k in args:
            if known and k not in known:
                found.append(
                    Finding("unknown_argument", f"passed unknown argument {k!r}", param=k, pred=args[k])
                )
        for k, v in g.args.items():
            if k not in args:
                found.append(Finding("missing_argument", f"left out argument {k!r}", param=k, gold=v))
                continue
            kind = compare_values(v, args[k])
            if kind is not None:
                verb = "formatted" if kind == "wrong_format" else "set"
                found.append(
                    Finding(
                        kind, f"{verb} {k!r} as {args[k]!r}; expected {v!r}", param=k, gold=v, pred=args[k]
                    )
                )
    for s in mine:
        if s.error:
            found.append(
                Finding("tool_error", f"{tool} rejected a call: {(s.error or '')[:200]}", message=s.error)
            )
    if len(mine) > len(gold_t):
        found.append(
            Finding(
                "extra_call",
                f"called {tool!r} {len(mine)} times; the ground truth calls it {len(gold_t)} times",
            )
        )
    if not found:
        found.extend(_order_and_rest(trace, gold, tool, steps))
    return sorted(found, key=lambda f: PRIORITY.index(f.cls))


def _order_and_rest(trace: Trace, gold: Sequence[Call], tool: str, steps: list[Step]) -> list[Finding]:
    """The focal tool's calls match: explain the failure by order, other tools or the outcome."""
    called = [s.tool for s in steps if not s.error]
    expected = [c.tool for c in gold]
    if sorted(called) == sorted(expected) and called != expected:
        return [Finding("wrong_order", f"calls in order {called}; expected {expected}")]
    gold_other = [c for c in gold if c.tool != tool]
    other_steps = [s for s in steps if s.tool != tool]
    other_ok = all(
        any(s.tool == g.tool and _call_match(g, s) == len(g.args) for s in other_steps) for g in gold_other
    )
    if not other_ok:
        return [Finding("other_tool", f"{tool} was called correctly; another tool's call did not match")]
    if trace.error_class == "step_limit":
        return [Finding("step_limit", "the right calls were made but the agent did not stop")]
    if trace.error_class in INFRASTRUCTURE:
        return [Finding("infrastructure", f"episode ended by {trace.error_class}")]
    return [Finding("output_misuse", "the calls match the ground truth but the task still failed")]

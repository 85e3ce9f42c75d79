"""The Reviewer: label every SOP invocation from execution evidence, aggregate per SOP, decide what to prune.

    invocations = invocations_of(warehouse, batch, toolset)
    reviews = [review_offline(inv, writes=bench_writes, gold=gold_calls) for inv in invocations]
    usage = aggregate(reviews)
    decisions = prune(toolset, usage_history, rules, epoch, added_at)

Labels (the paper's five states; not exclusive):

- `optimal` — ran without a defect, every inner call succeeded, and the task passed;
- `partial_utility` — ran without a defect but stopped early (a step failed or
  found nothing), or wrote what the ground truth needs while the task failed elsewhere;
- `neutral` — returned without changing the environment and the task did not
  pass (or the caller's arguments were rejected before anything ran);
- `negative_interference` — the task failed and the SOP changed the state with
  a write the task did not need (checked against the training task's gold
  calls when the caller may read them; else any write in a failed episode);
- `implementation_defect` — the worker stopped it (exception, CPU or wall
  time, memory, exit, crash, too many tool calls).

The LLM reviewer (`core.sop.llm`) produces the same `Review` records. Pruning
is a pure function of the aggregated usage: error rate, negative
interference, redundancy with an overlapping SOP that did better, and utility
(never invoked for `idle_epochs` epochs, or invoked without ever helping).
Every removal carries its reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.benchmarks.base import Call
from core.benchmarks.credit import call_match
from core.evaluation import EvalBatch
from core.sop.bench import defect_of
from core.sop.model import Sop, Toolset
from core.warehouse import reads
from core.warehouse.records import content_hash

OPTIMAL, PARTIAL, NEUTRAL, NEGATIVE, DEFECT = (
    "optimal",
    "partial_utility",
    "neutral",
    "negative_interference",
    "implementation_defect",
)
LABELS = (OPTIMAL, PARTIAL, NEUTRAL, NEGATIVE, DEFECT)
READ_WORDS = ("search", "get", "find", "list", "count", "lookup", "query", "read", "check")


@dataclass(frozen=True)
class Invocation:
    """One SOP call in one stored episode, with the atomic calls it made and how the episode ended."""

    episode_id: str
    task_id: str
    repeat: int
    seq: int
    tool: str
    args: Mapping[str, Any]
    output: str | None
    error: str | None
    inner: tuple[Mapping[str, Any], ...]
    task_success: bool
    score: Mapping[str, Any] = field(default_factory=dict)

    @property
    def defect(self) -> tuple[str, str] | None:
        return defect_of(self.error)


@dataclass(frozen=True)
class Review:
    sop_id: str
    episode_id: str
    task_id: str
    seq: int
    labels: tuple[str, ...]
    justification: str
    engine: str = "evidence"
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def review_id(self) -> str:
        return content_hash("sop-review", self.sop_id, self.episode_id, self.seq, self.engine)


@dataclass(frozen=True)
class Usage:
    """One SOP's invocations in one epoch, by label."""

    sop_id: str
    invocations: int = 0
    successes: int = 0
    optimal: int = 0
    partial: int = 0
    neutral: int = 0
    negative: int = 0
    defects: int = 0
    episodes: int = 0
    tasks: int = 0

    @property
    def success_rate(self) -> float:
        return self.successes / self.invocations if self.invocations else 0.0

    @property
    def defect_rate(self) -> float:
        return self.defects / self.invocations if self.invocations else 0.0


@dataclass(frozen=True)
class PruneRules:
    """When the reviewer removes an SOP (see `prune`)."""

    max_defect_rate: float = 0.5
    max_negative_rate: float = 0.5
    idle_epochs: int = 2
    min_for_utility: int = 3


@dataclass(frozen=True)
class Decision:
    sop_id: str
    action: str  # kept | pruned
    reason: str
    stats: Mapping[str, Any] = field(default_factory=dict)


def invocations_of(warehouse: Any, batch: EvalBatch, toolset: Toolset) -> list[Invocation]:
    """Every invocation of a toolset's SOP in a batch's episodes, with the inner calls traced under it."""
    events = reads.tool_events(warehouse, [t.episode_id for t in batch.traces])
    out = []
    for trace in batch.traces:
        evs = events.get(trace.episode_id, [])
        for ev in evs:
            if ev["tool"] not in toolset or (ev.get("payload") or {}).get("parent_seq") is not None:
                continue
            inner = tuple(e for e in evs if (e.get("payload") or {}).get("parent_seq") == ev["seq"])
            out.append(
                Invocation(
                    trace.episode_id,
                    trace.task_id,
                    trace.repeat,
                    ev["seq"],
                    ev["tool"],
                    ev["args"],
                    ev["output"],
                    ev["error"],
                    inner,
                    trace.success,
                    dict(trace.score or {}),
                )
            )
    return out


def writes_check(benchmark: Any) -> Callable[[str], bool]:
    """Whether a tool changes the state: the benchmark's `tool_writes` hook, else its name's look."""
    hook = getattr(benchmark, "tool_writes", None)

    def writes(tool: str) -> bool:
        known = hook(tool) if callable(hook) else None
        if known is not None:
            return bool(known)
        short = tool.rsplit(".", 1)[-1].lower()
        return not short.startswith(READ_WORDS)

    return writes


def _inner_failed(e: Mapping[str, Any], is_error: Callable[[str | None], bool]) -> bool:
    return bool(e.get("error")) or bool(is_error(e.get("output")))


def review_offline(
    inv: Invocation,
    sop: Sop,
    *,
    writes: Callable[[str], bool],
    is_error: Callable[[str | None], bool],
    gold: Sequence[Call] | None = None,
) -> Review:
    """Labels and a one-line justification from the execution evidence (see the module docstring)."""
    labels: list[str] = []
    why: list[str] = []
    defect = inv.defect
    if defect is not None:
        labels.append(DEFECT)
        why.append(f"stopped by the worker ({defect[0]}): {defect[1][:160]}")
    elif inv.error:
        labels.append(NEUTRAL)
        why.append(f"its call was rejected before it ran: {inv.error[:160]}")
    failed = [e for e in inv.inner if _inner_failed(e, is_error)]
    wrote = [e for e in inv.inner if writes(str(e["tool"])) and not _inner_failed(e, is_error)]
    stopped = str(inv.output or "").startswith("Stopped") or bool(failed)
    if defect is None and not inv.error:
        if stopped:
            labels.append(PARTIAL)
            step = failed[0]["tool"] if failed else "a step"
            why.append(f"ran but stopped early ({step} failed or found nothing)")
        if inv.task_success and not stopped:
            labels.append(OPTIMAL)
            why.append(f"completed {' -> '.join(sop.uses)} and the task passed")
    if not inv.task_success and wrote:
        calls = [Call(str(e["tool"]), dict(e.get("args") or {})) for e in wrote]
        if gold is not None:
            good = [c for c in calls if any(call_match(g, c) == 1.0 for g in gold)]
            bad = [c for c in calls if c not in good]
        else:
            good, bad = [], calls
        if bad:
            labels.append(NEGATIVE)
            why.append(f"changed the state with {bad[0].tool} the task did not need; the task failed")
        if good and PARTIAL not in labels:
            labels.append(PARTIAL)
            why.append(f"its {good[0].tool} call matches the ground truth, but the task failed elsewhere")
    if not labels:
        labels.append(NEUTRAL)
        why.append("returned without changing the environment; the task did not pass")
    return Review(
        sop.sop_id,
        inv.episode_id,
        inv.task_id,
        inv.seq,
        tuple(dict.fromkeys(labels)),
        "; ".join(why),
        "evidence",
        {"defect": defect[0] if defect else None, "inner": len(inv.inner), "task_success": inv.task_success},
    )


def aggregate(
    reviews: Sequence[Review], invocations: Sequence[Invocation], sops: Toolset
) -> dict[str, Usage]:
    """Per SOP id (every SOP of the toolset, invoked or not): counts by label."""
    by_key = {(i.episode_id, i.seq): i for i in invocations}
    tally: dict[str, dict[str, Any]] = {
        s.sop_id: {"n": 0, "ok": 0, **dict.fromkeys(LABELS, 0), "eps": set(), "tasks": set()} for s in sops
    }
    for r in reviews:
        t = tally.setdefault(
            r.sop_id, {"n": 0, "ok": 0, **dict.fromkeys(LABELS, 0), "eps": set(), "tasks": set()}
        )
        inv = by_key.get((r.episode_id, r.seq))
        t["n"] += 1
        for label in r.labels:
            t[label] += 1
        if DEFECT not in r.labels and inv is not None and inv.task_success and not inv.error:
            t["ok"] += 1
        t["eps"].add(r.episode_id)
        t["tasks"].add(r.task_id)
    return {
        sid: Usage(
            sid,
            t["n"],
            t["ok"],
            t[OPTIMAL],
            t[PARTIAL],
            t[NEUTRAL],
            t[NEGATIVE],
            t[DEFECT],
            len(t["eps"]),
            len(t["tasks"]),
        )
        for sid, t in tally.items()
    }


def _overlaps(a: Sop, b: Sop) -> bool:
    """Same routine (same tools in order), or one is a composite generalising the other."""
    return a.uses == b.uses or a.sop_id in b.parents or b.sop_id in a.parents


def prune(
    toolset: Toolset,
    history: Sequence[Mapping[str, Usage]],
    rules: PruneRules,
    added_at: Mapping[str, int],
    epoch: int,
) -> list[Decision]:
    """Keep or prune each SOP after `epoch`; `history` holds each epoch's usage, this epoch last."""
    usage = history[-1] if history else {}
    out = []
    for sop in toolset:
        u = usage.get(sop.sop_id) or Usage(sop.sop_id)
        stats = {
            "invocations": u.invocations,
            "successes": u.successes,
            "defects": u.defects,
            "negative": u.negative,
        }
        reason = _reason(sop, u, toolset, usage, history, rules, added_at.get(sop.sop_id, epoch), epoch)
        out.append(Decision(sop.sop_id, "pruned" if reason else "kept", reason or "", stats))
    return out


def _reason(
    sop: Sop,
    u: Usage,
    toolset: Toolset,
    usage: Mapping[str, Usage],
    history: Sequence[Mapping[str, Usage]],
    rules: PruneRules,
    born: int,
    epoch: int,
) -> str | None:
    n = u.invocations
    if n and u.defect_rate >= rules.max_defect_rate:
        return (
            f"error rate: {u.defects}/{n} invocations stopped by a defect (limit {rules.max_defect_rate:.0%})"
        )
    if n >= 2 and u.negative / n >= rules.max_negative_rate:
        return f"negative interference in {u.negative}/{n} invocations"
    for other in toolset:
        if other.sop_id == sop.sop_id or not _overlaps(sop, other):
            continue
        o = usage.get(other.sop_id) or Usage(other.sop_id)
        better = (o.success_rate, -o.defect_rate, o.invocations) > (u.success_rate, -u.defect_rate, n)
        if o.invocations and o.successes and better and (n == 0 or u.success_rate < o.success_rate):
            return f"redundant: {other.name} covers the same routine and did better ({o.successes}/{o.invocations})"
    idle = [h.get(sop.sop_id) for h in history[-rules.idle_epochs :]] if rules.idle_epochs else []
    if epoch - born + 1 >= rules.idle_epochs and idle and all(h is None or h.invocations == 0 for h in idle):
        return f"utility: not invoked in the last {rules.idle_epochs} epochs"
    if n >= rules.min_for_utility and u.optimal == 0 and u.successes == 0:
        return f"utility: {n} invocations, none in an episode that passed"
    return None

"""Checkpoints of an evolve run: each epoch's toolset, usage, reviews and decisions as typed rows.

An epoch is written in one `Warehouse.record` call (one transaction), after
its evaluation and review, so a kill leaves either the whole epoch or none of
it; the episodes of an unfinished epoch are already stored by the runner and
are reused when the epoch runs again. Every row is keyed, so a re-run writes
nothing twice. `load_state` rebuilds what the loop needs to continue.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.docs import ToolDoc
from core.sop.composer import Rejected
from core.sop.model import Sop, Toolset
from core.sop.review import Decision, Review, Usage
from core.warehouse import reads
from core.warehouse.records import content_hash
from core.warehouse.rows import (
    Row,
    SopDecisionRow,
    SopEpochRow,
    SopReviewRow,
    SopRow,
    SopUsageRow,
)


@dataclass(frozen=True)
class EpochSummary:
    """One epoch's scores on the training tasks and the toolsets before and after its review."""

    epoch: int
    toolset_id: str
    evaluated: tuple[str, ...]
    kept: tuple[str, ...]
    ts: float
    tc: float
    rounds: float
    n_episodes: int
    sop_calls: int = 0
    eval_run: str = ""
    tokens: float = 0.0
    added: tuple[str, ...] = ()
    merged: tuple[str, ...] = ()
    pruned: tuple[str, ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)


def sop_row(sop: Sop) -> SopRow:
    return SopRow(
        sop_id=sop.sop_id,
        name=sop.name,
        tool=sop.tool,
        doc=sop.doc.to_json(),
        code=sop.code,
        uses=sop.uses,
        origin=sop.origin,
        parents=sop.parents,
        sources=sop.sources,
        pattern=sop.pattern,
        detail=dict(sop.meta),
    )


def sop_from_row(row: Mapping[str, Any]) -> Sop:
    return Sop(
        name=str(row["name"]),
        doc=ToolDoc.from_json(row["doc"]),
        code=str(row["code"]),
        uses=tuple(row.get("uses") or ()),
        origin=str(row.get("origin") or "composer"),
        parents=tuple(row.get("parents") or ()),
        sources=tuple(row.get("sources") or ()),
        pattern=str(row.get("pattern") or ""),
        meta=dict(row.get("detail") or {}),
    )


def rejected_id(r: Rejected) -> str:
    return content_hash("sop-rejected", r.name, r.code, r.reason)


def epoch_rows(
    run_id: str,
    summary: EpochSummary,
    sops: Sequence[Sop],
    usage: Mapping[str, Usage],
    reviews: Sequence[Review],
    decisions: Sequence[Decision],
    rejected: Sequence[Rejected] = (),
) -> list[Row]:
    """Every row of one epoch; the epoch row last (its presence marks the epoch done)."""
    e = summary.epoch
    named = {s.sop_id: s for s in sops}
    rows: list[Row] = [sop_row(s) for s in sops]
    rows += [
        SopDecisionRow(run_id=run_id, epoch=e, sop_id=sid, action=action, reason=reason)
        for action, ids, reason in (
            ("added", summary.added, "constructed from this epoch's batch"),
            ("merged", summary.merged, "composite of overlapping SOPs (the parts stay)"),
        )
        for sid in ids
    ]
    rows += [
        SopDecisionRow(
            run_id=run_id,
            epoch=e,
            sop_id=rejected_id(r),
            action="rejected",
            reason=r.reason,
            detail={"name": r.name, "code": r.code},
        )
        for r in rejected
    ]
    rows += [
        SopDecisionRow(
            run_id=run_id, epoch=e, sop_id=d.sop_id, action=d.action, reason=d.reason, detail=dict(d.stats)
        )
        for d in decisions
    ]
    rows += [
        SopUsageRow(
            run_id=run_id,
            epoch=e,
            sop_id=u.sop_id,
            invocations=u.invocations,
            successes=u.successes,
            optimal=u.optimal,
            partial=u.partial,
            neutral=u.neutral,
            negative=u.negative,
            defects=u.defects,
            episodes=u.episodes,
            tasks=u.tasks,
            # the SOP's name and origin beside its counts: the results archive keeps usage rows but not
            # the SOPs (their code and docs are generated from benchmark trajectories), and the lifetime
            # table of a restored run still names each SOP
            detail={"name": named[u.sop_id].name, "origin": named[u.sop_id].origin}
            if u.sop_id in named
            else {},
        )
        for u in usage.values()
    ]
    rows += [
        SopReviewRow(
            review_id=r.review_id,
            run_id=run_id,
            epoch=e,
            sop_id=r.sop_id,
            episode_id=r.episode_id,
            task_id=r.task_id,
            seq=r.seq,
            labels=r.labels,
            justification=r.justification,
            engine=r.engine,
            detail=dict(r.detail),
        )
        for r in reviews
    ]
    rows.append(
        SopEpochRow(
            run_id=run_id,
            epoch=e,
            toolset_id=summary.toolset_id,
            evaluated=summary.evaluated,
            kept=summary.kept,
            added=summary.added,
            merged=summary.merged,
            pruned=summary.pruned,
            eval_run=summary.eval_run,
            n_episodes=summary.n_episodes,
            ts=summary.ts,
            tc=summary.tc,
            rounds=summary.rounds,
            tokens=summary.tokens,
            sop_calls=summary.sop_calls,
            detail=dict(summary.detail),
        )
    )
    return rows


@dataclass
class RunState:
    """What a resumed run restores: finished epochs, their SOPs, usage history and birth epochs."""

    epochs: list[EpochSummary] = field(default_factory=list)
    sops: dict[str, Sop] = field(default_factory=dict)
    history: list[dict[str, Usage]] = field(default_factory=list)
    born: dict[str, int] = field(default_factory=dict)

    def toolset(self, ids: Sequence[str]) -> Toolset:
        return Toolset(self.sops[i] for i in ids if i in self.sops)


def load_state(warehouse: Any, run_id: str) -> RunState:
    state = RunState()
    rows = reads.sop_epochs(warehouse, run_id)
    for r in rows:
        state.epochs.append(
            EpochSummary(
                epoch=int(r["epoch"]),
                toolset_id=str(r["toolset_id"]),
                evaluated=tuple(r["evaluated"]),
                kept=tuple(r["kept"]),
                ts=float(r["ts"]),
                tc=float(r["tc"]),
                rounds=float(r["rounds"]),
                n_episodes=int(r["n_episodes"]),
                sop_calls=int(r["sop_calls"] or 0),
                eval_run=str(r["eval_run"] or ""),
                tokens=float(r["tokens"] or 0.0),
                added=tuple(r["added"]),
                merged=tuple(r["merged"]),
                pruned=tuple(r["pruned"]),
                detail=r["detail"],
            )
        )
    ids = {i for e in state.epochs for i in (*e.evaluated, *e.kept)}
    state.sops = {sid: sop_from_row(row) for sid, row in reads.sops_by_id(warehouse, ids).items()}
    state.epochs = _resumable(state.epochs, state.sops)
    done = {e.epoch for e in state.epochs}
    by_epoch: dict[int, dict[str, Usage]] = {e: {} for e in sorted(done)}
    for u in reads.sop_usage(warehouse, run_id):
        if int(u["epoch"]) in by_epoch:
            by_epoch[int(u["epoch"])][u["sop_id"]] = Usage(
                u["sop_id"],
                *(
                    int(u[k])
                    for k in ("invocations", "successes", "optimal", "partial", "neutral", "negative")
                ),
                int(u["defects"]),
                int(u["episodes"]),
                int(u["tasks"]),
            )
    state.history = [by_epoch[e] for e in sorted(by_epoch) if e > 0]
    for e in state.epochs:
        for sid in (*e.added, *e.merged):
            state.born.setdefault(sid, e.epoch)
    return state


def _resumable(epochs: list[EpochSummary], sops: Mapping[str, Sop]) -> list[EpochSummary]:
    """The epochs a resumed run can build on: in order, up to the first whose SOPs are not all stored.

    Why: the results archive restores a finished run's epoch and usage rows (for the results' tables)
    but not its SOPs, whose code is generated from benchmark trajectories. An epoch whose toolset cannot
    be rebuilt is run again (its episodes are reused by id) instead of resuming on an empty toolset.
    """
    out: list[EpochSummary] = []
    for e in sorted(epochs, key=lambda e: e.epoch):
        if any(i not in sops for i in (*e.evaluated, *e.kept)):
            break
        out.append(e)
    return out

"""The optimizer's decisions as pure functions over typed values: acceptance, regressions, selection.

Why apart from the loop: these rules are the method (the paper's §III-D/E),
they must be testable without a warehouse or a model, and the dashboard and
reports rebuild the same decisions from stored rows.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from core.benchmarks.base import Task
from core.benchmarks.splits import Split
from core.chisel.profile import ToolTasks
from core.chisel.types import Evaluation
from core.docs import ToolDoc
from core.evaluation import EvalBatch, credit, success_rate
from core.evaluation.traces import Trace
from core.warehouse.records import content_hash

SELECTIONS = ("evidence", "paper")


@dataclass(frozen=True)
class ToolProfile:
    """The original docs' outcome on one tool's optimization and validation tasks (TS⁰)."""

    tool: str
    domain: str
    opt: EvalBatch
    val: EvalBatch

    @property
    def base_opt(self) -> float:
        return self.opt.ts

    @property
    def base_val(self) -> float:
        return self.val.ts


@dataclass(frozen=True)
class Candidate:
    """One generated doc with its regression-aware evaluation."""

    doc: ToolDoc
    evaluation: Evaluation
    tokens: int
    iteration: int


@dataclass(frozen=True)
class Selection:
    doc: ToolDoc
    val_ts: float
    reason: str


def outside_headroom(
    profile: ToolProfile, band: tuple[float, float] | None, own: Collection[str] | None = None
) -> str | None:
    """Why a tool has no headroom, or None when it has some.

    TS⁰ pools every profiled episode of the tool (opt and val tasks, all
    repeats): with a handful of tasks per part, one part alone says little.
    A tool above the band leaves nothing to gain. A tool below it has
    headroom only when the agent already gets part of the calls right (mean
    call-level partial credit within the band): then the failures are
    arguments a doc can fix (a format, a structure), not tasks the agent
    cannot approach at all (world knowledge, or a tool it never picks).
    `own`: the tasks whose ground truth uses the tool; the validation tasks
    pooled from other tools or added as the no-call guard are not the tool's
    headroom (a guard task passes whenever the agent does nothing), so they
    are left out when it is given.
    """
    if band is None:
        return None
    traces = [*profile.opt.traces, *profile.val.traces]
    if own is not None:
        traces = [t for t in traces if t.task_id in own]
    if not traces:
        return "no profiled episodes"
    ts0 = success_rate(traces)
    lo, hi = band
    where = f"the headroom band [{lo:.2f}, {hi:.2f}]"
    if ts0 > hi:
        return f"TS⁰ {ts0:.2f} over {len(traces)} episodes is above {where}"
    if ts0 < lo:
        partial = sum(credit(t) for t in traces) / len(traces)
        if lo <= partial <= hi:
            return None
        return (
            f"TS⁰ {ts0:.2f} over {len(traces)} episodes is below {where}, and so is its call-level partial "
            f"credit ({partial:.2f}): the agent does not get close to these calls"
        )
    return None


def pool_validation(
    items: Sequence[ToolTasks], min_val: int, seed: int = 0, domain_val: Sequence[Task] = ()
) -> list[ToolTasks]:
    """Tools with fewer than `min_val` validation tasks are topped up from their domain's validation tasks.

    Acceptance on one or two validation tasks is noise; the other tasks of
    the domain offer the same tools, so a doc change that confuses the agent
    on them shows there. Each tool keeps its own validation tasks and gets a
    seeded sample of the others up to `min_val` (not all of them: every
    candidate is evaluated on these tasks at every iteration, and beyond a
    handful the other tools' tasks add cost more than signal). `domain_val`
    widens the pool beyond the tools optimized together (a tool optimized
    alone has no other tools to pool from).
    """
    pooled = {t.task_id: t for t in domain_val} | {t.task_id: t for tt in items for t in tt.val}
    out = []
    for tt in items:
        if len(tt.val) >= min_val:
            out.append(tt)
            continue
        own = {t.task_id for t in tt.val}
        others = sorted(
            (t for tid, t in pooled.items() if tid not in own),
            key=lambda t: content_hash("pool", seed, tt.tool, t.task_id),
        )
        extra = others[: max(0, min_val - len(tt.val))]
        out.append(tt if not extra else replace(tt, val=sorted([*tt.val, *extra], key=lambda t: t.task_id)))
    return out


def guard_validation(
    items: Sequence[ToolTasks], guard: Sequence[Task], limit: int, seed: int = 0
) -> list[ToolTasks]:
    """Every tool's validation gets a seeded sample of `guard`, the domain's tasks whose ground truth calls no tool.

    Pooling (above) adds tasks of other tools; none of them is a request
    where the right action is to do nothing ("if X rose, plot it" when X did
    not rise). A candidate that pushes the agent to call its tool fixes the
    tool's own failures and breaks exactly those requests, and the acceptance
    rule can only see it when they are in the validation batch. The same
    sample for every tool of the domain, so the profile runs each once.
    """
    if not limit or not guard:
        return list(items)
    chosen = sorted(guard, key=lambda t: content_hash("guard", seed, t.task_id))[:limit]
    out = []
    for tt in items:
        own = {t.task_id for t in tt.val}
        extra = [t for t in chosen if t.task_id not in own]
        out.append(tt if not extra else replace(tt, val=sorted([*tt.val, *extra], key=lambda t: t.task_id)))
    return out


def cross_validation(items: Sequence[ToolTasks], limit: int, seed: int = 0) -> list[ToolTasks]:
    """Each tool's validation also gets up to `limit` of the other tools' optimization tasks.

    The agent reads every offered doc in one prompt, so a tool's new doc can
    move it on other tools' requests: a longer doc of one tool has moved a
    small model's choice between two others. A tool's own validation tasks
    (and the few pooled ones) cannot show that, and are too few to tell a
    two-episode drop from noise. The other tools' optimization tasks are held
    out from this tool's doc (its evidence comes from its own optimization
    set, which they are not in) and already profiled, so they cost no
    original-docs episode. Taken round-robin over the other tools in a seeded
    order, so each is represented; tasks already in the tool's sets are
    skipped.
    """
    if not limit:
        return list(items)
    out = []
    for tt in items:
        mine = {t.task_id for t in [*tt.opt, *tt.val]}
        pools = [
            sorted(
                (t for t in other.opt if t.task_id not in mine),
                key=lambda t: content_hash("cross", seed, tt.tool, t.task_id),
            )
            for other in sorted(items, key=lambda o: content_hash("cross-tool", seed, tt.tool, o.tool))
            if other.tool != tt.tool
        ]
        extra: dict[str, Task] = {}
        for i in range(max((len(p) for p in pools), default=0)):
            for pool in pools:
                if len(extra) < limit and i < len(pool):
                    extra.setdefault(pool[i].task_id, pool[i])
        out.append(
            tt if not extra else replace(tt, val=sorted([*tt.val, *extra.values()], key=lambda t: t.task_id))
        )
    return out


def judged_groups(
    groups: Mapping[str, Sequence[ToolTasks]],
    tasks: Sequence[Task],
    split: Split,
    min_val: int,
    guard_val: int,
    seed: int = 0,
    pool_domain: bool = False,
) -> dict[str, list[ToolTasks]]:
    """Domain -> tools with the validation tasks a candidate is judged on: pooled, then guarded.

    One function for DocsChisel and for GEPA beside it, so both optimizers
    accept candidates on the same validation tasks.
    """
    no_call: dict[str, list[Task]] = {}
    with_call: dict[str, list[Task]] = {}
    for t in split.tasks(tasks, "val"):
        (with_call if t.tools else no_call).setdefault(t.domain, []).append(t)
    return {
        domain: guard_validation(
            pool_validation(items, min_val, seed, with_call.get(domain, []) if pool_domain else ()),
            no_call.get(domain, []),
            guard_val,
            seed,
        )
        for domain, items in groups.items()
    }


def misuse_counts(
    profiled: Sequence[Trace],
    tasks: Mapping[str, Task],
    read_only: Collection[str] = (),
    instead: Collection[str] = (),
) -> dict[str, dict[str, int]]:
    """Tool -> task id -> failed profiled episodes of that task that called the tool in another's place.

    A look-up (`read_only`) is no misuse: calling one on the way to another
    tool's call is how agents gather arguments. A look-up in `instead` counts
    where it replaced the task's calls, the episode calling none of them
    ("reschedule my appointment" answered by a symptom search alone).
    """
    counts: dict[str, dict[str, int]] = {}
    for tr in profiled:
        task = tasks.get(tr.task_id)
        if task is None or not task.tools or tr.success:
            continue
        called = {s.tool for s in tr.steps if s.tool}
        replaced = not called & set(task.tools)
        for tool in called:
            if tool not in task.tools and (tool not in read_only or (tool in instead and replaced)):
                per = counts.setdefault(tool, {})
                per[tr.task_id] = per.get(tr.task_id, 0) + 1
    return counts


def misused_tools(
    items: Sequence[ToolTasks],
    profiled: Sequence[Trace],
    tasks: Mapping[str, Task],
    least: int,
    documented: Collection[str],
    read_only: Collection[str] = (),
) -> list[str]:
    """Tools outside `items` that the profile saw called in their place on at least `least` episodes.

    Why: a tool the agent already uses well on its own requests lies above the
    headroom band and is never optimized, yet its doc can be what draws the
    agent away from the optimized tools' requests ("reschedule my appointment"
    sent to a symptom search). Only its doc can say "not for these requests",
    and only the tasks it was misused on can judge that sentence. Most misuse
    episodes first, then by name; a look-up counts only where it replaced the
    task's calls (`misuse_counts`).
    """
    if least <= 0:
        return []
    have = {tt.tool for tt in items}
    others = set(documented) - have
    totals = {
        tool: sum(per.values())
        for tool, per in misuse_counts(profiled, tasks, read_only, instead=others).items()
        if tool in others
    }
    return [tool for tool, n in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])) if n >= least]


def misuse_tasks(
    items: Sequence[ToolTasks],
    profiled: Sequence[Trace],
    tasks: Mapping[str, Task],
    limit: int,
    seed: int = 0,
    read_only: Collection[str] = (),
) -> dict[str, list[Task]]:
    """Tool -> up to `limit` profiled tasks where the agent called it in another tool's place.

    A confusion between two tools has two sides: the right tool's doc did not
    claim the request, and the wrong tool's doc drew the agent. A tool's own
    tasks show only the first side, so a "not for these requests" sentence on
    the wrong tool would never be judged where it acts. These tasks (the
    ground truth calls tools, never this one; a failed profiled episode calls
    it) join the tool's optimization and validation sets, so its candidates
    are diagnosed on them (`misused`) and accepted only if they help there
    without losing the tool's own tasks. Most misuse episodes first, then a
    seeded order. Look-up tools are left out (calling one on the way to
    another tool's call is how agents gather arguments), except a look-up
    that joined as a misused tool (`ToolTasks.misused`), where it replaced the
    task's calls.
    """
    if limit <= 0:
        return {}
    counts = misuse_counts(profiled, tasks, read_only, instead={tt.tool for tt in items if tt.misused})
    out: dict[str, list[Task]] = {}
    for tt in items:
        own = {t.task_id for t in [*tt.opt, *tt.val]}
        found = [(n, tid) for tid, n in counts.get(tt.tool, {}).items() if tid not in own]
        found.sort(key=lambda x: (-x[0], content_hash("misuse", seed, tt.tool, x[1])))
        if found:
            out[tt.tool] = sorted((tasks[tid] for _, tid in found[:limit]), key=lambda t: t.task_id)
    return out


def with_misuse_tasks(
    items: Sequence[ToolTasks],
    opt: Sequence[Trace],
    val: Sequence[Trace],
    tasks: Mapping[str, Task],
    limit: int,
    seed: int = 0,
    read_only: Collection[str] = (),
) -> list[ToolTasks]:
    """`items` with each tool's misuse tasks (`misuse_tasks`) added to its opt and val sets.

    Validation gets the misuse tasks the profile saw there and, up to the
    same `limit`, profiled validation tasks of the tools it was called in
    place of: a misuse seen only on optimization tasks (a handful of
    validation tasks seldom shows one) would otherwise leave the acceptance
    rule blind to the requests a "not for these; call X" sentence acts on.
    """
    extra_opt = misuse_tasks(items, opt, tasks, limit, seed, read_only)
    extra_val = misuse_tasks(items, val, tasks, limit, seed, read_only)
    profiled_val = sorted({tr.task_id for tr in val if tr.task_id in tasks})
    out = []
    for tt in items:
        more_opt, more_val = extra_opt.get(tt.tool, []), list(extra_val.get(tt.tool, []))
        instead = {g for t in [*more_opt, *more_val] for g in t.tools} - {tt.tool}
        have = {t.task_id for t in [*tt.val, *more_val]}
        related = [
            tasks[tid]
            for tid in profiled_val
            if tid not in have and tt.tool not in tasks[tid].tools and set(tasks[tid].tools) & instead
        ]
        related.sort(key=lambda t: content_hash("misuse-val", seed, tt.tool, t.task_id))
        more_val += related[: max(0, limit - len(more_val))]
        if not more_opt and not more_val:
            out.append(tt)
            continue
        out.append(
            replace(
                tt,
                opt=sorted([*tt.opt, *more_opt], key=lambda t: t.task_id),
                val=sorted([*tt.val, *more_val], key=lambda t: t.task_id),
            )
        )
    return out


def accepted(val_ts: float, base_val_ts: float) -> bool:
    """The paper's acceptance rule: a candidate is kept iff TSⁿ_val ≥ TS⁰_val."""
    return val_ts >= base_val_ts


def regressions(base: Mapping[str, bool], now: Mapping[str, bool]) -> list[str]:
    """Tasks that passed with the original doc and fail now (missing now counts as failing)."""
    return sorted(t for t, ok in base.items() if ok and not now.get(t, False))


def fixed(base: Mapping[str, bool], now: Mapping[str, bool]) -> list[str]:
    """Tasks that failed with the original doc and pass now."""
    return sorted(t for t, ok in base.items() if not ok and now.get(t, False))


def judge(profile: ToolProfile, val: EvalBatch, opt: EvalBatch) -> Evaluation:
    """The evaluation of a candidate from its validation and optimization batches."""
    base_pass, now_pass = profile.opt.passing(), opt.passing()
    return Evaluation(
        val_ts=val.ts,
        base_val_ts=profile.base_val,
        opt_ts=opt.ts,
        base_opt_ts=profile.base_opt,
        val_run=val.run_id,
        opt_run=opt.run_id,
        new_failures=sorted(t.episode_id for t in opt.failed()),
        regressions=regressions(base_pass, now_pass),
        fixed=fixed(base_pass, now_pass),
        accepted=accepted(val.ts, profile.base_val),
        val_partial=val.partial,
        base_val_partial=profile.val.partial,
        opt_partial=opt.partial,
        base_opt_partial=profile.opt.partial,
        n_val=len(val.traces),
        n_opt=len(opt.traces),
    )


def _signal(ev: Evaluation, base: bool = False) -> tuple[float, ...]:
    """What the evidence rule compares: TS over every evaluated episode, then partial credit.

    Validation alone is a handful of tasks (with pooling, mostly other tools'
    ones); the optimization re-run is the tool's own tasks. Together they are
    the largest sample a candidate was judged on, so a candidate that gains on
    validation while losing more on its own tasks is not preferred.
    """
    if base:
        return (round(ev.base_combined_ts, 9), round(ev.base_combined_partial, 9))
    return (round(ev.combined_ts, 9), round(ev.combined_partial, 9))


def select(
    d0: ToolDoc, base_val: float, candidates: Sequence[Candidate], rule: str = "evidence"
) -> Selection:
    """Best accepted by validation TS, ties to the shortest doc (then the earliest); else the original.

    `rule="paper"` is §III-E as written. It has a blind spot on small
    validation sets: when every candidate merely *ties* the original (TS⁰ = 0
    with one or two validation tasks is common with weak models), the shortest
    tie replaces the original without any evidence that it is better.
    `rule="evidence"` (the default) ranks the accepted candidates by TS over
    all their evaluated episodes (validation and the optimization re-run),
    breaks exact ties by call-level partial credit, then length, and keeps the
    original unless the best candidate beats it on that same ordering — an
    accepted candidate still has to show an improvement on the largest sample
    it was judged on.
    """
    if rule not in SELECTIONS:
        raise ValueError(f"selection rule must be one of {SELECTIONS}, not {rule!r}")
    kept = [c for c in candidates if c.evaluation.accepted]
    if not kept:
        why = (
            "no candidate reached the original validation TS" if candidates else "no candidate was generated"
        )
        return Selection(d0, base_val, f"original kept: {why}")

    def rank(c: Candidate) -> tuple[float, ...]:
        ev = c.evaluation
        if rule == "paper":
            return (-ev.val_ts, c.tokens, c.iteration)
        return (*(-x for x in _signal(ev)), c.tokens, c.iteration)

    best = min(kept, key=rank)
    ev = best.evaluation
    if rule == "evidence":
        if _signal(ev) <= _signal(ev, base=True):
            return Selection(
                d0,
                base_val,
                f"original kept: the best accepted candidate (iteration {best.iteration}) does not improve on "
                f"the original (val TS {ev.val_ts:.2f} vs {base_val:.2f}, opt TS {ev.opt_ts:.2f} vs "
                f"{ev.base_opt_ts:.2f}, partial credit {ev.val_partial:.2f}/{ev.opt_partial:.2f} vs "
                f"{ev.base_val_partial:.2f}/{ev.base_opt_partial:.2f})",
            )
    return Selection(
        best.doc,
        ev.val_ts,
        f"iteration {best.iteration}: best accepted val TS {ev.val_ts:.2f} (original {base_val:.2f}), "
        f"opt TS {ev.opt_ts:.2f} (original {ev.base_opt_ts:.2f}), partial credit "
        f"{ev.val_partial:.2f}/{ev.opt_partial:.2f} (original {ev.base_val_partial:.2f}/"
        f"{ev.base_opt_partial:.2f}), {best.tokens} tokens",
    )

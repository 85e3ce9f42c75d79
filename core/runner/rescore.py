"""Re-score stored episodes from their immutable traces, without running any agent again.

Why: a score is a projection of a trace. When the scoring rules change (TC over
successful invocations only, a benchmark folder's per-task options), every
stored episode must be judged by the same rules, or a resumed experiment mixes
two definitions of TS and TC. Re-scoring reads each episode's stored calls and
answer, learns from its tool_call events which calls raised (episodes stored
before calls carried that mark), and asks the episode's benchmark to score
them as the runner would — without the live sandbox, so calls are replayed on
a fresh state where the benchmark scores that way. The warehouse keeps the
old score beside the new one (`Writes.record_rescores`).

Only the runner's episodes are re-scored: imported ones (recorded results,
production traces) keep the scores their source gave them. Episodes are
skipped, with the reason counted, when their benchmark cannot be
loaded again (a built-in without its data, a folder that moved or changed since
the episodes ran: its fingerprint differs, so they belong to another version),
when their task is gone, when their score records a failure of the tools'
server (an MCP crash is a fact about that episode, not a rule to re-apply), or
when they are already scored under the current rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.benchmarks.base import SCORING_VERSION, Benchmark, Call
from core.benchmarks.outcomes import mark_raised
from core.runner.episodes import complete_details
from core.warehouse import Warehouse
from core.warehouse.reads import benchmark_infos, episode_groups, imported_episodes, stored_scores

Resolver = Callable[[str, str, Mapping[str, Any]], Benchmark]
BATCH = 500


@dataclass
class RescoreReport:
    """What a re-score did: episodes looked at, re-scored, changed, and skipped (by reason)."""

    examined: int = 0
    rescored: int = 0
    success_changed: int = 0
    tc_changed: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    groups: list[dict[str, Any]] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [
            f"{g['benchmark']} [{g['variant'] or '-'}]: {g['rescored']}/{g['episodes']} re-scored, "
            f"TS changed on {g['success_changed']}, TC on {g['tc_changed']}"
            + (f" ({g['note']})" if g.get("note") else "")
            for g in self.groups
        ]
        out.append(
            f"{self.rescored} of {self.examined} episodes re-scored under scoring version {SCORING_VERSION}: "
            f"TS changed on {self.success_changed}, TC on {self.tc_changed}"
        )
        out.extend(f"skipped {n}: {reason}" for reason, n in sorted(self.skipped.items()))
        return out


def default_resolver(data_dir: str | None = None) -> Resolver:
    """Load a stored benchmark configuration again: built-ins by their key, folders and MCP servers
    from what the warehouse kept about them (`benchmarks.info`)."""

    def resolve(name: str, variant: str, info: Mapping[str, Any]) -> Benchmark:
        from core.benchmarks.registry import get_benchmark, mcp_benchmark_name

        if "+sop" in variant:
            raise LookupError(
                "episodes with composite tools (EvoSOP) are scored from their base benchmark; "
                "`docschisel rescore` does that"
            )
        family, _, option = variant.partition("/")
        if family == "workbench":
            return get_benchmark("workbench", data_dir, variant=option or "domains")
        if family == "api-bank":
            return get_benchmark("api-bank", data_dir, tool_set=option or "domain")
        if info.get("folder"):
            bench = get_benchmark(str(info["folder"]))
        elif info.get("server") and info.get("tasks"):
            bench = get_benchmark(mcp_benchmark_name(str(info["server"]), str(info["tasks"])))
        else:
            raise LookupError("the warehouse does not say where this benchmark came from")
        if getattr(bench, "key", None) != variant:
            raise LookupError(
                f"its source changed since these episodes ran (now {getattr(bench, 'key', '?')})"
            )
        return bench

    return resolve


def rescore(
    wh: Warehouse,
    *,
    benchmarks: set[str] | None = None,
    resolver: Resolver | None = None,
    force: bool = False,
    dry_run: bool = False,
    echo: Callable[[str], None] = lambda _line: None,
) -> RescoreReport:
    """Re-score every stored episode (of `benchmarks`, when given) under the current scoring rules.

    With `dry_run`, everything is computed and counted but nothing is written.
    """
    resolve = resolver or default_resolver()
    report = RescoreReport()
    infos = benchmark_infos(wh)
    imported = 0 if benchmarks else imported_episodes(wh)
    if imported:
        report.examined += imported
        report.skipped["imported or archived episodes keep the scores they were stored with"] += imported
    for name, variant, count in episode_groups(wh):
        if benchmarks and name not in benchmarks and variant not in benchmarks:
            continue
        group = {"benchmark": name, "variant": variant, "episodes": count, "rescored": 0}
        group.update(success_changed=0, tc_changed=0)
        report.groups.append(group)
        report.examined += count
        try:
            bench = resolve(name, variant, infos.get(name, {}))
        except Exception as exc:  # noqa: BLE001 - one benchmark that cannot load skips its episodes only
            reason = f"{name}: cannot load the benchmark ({type(exc).__name__}: {exc})"
            group["note"] = "not loaded"
            report.skipped[reason] += count
            echo(f"{name} [{variant}]: skipped, {reason}")
            continue
        try:
            _rescore_group(wh, bench, name, variant, group, report, force, dry_run)
        finally:
            close = getattr(bench, "close", None)
            if callable(close):
                close()
        echo(f"{name} [{variant}]: {group['rescored']}/{count} re-scored")
    return report


def _rescore_group(
    wh: Warehouse,
    bench: Benchmark,
    name: str,
    variant: str,
    group: dict[str, Any],
    report: RescoreReport,
    force: bool,
    dry_run: bool,
) -> None:
    tasks = {t.task_id: t for t in bench.tasks()}
    pending: list[dict[str, Any]] = []
    for ep in stored_scores(wh, name, variant):
        reason = _skip_reason(ep, tasks, force)
        if reason:
            report.skipped[reason] += 1
            continue
        task = tasks[ep["task_id"]]
        calls = mark_raised([Call.from_json(c) for c in ep["calls"]], ep["attempts"])
        try:
            score = bench.score(task, calls, ep["final_answer"], None)
        except Exception as exc:  # noqa: BLE001 - one unscorable episode is counted, the rest go on
            report.skipped[f"the scorer failed ({type(exc).__name__})"] += 1
            continue
        details = complete_details(task, calls, score.details)
        old = ep["score"]
        pending.append(
            {
                "episode_id": ep["episode_id"],
                "scoring": SCORING_VERSION,
                "success": bool(score.success),
                "tool_correct": bool(score.tool_correct),
                "score": details,
                "old_scoring": int(old.get("scoring") or 1),
                "old_success": ep["success"],
                "old_tool_correct": ep["tool_correct"],
                "old_score": old,
            }
        )
        group["success_changed"] += bool(score.success) != bool(ep["success"])
        group["tc_changed"] += bool(score.tool_correct) != bool(ep["tool_correct"])
        if len(pending) >= BATCH:
            _flush(wh, pending, group, dry_run)
    _flush(wh, pending, group, dry_run)
    report.rescored += group["rescored"]
    report.success_changed += group["success_changed"]
    report.tc_changed += group["tc_changed"]


def _skip_reason(ep: Mapping[str, Any], tasks: Mapping[str, Any], force: bool) -> str | None:
    score = ep["score"]
    if ep["task_id"] not in tasks:
        return "the task is no longer in its benchmark"
    if score.get("error_class") or str(score.get("error") or "").startswith("scorer failed"):
        return "the episode's tools failed (server crash, timeout) or its scorer did: kept as recorded"
    if not force and int(score.get("scoring") or 1) >= SCORING_VERSION:
        return "already scored under the current rules"
    return None


def _flush(wh: Warehouse, pending: list[dict[str, Any]], group: dict[str, Any], dry_run: bool) -> None:
    if pending:
        group["rescored"] += len(pending) if dry_run else wh.record_rescores(pending)
        pending.clear()

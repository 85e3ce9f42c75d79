"""The field-impact study (the paper's RQ2, Fig. 1): add or remove one field, measure ΔTS.

For one benchmark domain × backbone × paradigm:

1. Split the domain's tasks with the stored stratified split; measure on one
   part (default `test`, a seeded sample of `limit` tasks) and take all
   supplement evidence from another (default `opt`), so nothing the measured
   agent sees was derived from the measured tasks.
2. The tools of the study are those offered on the measured tasks. For each of
   the 17 fields: if any of these tools documents the field, the variant
   REMOVES it (from every tool that has it); otherwise it ADDS it to every tool
   for which metadata or evidence supports it (`core.study.supplement`).
   Everything else is unchanged. A field that can be neither removed nor
   supported is reported as not applicable (n_tools = 0, no runs).
3. Run the original doc set and every variant on the same tasks with the same
   agent, repeated. Repeat r uses `AgentConfig(temperature=T, seed=seed + r)`:
   the local model is deterministic at temperature 0, so repeats sample at
   T = 0.7 by default with a different seed each, and repeat r of a variant is
   paired with repeat r of the original (same seed, same tasks).
4. ΔTS per field = mean over repeats of (TS_variant,r − TS_original,r) in
   percentage points, with a 95 % paired bootstrap interval over tasks (each
   task's difference is its mean over the paired repeats; tasks are
   resampled). An interval over repeats alone has 2 degrees of freedom with 3
   repeats and collapses to zero width when they agree. Stored in
   `field_impact`, one row per field (append-only; the latest row per study
   and field is current).

Runs go through the runner, so episodes are reused: re-running the same study
resumes where it stopped, and a field's row is rewritten as soon as one more of
its repeats is paired with the original's, so a partial study already shows a
(noisier, fewer-repeat) table.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import pandas as pd

from core.agents import AgentConfig
from core.benchmarks.base import Benchmark, Task
from core.benchmarks.registry import benchmark_key, get_benchmark, select_tasks
from core.benchmarks.splits import get_or_create_split
from core.docs import DocSet, ToolDoc
from core.fields import CODES
from core.study.evidence import Evidence, collect_evidence, tool_meta
from core.study.report import latest_impacts  # noqa: F401 - re-exported: callers read it from here
from core.study.stats import paired_delta, paired_task_delta
from core.study.supplement import supplement
from core.warehouse.records import content_hash, now
from core.warehouse.rows import FieldImpactRow

Progress = Callable[[str], None]
Steps = Callable[[int, int, str], None]  # (variant runs done, variant runs in all, what runs now)


@dataclass(frozen=True)
class StudySpec:
    """Everything that defines one study cell; its hash is the study id."""

    benchmark: str = "workbench"
    domain: str = "calendar"
    model: str = "local/qwen2.5-coder-0.5b"
    paradigm: str = "react"
    doc_mode: str = "native"
    repeats: int = 3
    limit: int | None = 20
    seed: int = 0
    temperature: float = 0.7
    measure_part: str = "test"
    evidence_part: str = "opt"
    fields: tuple[str, ...] = CODES
    max_steps: int = 6
    time_limit_s: float = 1800.0

    def __post_init__(self) -> None:
        if self.measure_part == self.evidence_part:
            raise ValueError(
                "the supplement evidence must come from a split part disjoint from the measured one"
            )
        if self.repeats < 1:
            raise ValueError("repeats must be at least 1")
        unknown = [c for c in self.fields if c not in CODES]
        if unknown:
            raise ValueError(f"unknown field codes {unknown}; expected some of {', '.join(CODES)}")

    @property
    def study_id(self) -> str:
        return content_hash("field-study", asdict(self))

    def config(self, repeat: int) -> AgentConfig:
        return AgentConfig(
            paradigm=self.paradigm,
            model=self.model,
            doc_mode=self.doc_mode,
            temperature=self.temperature,
            seed=self.seed + repeat,
            max_steps=self.max_steps,
            time_limit_s=self.time_limit_s,
        )


@dataclass
class Variant:
    field: str
    operation: str  # add | remove | n/a
    docset: DocSet | None
    tools: list[str] = field(default_factory=list)  # tools whose doc changed
    note: str = ""


def sample(tasks: Sequence[Task], limit: int | None, seed: int) -> list[Task]:
    """A seeded sample of `limit` tasks in task-id order (all when limit is None)."""
    ordered = sorted(tasks, key=lambda t: t.task_id)
    if not limit or limit >= len(ordered):
        return ordered
    return sorted(random.Random(seed).sample(ordered, limit), key=lambda t: t.task_id)


def study_tools(bench: Benchmark, tasks: Sequence[Task]) -> list[str]:
    """Tools offered on the measured tasks, in the benchmark's order."""
    offered: dict[str, None] = {}
    for t in tasks:
        offered.update(dict.fromkeys(bench.tools_for(t)))
    return list(offered)


def plan_variants(
    bench: Benchmark,
    original: DocSet,
    tools: Sequence[str],
    evidence: Evidence,
    fields: Sequence[str] = CODES,
) -> list[Variant]:
    """One variant per field: remove where present, add from evidence where absent."""
    metas = {t: tool_meta(bench, t) for t in tools}
    out: list[Variant] = []
    for code in fields:
        present = [t for t in tools if original[t].has(code)]
        changed: dict[str, ToolDoc] = {}
        if present:
            op = "remove"
            changed = {t: original[t].remove(code) for t in present}
        else:
            op = "add"
            for t in tools:
                new = supplement(original[t], code, metas[t], evidence)
                if new is not None:
                    changed[t] = new
        if not changed:
            out.append(Variant(code, "n/a", None, [], "no tool has it and no evidence supports it"))
            continue
        docset = original
        for doc in changed.values():
            docset = docset.replace(doc)
        out.append(Variant(code, op, DocSet(docset.values(), name=f"study {op} {code}"), sorted(changed)))
    return out


@dataclass
class StudyContext:
    bench: Benchmark
    measured: list[Task]
    evidence_tasks: list[Task]
    tools: list[str]
    original: DocSet
    variants: list[Variant]
    split_id: str


def prepare(warehouse, spec: StudySpec, bench: Benchmark | None = None, data_dir=None) -> StudyContext:
    """Split, sample, collect evidence and build the variants (no agent runs)."""
    bench = bench or get_benchmark(spec.benchmark, data_dir)
    all_tasks = bench.tasks()
    # the task-level split: a field study measures docs on test tasks and optimizes nothing on the
    # opt part, and its stored studies were sampled from this split
    split = get_or_create_split(warehouse, benchmark_key(bench), all_tasks, seed=spec.seed, grouping="task")
    domain_tasks = select_tasks(bench, all_tasks, domains=[spec.domain])
    measured = sample(split.tasks(domain_tasks, spec.measure_part), spec.limit, spec.seed)
    if not measured:
        raise ValueError(f"no {spec.measure_part} tasks in {spec.benchmark}/{spec.domain}")
    evidence_tasks = split.tasks(domain_tasks, spec.evidence_part)
    tools = study_tools(bench, measured)
    original = bench.original_docs()
    evidence = collect_evidence(bench, evidence_tasks, tools)
    variants = plan_variants(bench, original, tools, evidence, spec.fields)
    return StudyContext(bench, measured, evidence_tasks, tools, original, variants, split.split_id)


def run_study(
    warehouse,
    spec: StudySpec,
    *,
    bench: Benchmark | None = None,
    data_dir=None,
    concurrency: int = 1,
    progress: Progress | None = None,
    agent_factory=None,
    cancelled: Callable[[], bool] | None = None,
    steps: Steps | None = None,
) -> pd.DataFrame:
    """Run (or resume) the study and return its field_impact rows as a frame.

    `steps` hears each variant run as it starts and ends ("k of N variant runs
    done"), so a study that takes an hour shows where it is.
    """
    from core.runner import RunPlan, run

    say = progress or (lambda _msg: None)
    ctx = prepare(warehouse, spec, bench, data_dir)
    bench_name = ctx.bench.name
    study_run = warehouse.start_run(
        "study",
        {"study": asdict(spec), "study_id": spec.study_id, "split_id": ctx.split_id},
        name=f"field study {spec.benchmark}/{spec.domain} {spec.model} {spec.paradigm}",
        benchmark=bench_name,
    )
    runnable = [v for v in ctx.variants if v.docset is not None]
    say(
        f"study {spec.study_id}: {len(ctx.measured)} {spec.measure_part} tasks, {len(ctx.tools)} tools, "
        f"{len(runnable)} variants (+ original) × {spec.repeats} repeats; evidence from "
        f"{len(ctx.evidence_tasks)} {spec.evidence_part} tasks"
    )
    for v in ctx.variants:
        if v.docset is not None:
            warehouse.register_docset(
                v.docset,
                benchmark=bench_name,
                origin="study",
                name=v.docset.name,
                meta={
                    "study_id": spec.study_id,
                    "field": v.field,
                    "operation": v.operation,
                    "tools": v.tools,
                },
            )
    base: list[tuple[float, float]] = []
    per_variant: dict[str, list[tuple[float, float]]] = {v.field: [] for v in runnable}
    task_scores: dict[str, list[dict[str, float]]] = {"original": [], **{v.field: [] for v in runnable}}
    run_ids: dict[str, list[str]] = {"original": [], **{v.field: [] for v in runnable}}
    stopped = False
    total_runs, runs_done = spec.repeats * (len(runnable) + 1), 0
    for r in range(spec.repeats):
        config = spec.config(r)
        for label, docset in [("original", ctx.original), *((v.field, v.docset) for v in runnable)]:
            if cancelled and cancelled():
                stopped = True
                break
            if steps:
                steps(runs_done, total_runs, f"repeat {r + 1} of {spec.repeats}: {label}")
            plan = RunPlan(
                ctx.bench,
                docset,
                config,
                ctx.measured,
                repeats=1,
                split=spec.measure_part,
                kind="eval",
                name=f"study {spec.domain} {label} r{r}",
                extra={"study_id": spec.study_id, "split_id": ctx.split_id},
            )
            res = run(
                warehouse, plan, concurrency=concurrency, agent_factory=agent_factory, parent_run=study_run
            )
            m = res.metrics
            (base if label == "original" else per_variant[label]).append((m.ts, m.tc))
            run_ids[label].append(res.run_id)
            task_scores[label].append(task_successes(warehouse, res.run_id))
            runs_done += 1
            if steps:
                steps(runs_done, total_runs, f"repeat {r + 1} of {spec.repeats}: {label} done")
            say(f"  r{r} {label:<8} TS {m.ts:6.1%} TC {m.tc:6.1%} [{res.ran} run, {res.reused} reused]")
            # Write the field's row as soon as its repeat is paired, so a long study shows progress.
            frame = impact_rows(spec, ctx, base, per_variant, run_ids, study_run, task_scores)
            fresh = (
                frame[frame["field"] == label] if label != "original" else frame[frame["operation"] == "n/a"]
            )
            warehouse.record(
                FieldImpactRow(**{**r, "detail": json.loads(r["detail"])}) for r in fresh.to_dict("records")
            )
        if stopped:
            break
    warehouse.set_run_status(study_run, "cancelled" if stopped else "finished", {"repeats_done": len(base)})
    return impact_rows(spec, ctx, base, per_variant, run_ids, study_run, task_scores)


def impact_rows(
    spec: StudySpec,
    ctx: StudyContext,
    base: list[tuple[float, float]],
    per_variant: dict[str, list[tuple[float, float]]],
    run_ids: dict[str, list[str]],
    study_run: str,
    task_scores: dict[str, list[dict[str, float]]] | None = None,
) -> pd.DataFrame:
    """One row per field from the repeats completed so far (paired by repeat index).

    With per-task scores the interval is the paired bootstrap over tasks;
    without them (callers that have only run-level TS) it is over repeats.
    """
    rows = []
    created = now()
    for v in ctx.variants:
        vals = per_variant.get(v.field, [])
        k = min(len(vals), len(base))
        ts_v, tc_v = [x[0] for x in vals[:k]], [x[1] for x in vals[:k]]
        ts_b, tc_b = [x[0] for x in base[:k]], [x[1] for x in base[:k]]
        row = {
            "study_id": spec.study_id,
            "benchmark": spec.benchmark,
            "domain": spec.domain,
            "model": spec.model,
            "paradigm": spec.paradigm,
            "field": v.field,
            "operation": v.operation,
            "n_tools": len(v.tools),
            "base_ts": _mean(ts_b),
            "variant_ts": _mean(ts_v),
            "delta_pp": None,
            "ci_low": None,
            "ci_high": None,
            "delta_tc_pp": None,
            "repeats": k,
            "docset_id": v.docset.docset_id if v.docset is not None else None,
            "run_id": study_run,
            "created_at": created,
        }
        if k:
            scores = task_scores or {}
            if scores.get(v.field) and scores.get("original"):
                d = paired_task_delta(scores[v.field][:k], scores["original"][:k])
            else:
                d = paired_delta(ts_v, ts_b)
            row.update(
                delta_pp=100 * d.mean,
                ci_low=100 * d.low,
                ci_high=100 * d.high,
                delta_tc_pp=100 * paired_delta(tc_v, tc_b).mean,
            )
        row["detail"] = json.dumps(
            {
                "tools": v.tools,
                "note": v.note,
                "doc_mode": spec.doc_mode,
                "temperature": spec.temperature,
                "n_tasks": len(ctx.measured),
                "task_ids": [t.task_id for t in ctx.measured],
                "evidence_tasks": len(ctx.evidence_tasks),
                "split_id": ctx.split_id,
                "base_ts": ts_b,
                "variant_ts": ts_v,
                "base_tc": tc_b,
                "variant_tc": tc_v,
                "runs": run_ids.get(v.field, []),
                "base_runs": run_ids.get("original", [])[:k],
                "interval": (
                    "95% paired bootstrap over tasks"
                    if (task_scores or {}).get(v.field)
                    else "95% Student-t over paired repeat differences"
                ),
            }
        )
        rows.append(row)
    return pd.DataFrame(rows)


def task_successes(warehouse, run_id: str) -> dict[str, float]:
    """Task id -> success (mean over the run's episodes of that task) of one run."""
    df = warehouse.query(
        """SELECT e.task_id, avg(e.success::INT) AS s FROM run_episodes re JOIN episodes e USING (episode_id)
           WHERE re.run_id = ? GROUP BY e.task_id""",
        [run_id],
    )
    return dict(zip(df["task_id"], df["s"].astype(float), strict=True))


def _mean(values: Sequence[float]) -> float | None:
    return float(sum(values) / len(values)) if values else None

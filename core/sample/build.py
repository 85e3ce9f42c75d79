"""Build the sample warehouse by running the real producers with scripted models."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from core.sample.bench import SampleShop
from core.sample.model import baseline_replies, doc_reader, fake_embedder

READER = "sample-doc-reader"
WRITER = "sample-baseline-writer"


def build_sample(path: str | Path, *, with_job: bool = True) -> dict[str, Any]:
    """Fill a new warehouse at `path` from real runs; returns the ids the dashboard tests look for.

    Runs, in order: the original docs on the test split (two repeats), a
    DocsChisel optimization with the evidence engine and its held-out test,
    a field-impact study of the shop domain, an OG / EasyTool / DRAFT /
    DocsChisel comparison, two review actions on the optimized doc, and (with
    `with_job`) a short background job through the job supervisor.
    """
    from core import jobs
    from core.agents.base import AgentConfig
    from core.benchmarks.registry import benchmark_key
    from core.benchmarks.splits import DEFAULT_GROUPING, get_or_create_split
    from core.chisel.config import OptimizeConfig
    from core.chisel.heldout import evaluate_on_test
    from core.chisel.loop import Optimizer
    from core.evaluation import RunnerEvaluator
    from core.llm import Gateway, script, using
    from core.study.compare import CompareSpec, optimization_agent, run_compare
    from core.study.fields import StudySpec, run_study
    from core.ui.actions import record_review
    from core.warehouse import Warehouse

    wh = Warehouse(path)
    bench = SampleShop()
    ids: dict[str, Any] = {"benchmark": bench.name}
    with using(Gateway.for_warehouse(wh)):
        reader = script(doc_reader, name=READER)
        writer = script(baseline_replies, name=WRITER)
        agent = AgentConfig(model=reader.model, max_steps=2)
        split = get_or_create_split(
            wh, benchmark_key(bench), bench.tasks(), seed=0, grouping=DEFAULT_GROUPING
        )
        ids["split_id"] = split.split_id
        original = bench.original_docs()
        sampled = AgentConfig(model=reader.model, max_steps=2, temperature=0.7)
        batch = RunnerEvaluator(wh, bench, sampled, repeats=2).evaluate(
            original, split.tasks(bench.tasks(), "test"), "test"
        )
        ids["eval_run"] = batch.run_id
        # the comparison below optimizes with exactly these settings, so its DocsChisel run is this one
        spec = CompareSpec(
            benchmark=bench.name,
            opt_runs=1,
            eval_runs=5,
            limit=8,
            agent=agent,
            iterations=2,
            engine="evidence",
            baseline_model=writer.model,
            curve_eval_runs=1,
            memory_ablation=False,  # one optimize run in the sample
            headroom=None,  # the literal reader never orders with the original docs: optimize anyway
            min_val_tasks=0,
            profile_repeats=2,
        )
        config = OptimizeConfig.like(
            spec,
            memory=True,
            optimizer_model=None,
            seed=0,
            agent=optimization_agent(spec, 0),
            repeats=spec.profile_repeats,
            tools=(),
            headroom=None,
        )
        result = Optimizer(wh, config, benchmark=bench).run()
        ids["optimize_run"], ids["optimized_docset"] = result.run_id, result.docset_id
        ids["test"] = evaluate_on_test(wh, result.run_id, bench, repeats=2)
        study = StudySpec(
            benchmark=bench.name, domain="shop", model=reader.model, repeats=2, limit=4, max_steps=2
        )
        run_study(wh, study, bench=bench)
        ids["study_id"] = study.study_id
        ids["compare_id"] = run_compare(wh, spec, bench=bench, embedder=fake_embedder).compare_id
        changed = next((r for r in result.tools if r.changed), result.tools[0])
        ids["reviewed_doc"] = changed.selected.doc_id
        record_review(
            wh, changed.selected.doc_id, changed.tool, "approve", reviewer="nadia", reason="states the format"
        )
        record_review(
            wh, changed.selected.doc_id, changed.tool, "label", label="needs-second-look", reviewer="omar"
        )
    if with_job:
        job = jobs.start_job(wh, "selftest", ["warehouse", "selftest-job", "--steps", "3"], {"steps": 3})
        jobs.wait_for(wh, job, timeout_s=120)
        ids["job_id"] = job
    return ids


_TEMPLATE: tuple[str, dict[str, Any]] | None = None


def seeded_copy(dest: str | Path) -> dict[str, Any]:
    """Copy the sample warehouse to `dest` (built once per process, then copied: tests stay fast)."""
    from core.warehouse.store import close_all

    global _TEMPLATE
    if _TEMPLATE is None:
        folder = Path(tempfile.mkdtemp(prefix="docschisel-sample-"))
        path = folder / "sample.duckdb"
        ids = build_sample(path)
        close_all()
        _TEMPLATE = (str(path), ids)
    src, ids = _TEMPLATE
    close_all()
    shutil.copyfile(src, dest)
    return dict(ids)

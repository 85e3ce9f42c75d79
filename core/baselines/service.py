"""Generate a baseline doc set for a benchmark (or some of its domains) and store it.

This is the entry point the CLI and the comparison harness share:

    from core.baselines.service import generate_baseline
    out = generate_baseline(wh, "easytool", "workbench", domains=["calendar"], model="local/smollm2-135m")
    out.docset_id, out.run_id, out.costs        # doc set in `doc_sets` (origin "easytool"), run kind "baseline"

A baseline run is identified by its configuration (method, benchmark key,
tools, model, settings, split), so asking again for the same baseline returns
the stored doc set without a single model call; a different `seed` gives an
independent optimisation run (the paper's 3 runs per method). The doc set
covers every tool of the benchmark: tools outside the chosen domains keep their
original docs. Costs per tool (calls, tokens, seconds) are in the doc set's
metadata and the run's finished status, for the efficiency table.

GEPA, which runs the target agent on a tool grouping the caller provides, has
its own entry point with the same conventions (`core.baselines.gepa_run.generate_gepa`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.benchmarks.registry import benchmark_key, get_benchmark, select_tasks
from core.benchmarks.splits import DEFAULT_GROUPING, get_or_create_split
from core.docs import DocSet

METHODS = ("easytool", "draft")


@dataclass
class BaselineRun:
    method: str
    run_id: str
    docset_id: str
    docset: DocSet
    tools: list[str]
    costs: dict[str, dict[str, Any]]
    reused: bool
    cancelled: bool = False  # the caller stopped it (GEPA); nothing was stored as finished


def domain_tools(bench, domains: Sequence[str] | None) -> list[str]:
    """Tools offered on the tasks of `domains` (all tools when none are given)."""
    if not domains:
        return list(bench.original_docs())
    out: dict[str, None] = {}
    for t in select_tasks(bench, domains=list(domains)):
        out.update(dict.fromkeys(bench.tools_for(t)))
    return [t for t in out if t in bench.original_docs()]


def _effective_config(method: str, model: str, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """Every setting the baseline runs with, defaults included, so a changed default is a new run."""
    from dataclasses import asdict

    if method == "easytool":
        from core.baselines.easytool import EasyToolConfig as Config
    else:
        from core.baselines.draft import DraftConfig as Config
    return asdict(Config(model=model, seed=seed, **options))


def generate_baseline(
    warehouse,
    method: str,
    benchmark: str,
    *,
    domains: Sequence[str] | None = None,
    tools: Sequence[str] | None = None,
    model: str = "local/qwen2.5-coder-1.5b",
    seed: int = 0,
    split_seed: int = 0,
    split_grouping: str = DEFAULT_GROUPING,
    data_dir=None,
    bench=None,
    options: dict[str, Any] | None = None,
    embedder=None,
    progress=None,
) -> BaselineRun:
    """Run EasyTool or DRAFT (or reuse the stored result of the identical run)."""
    if method not in METHODS:
        raise ValueError(f"unknown baseline {method!r}; expected one of {METHODS}")
    bench = bench or get_benchmark(benchmark, data_dir)
    chosen = list(tools) if tools else domain_tools(bench, domains)
    options = dict(options or {})
    key = {
        "config": _effective_config(method, model, seed, options),
        "method": method,
        "benchmark": benchmark_key(bench),
        "tools": sorted(chosen),
        "model": model,
        "seed": seed,
        "split_seed": split_seed,
        "original": bench.original_docs().docset_id,
    }
    # DRAFT explores the opt tasks, so its split is part of its identity; task-level runs keep their ids
    if method == "draft" and split_grouping != "task":
        key["split_grouping"] = split_grouping
    run_id = warehouse.start_run(
        "baseline", key, name=f"{method} {benchmark} {','.join(domains or []) or 'all'}", benchmark=bench.name
    )
    stored = stored_run(warehouse, method, run_id, chosen)
    if stored is not None:
        return stored

    original = bench.original_docs()
    if method == "easytool":
        from core.baselines.easytool import EasyToolConfig, run_easytool

        result = run_easytool(original, chosen, EasyToolConfig(model=model, seed=seed, **options), run_id)
    else:
        from core.baselines.draft import DraftConfig, run_draft

        split = get_or_create_split(
            warehouse, benchmark_key(bench), bench.tasks(), seed=split_seed, grouping=split_grouping
        )
        opt_tasks = split.tasks(bench.tasks(), "opt")
        result = run_draft(
            bench,
            original,
            chosen,
            DraftConfig(model=model, seed=seed, **options),
            opt_tasks,
            embedder=embedder,
            run_id=run_id,
            progress=progress,
        )
    docset = DocSet(result.docset.values(), name=f"{method} {benchmark} {model} s{seed}")
    meta = {"run_id": run_id, "costs": result.costs, **{k: v for k, v in result.meta.items()}}
    docset_id = warehouse.register_docset(
        docset,
        benchmark=bench.name,
        origin=method,
        name=docset.name,
        meta=json.loads(json.dumps(meta, default=str)),
        parents={t: original[t].doc_id for t in chosen},
    )
    totals = {
        "tools": len(chosen),
        "calls": sum(c.get("calls", 0) for c in result.costs.values()),
        "tokens": sum(c.get("tokens", 0) for c in result.costs.values()),
        "seconds": sum(c.get("seconds", 0.0) for c in result.costs.values()),
    }
    warehouse.set_run_status(
        run_id, "finished", {"docset_id": docset_id, "costs": result.costs, "totals": totals}
    )
    return BaselineRun(method, run_id, docset_id, docset, chosen, result.costs, False)


def stored_run(warehouse, method: str, run_id: str, tools: list[str]) -> BaselineRun | None:
    """The stored result of a finished baseline run (`reused=True`), or None: asking again costs nothing."""
    done = warehouse.rows(
        "SELECT detail FROM run_status WHERE run_id = ? AND status = 'finished' ORDER BY ts DESC LIMIT 1",
        [run_id],
    )
    if not done:
        return None
    detail = json.loads(done[0][0])
    docset = warehouse.load_docset(detail["docset_id"])
    return BaselineRun(method, run_id, detail["docset_id"], docset, tools, detail.get("costs", {}), True)


def load_docset(warehouse, ref: str) -> DocSet:
    """A doc set from the warehouse by doc-set id, or by the id of the baseline/eval run that made it."""
    if warehouse.rows("SELECT 1 FROM doc_sets WHERE docset_id = ?", [ref]):
        return warehouse.load_docset(ref)
    rows = warehouse.rows(
        "SELECT json_extract_string(detail, '$.docset_id') FROM run_status WHERE run_id = ? AND status = 'finished' "
        "ORDER BY ts DESC LIMIT 1",
        [ref],
    )
    if rows and rows[0][0]:
        return warehouse.load_docset(rows[0][0])
    raise KeyError(f"no doc set or finished baseline run {ref!r} in {warehouse.path}")

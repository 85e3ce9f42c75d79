"""One expansion run over a benchmark's tools, recorded in the warehouse.

The run id is the hash of its configuration (models, seed, prompt and rule
versions, tool list), so the same command resumes: finished tools come back
from the LLM cache and their rows are already stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core.docs import token_length
from core.expansion.expand import ToolExpansion, expand_docset
from core.expansion.judge import RULES_VERSION
from core.expansion.prompts import PROMPT_VERSION
from core.expansion.records import record_docset, record_tool, register_original
from core.warehouse import Warehouse


def run_expansion(
    wh: Warehouse,
    bench: Any,
    *,
    model: str,
    judge_model: str | None,
    strong_model: str | None = None,
    tools: Sequence[str] | None = None,
    seed: int = 0,
    on_tool: Callable[[ToolExpansion, int, int], None] | None = None,
) -> dict[str, Any]:
    """Expand `tools` (default all) of `bench`; store everything; return a summary."""
    original = bench.original_docs()
    chosen = sorted(tools) if tools else sorted(original)
    config = {
        "benchmark": bench.name,
        "model": model,
        "judge_model": judge_model,
        "strong_model": strong_model,
        "seed": seed,
        "prompt_version": PROMPT_VERSION,
        "rules_version": RULES_VERSION,
        "tools": chosen,
        "source_docset": original.docset_id,
    }
    run_id = wh.start_run("expansion", config, name=f"toolrex {bench.name} {model}", benchmark=bench.name)
    register_original(wh, bench.name, original)

    def each(exp: ToolExpansion, done: int, total: int) -> None:
        record_tool(wh, run_id, bench.name, exp)
        if on_tool:
            on_tool(exp, done, total)

    try:
        result = expand_docset(
            original,
            model=model,
            judge_model=judge_model,
            strong_model=strong_model,
            tools=chosen,
            seed=seed,
            run_id=run_id,
            on_tool=each,
        )
    except BaseException as exc:
        wh.set_run_status(run_id, "failed", {"error": f"{type(exc).__name__}: {exc}"[:500]})
        raise
    meta = {"model": model, "judge_model": judge_model, "strong_model": strong_model, "tools": chosen}
    docset_id = record_docset(wh, run_id, bench.name, original, result.docset, meta)
    exps = result.expansions
    summary = {
        "run_id": run_id,
        "docset_id": docset_id,
        "tools": len(exps),
        "accepted": sum(len(e.profile.fields()) for e in exps),
        "rejected": sum(len(a.rejected) for e in exps for a in e.attempts),
        "regenerated": sum(e.regenerated for e in exps),
        "tokens_original": sum(token_length(e.original) for e in exps) / max(len(exps), 1),
        "tokens_expanded": sum(token_length(e.expanded) for e in exps) / max(len(exps), 1),
    }
    wh.set_run_status(run_id, "finished", summary)
    return summary

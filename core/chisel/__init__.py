"""DocsChisel: field-level, trace-guided optimization of tool documentation.

    from core.chisel import OptimizeConfig, optimize
    result = optimize(warehouse, OptimizeConfig(benchmark="api-bank", domains=("finance",), iterations=5))
    result.run_id, result.docset_id, [(t.tool, t.base_val_ts, t.best_val_ts) for t in result.tools]

Engines: `evidence` (offline, deterministic; the default with the local
model) and `llm` (prompt templates in `core/chisel/prompts/`). Exports:
`export_docset(docset, "json" | "openai" | "mcp")`. The eval CLI resolves
`--docs <optimize-run-id>` through `resolve_docset`.
"""

from core.chisel.config import OptimizeConfig
from core.chisel.export import FORMATS, export_docset, export_text, resolve_export
from core.chisel.lineage import optimize_runs, resolve_docset

__all__ = [
    "FORMATS",
    "OptimizeConfig",
    "OptimizeResult",
    "Optimizer",
    "ToolResult",
    "export_docset",
    "export_text",
    "optimize",
    "optimize_runs",
    "resolve_docset",
    "resolve_export",
]


def __getattr__(name: str):
    """The loop (and the runner and agents it imports) loads only when used."""
    if name in ("optimize", "Optimizer"):
        from core.chisel import loop

        return getattr(loop, name)
    if name in ("OptimizeResult", "ToolResult"):
        from core.chisel import results

        return getattr(results, name)
    raise AttributeError(name)

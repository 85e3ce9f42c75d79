"""The interchangeable engines of DocsChisel's diagnosis, planning and generation.

`base` holds the protocol every engine implements and the context it works
in; `evidence` is the offline, deterministic engine (trace differ, rule table,
field synthesisers in `synth`); `llm` follows the paper's prompts with any
model through the gateway. `make_engine` picks one by name, importing only
the engine it returns.
"""

from __future__ import annotations

from typing import Any

from core.chisel.engines.base import Engine

__all__ = ["Engine", "make_engine"]


def make_engine(kind: str, optimizer_model: str | None = None, **options: Any) -> Engine:
    """`evidence`, `llm`, or `auto` (evidence for the local model or no model, else llm)."""
    from core.llm import default_optimizer_model

    model = optimizer_model or default_optimizer_model()
    if kind == "auto":
        kind = "evidence" if model.startswith("local/") else "llm"
    if kind == "evidence":
        from core.chisel.engines.evidence import EvidenceEngine

        return EvidenceEngine()
    if kind == "llm":
        from core.chisel.engines.llm import LLMEngine

        return LLMEngine(model, **options)
    raise ValueError(f"unknown engine {kind!r}; expected evidence, llm or auto")

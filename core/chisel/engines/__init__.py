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

__all__ = ["Engine", "auto_engine", "make_engine"]


def auto_engine(model: str) -> str:
    """What `auto` means for an optimizer model: the paper's LLM engine whenever the model can run.

    A hosted model, a scripted test model, or a local model whose weights are
    installed runs the LLM engine (the offline default is Qwen2.5-Coder-1.5B,
    strong enough to follow the JSON formats); a local model that is not
    installed falls back to the evidence engine, which needs no model at all.
    """
    if not model.startswith("local/"):
        return "llm"
    import importlib.util

    from core.llm import weights

    name = model.split("/", 1)[1]
    if importlib.util.find_spec("llama_cpp") is None or name not in weights.MODELS:
        return "evidence"
    return "llm" if weights.installed(weights.spec(name)) else "evidence"


def make_engine(kind: str, optimizer_model: str | None = None, **options: Any) -> Engine:
    """`evidence`, `llm`, or `auto` (see `auto_engine`)."""
    from core.llm import default_optimizer_model

    model = optimizer_model or default_optimizer_model()
    if kind == "auto":
        kind = auto_engine(model)
    if kind == "evidence":
        from core.chisel.engines.evidence import EvidenceEngine

        return EvidenceEngine()
    if kind == "llm":
        from core.chisel.engines.llm import LLMEngine

        return LLMEngine(model, **options)
    raise ValueError(f"unknown engine {kind!r}; expected evidence, llm or auto")

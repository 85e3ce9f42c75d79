"""Signatures of a benchmark's tools, read from its implementation where we have one.

The signature synthesiser fills parameter fields (IPN, IPT, DPV, PRF, POF)
from the truth of the implementation rather than from guesses. The method sees
only the Benchmark protocol: a benchmark may expose `tool_signature(tool) ->
list[dict]` (API-Bank from its API classes, WorkBench from its tool
functions) or `tool_function(tool) -> callable`; otherwise the original
documentation is the only source.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.benchmarks.meta import read_only_tools  # noqa: F401 - re-exported for the optimizer
from core.docs import ToolDoc

_NO_DEFAULT = inspect.Parameter.empty


@dataclass(frozen=True)
class ParamSig:
    """One parameter as the implementation defines it (None: the source does not say)."""

    name: str
    type: str | None = None
    required: bool | None = None
    has_default: bool = False
    default: Any = None
    source: str = ""


def _type_text(annotation: Any) -> str | None:
    if annotation is _NO_DEFAULT or annotation is Any:
        return None
    if isinstance(annotation, type):
        return annotation.__name__
    text = str(annotation).replace("typing.", "")
    return None if text in ("Any", "inspect._empty") else text


def from_callable(fn: Callable[..., Any], source: str) -> list[ParamSig]:
    """Keyword parameters of a Python function (positional-only ones, like a state handle, skipped)."""
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            continue
        has_default = p.default is not _NO_DEFAULT
        out.append(
            ParamSig(
                name=p.name,
                type=_type_text(p.annotation),
                required=not has_default,
                has_default=has_default,
                default=p.default if has_default else None,
                source=source,
            )
        )
    return out


def from_doc(doc: ToolDoc) -> list[ParamSig]:
    """What the documentation itself says (the fallback source)."""
    return [
        ParamSig(p.name, p.type, p.required, p.has_default, p.default, source="original doc")
        for p in doc.parameters
    ]


def signature(benchmark: Any, tool: str, original: ToolDoc) -> list[ParamSig]:
    """The best available signature of `tool` (implementation first, then the original doc)."""
    hook = getattr(benchmark, "tool_signature", None)
    if callable(hook):
        found = hook(tool)
        if found:
            return [
                ParamSig(**{k: v for k, v in dict(p).items() if k in ParamSig.__annotations__}) for p in found
            ]
    fn_hook = getattr(benchmark, "tool_function", None)
    if callable(fn_hook):
        fn = fn_hook(tool)
        if fn is not None:
            return from_callable(fn, "tool function")
    return from_doc(original)


def error_output_check(benchmark: Any):
    """A predicate telling tool outputs that are really rejections (WorkBench returns them as text).

    A benchmark may define `is_error_output(text) -> bool` (WorkBench does, for
    its validation messages); otherwise outputs starting with "Error" count as errors.
    """
    hook = getattr(benchmark, "is_error_output", None)
    if callable(hook):
        return hook

    def check(text: str | None) -> bool:
        return (text or "").strip().lower().startswith("error")

    return check

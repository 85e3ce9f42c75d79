"""Signatures of a benchmark's tools, read from its implementation where we have one.

The signature synthesiser fills parameter fields (IPN, IPT, DPV, PRF, POF)
from the truth of the implementation rather than from guesses: API-Bank APIs
declare their parameters with a type and a required flag, WorkBench tools are
Python functions with keyword defaults. A user's own benchmark may expose
`tool_signature(tool) -> list[dict]`, or `tool_function(tool) -> callable`;
otherwise the original documentation is the only source.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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


def _apibank(tool: str) -> list[ParamSig] | None:
    try:
        from core.benchmarks.apibank.session import REGISTRY
    except ImportError:  # pragma: no cover - the package is part of the project
        return None
    api = REGISTRY.get(tool)
    if api is None:
        return None
    return [ParamSig(p.name, p.type, p.required, source="api-bank registry") for p in api.params]


def _workbench(tool: str) -> list[ParamSig] | None:
    try:
        from core.benchmarks.workbench.tools.registry import TOOLS
    except ImportError:  # pragma: no cover
        return None
    spec = TOOLS.get(tool)
    if spec is None:
        return None
    # Every WorkBench parameter defaults to None and the function answers
    # "X not provided." itself, so the Python default says nothing about
    # whether the task needs the value: report the default, not a required flag.
    return [
        ParamSig(name, None, None, has_default=True, default=default, source="workbench signature")
        for name, default in spec.params
    ]


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
    name = getattr(benchmark, "name", "")
    found = None
    if name.startswith("api-bank"):
        found = _apibank(tool)
    elif name.startswith("workbench"):
        found = _workbench(tool)
    return found or from_doc(original)


def error_output_check(benchmark: Any):
    """A predicate telling tool outputs that are really rejections (WorkBench returns them as text).

    A benchmark may define `is_error_output(text) -> bool`; WorkBench's known
    validation messages are used for WorkBench; otherwise outputs starting with
    "Error" count as errors.
    """
    hook = getattr(benchmark, "is_error_output", None)
    if callable(hook):
        return hook
    known: frozenset[str] = frozenset()
    if getattr(benchmark, "name", "").startswith("workbench"):
        try:
            from core.benchmarks.workbench.tools.registry import ERROR_MESSAGES

            known = frozenset(ERROR_MESSAGES)
        except ImportError:  # pragma: no cover
            pass

    def check(text: str | None) -> bool:
        t = (text or "").strip()
        return t in known or t.lower().startswith("error")

    return check

"""A Python callable -> ToolDoc, from its signature and its docstring.

The signature is authoritative for what the code enforces (names, required or
not, defaults, annotations); the docstring adds what only prose carries
(descriptions, "optional" marks, returns, examples). Annotations are read as
text and never evaluated.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

from core.docs.model import Param, Return, ToolDoc
from core.docs.parsers.docstring import parse_docstring
from core.docs.parsers.errors import DocParseError

_SKIP_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def annotation_text(annotation: Any) -> str | None:
    """Readable type text for an annotation object or string (None when absent)."""
    if annotation is inspect.Parameter.empty or annotation is inspect.Signature.empty:
        return None
    if isinstance(annotation, str):
        return annotation
    if annotation is None or annotation is type(None):
        return "None"
    if isinstance(annotation, type) and not getattr(annotation, "__args__", None):
        return annotation.__name__
    return repr(annotation).replace("typing.", "")


def json_default(value: Any) -> Any:
    """Defaults must be JSON values to be rendered and stored; others keep their repr."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return repr(value)


def parse_callable(fn: Callable[..., Any], *, tool: str | None = None, domain: str | None = None) -> ToolDoc:
    """Document a callable: TN = its name (or `tool`), PRF from the signature, POF from the docstring.

    `self`/`cls` and `*args`/`**kwargs` are skipped: an agent cannot pass them by name.
    """
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise DocParseError(f"{fn!r}: no inspectable signature ({exc})") from exc
    name = tool or getattr(fn, "__name__", None) or repr(fn)
    parsed = parse_docstring(inspect.getdoc(fn))
    params = []
    for p in sig.parameters.values():
        if p.kind in _SKIP_KINDS or p.name in ("self", "cls"):
            continue
        pdoc = parsed.params.get(p.name)
        has_default = p.default is not inspect.Parameter.empty
        params.append(
            Param(
                name=p.name,
                description=pdoc.description if pdoc else None,
                type=annotation_text(p.annotation) or (pdoc.type if pdoc else None),
                has_default=has_default,
                default=json_default(p.default) if has_default else None,
                required=not has_default,
                optional=True if pdoc and pdoc.optional else None,
            )
        )
    returns = list(parsed.returns)
    rtype = annotation_text(sig.return_annotation)
    if rtype and rtype != "None":
        if returns and not returns[0].type:
            returns[0] = returns[0].model_copy(update={"type": rtype})
        elif not returns:
            returns = [Return(type=rtype)]
    return ToolDoc(
        tool=name,
        name=name,
        description=parsed.description,
        domain=domain,
        parameters=tuple(params),
        returns=tuple(returns),
        examples=tuple(parsed.examples),
    )

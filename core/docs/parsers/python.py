"""A Python callable -> ToolDoc, from its signature and its docstring.

The signature is authoritative for what the code enforces (names, required or
not, defaults, annotations); the docstring adds what only prose carries
(descriptions, "optional" marks, returns, examples). Annotations are read as
text and never evaluated.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class SignatureParam:
    """One parameter as read from a signature, possibly in another process (no live objects).

    `kind` is the `inspect.Parameter` kind's name; `annotation` is its text
    (`annotation_text`); `default` is already a JSON value or a repr string
    (`json_default`).
    """

    name: str
    kind: str
    annotation: str | None = None
    has_default: bool = False
    default: Any = None


_SKIP_KIND_NAMES = {k.name for k in _SKIP_KINDS}


def parse_callable(fn: Callable[..., Any], *, tool: str | None = None, domain: str | None = None) -> ToolDoc:
    """Document a callable: TN = its name (or `tool`), PRF from the signature, POF from the docstring.

    `self`/`cls` and `*args`/`**kwargs` are skipped: an agent cannot pass them by name.
    """
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise DocParseError(f"{fn!r}: no inspectable signature ({exc})") from exc
    name = tool or getattr(fn, "__name__", None) or repr(fn)
    params = [
        SignatureParam(
            p.name,
            p.kind.name,
            annotation_text(p.annotation),
            p.default is not inspect.Parameter.empty,
            json_default(p.default) if p.default is not inspect.Parameter.empty else None,
        )
        for p in sig.parameters.values()
    ]
    return parse_signature(
        name, params, inspect.getdoc(fn), annotation_text(sig.return_annotation), domain=domain
    )


def parse_signature(
    name: str,
    params: Sequence[SignatureParam],
    docstring: str | None,
    returns: str | None = None,
    *,
    domain: str | None = None,
) -> ToolDoc:
    """Document a function from its signature read as data and its docstring (see `parse_callable`).

    Why separate: a user's tools are imported in a worker process
    (core.sandbox), which sends back the signature as data; the doc is built
    here, from the same rules as for a live callable.
    """
    parsed = parse_docstring(docstring)
    out = []
    for p in params:
        if p.kind in _SKIP_KIND_NAMES or p.name in ("self", "cls"):
            continue
        pdoc = parsed.params.get(p.name)
        out.append(
            Param(
                name=p.name,
                description=pdoc.description if pdoc else None,
                type=p.annotation or (pdoc.type if pdoc else None),
                has_default=p.has_default,
                default=p.default if p.has_default else None,
                required=not p.has_default,
                optional=True if pdoc and pdoc.optional else None,
            )
        )
    doc_returns = list(parsed.returns)
    if returns and returns != "None":
        if doc_returns and not doc_returns[0].type:
            doc_returns[0] = doc_returns[0].model_copy(update={"type": returns})
        elif not doc_returns:
            doc_returns = [Return(type=returns)]
    return ToolDoc(
        tool=name,
        name=name,
        description=parsed.description,
        domain=domain,
        parameters=tuple(out),
        returns=tuple(doc_returns),
        examples=tuple(parsed.examples),
    )

"""API-Bank call text: `API-Request: [ApiName(key='value', ...)]`.

Extraction keeps the upstream first-match rule (SPEC 4.4 step 1). Parsing uses
a real parser (4.5): the call is parsed with `ast` through `parse_call` (never
evaluated); when it is not valid Python (an unescaped apostrophe, a quoted
list such as `health_data='[{'name': ...}]'`) the argument text is split at
`<known parameter>=` boundaries and one pair of outer quotes is stripped.
List-typed values are then parsed as literals.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

from core.benchmarks.base import Call, CallParseError, parse_call

_REQUEST = re.compile(r"\[(\w+)\((.*)\)\]")
LIST_TYPES = ("list", "list(str)", "dict")


def extract_request(text: str) -> tuple[str, str]:
    """The API name and argument text of the first `[Name(...)]` on one line."""
    for line in (text or "").splitlines():
        m = _REQUEST.search(line)
        if m:
            return m.group(1), m.group(2)
    raise CallParseError(f"no API request of the form [ApiName(key='value')] in {text!r}")


def parse_api_request(text: str, param_types: Mapping[str, Mapping[str, str]] | None = None) -> Call:
    """Parse call text into a Call; `param_types` maps API -> parameter -> declared type.

    Raises CallParseError (never anything else) for text that holds no usable call.
    """
    name, inner = extract_request(text)
    types = dict((param_types or {}).get(name, {}))
    try:
        call = parse_call(f"{name}({inner})")
    except (CallParseError, ValueError, RecursionError, MemoryError) as exc:
        if not types:
            raise CallParseError(f"cannot parse {name}({inner}): {exc}") from exc
        call = Call(name, _split_arguments(inner, list(types)))
    args = {k: _typed(v, types.get(k)) for k, v in call.args.items()}
    return Call(call.tool, args)


def _split_arguments(inner: str, names: list[str]) -> dict[str, Any]:
    """Split `a='x', b='y'` at known parameter names, tolerating unescaped quotes."""
    pattern = re.compile(r"(?:^|,)\s*(" + "|".join(re.escape(n) for n in names) + r")\s*=")
    marks = list(pattern.finditer(inner))
    if not marks or inner[: marks[0].start()].strip():
        raise CallParseError(f"cannot read the arguments {inner!r}")
    out: dict[str, Any] = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(inner)
        out[m.group(1)] = _unquote(inner[m.end() : end].strip())
    return out


def _unquote(raw: str) -> Any:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return raw


def _typed(value: Any, declared: str | None) -> Any:
    if declared in LIST_TYPES and isinstance(value, str):
        try:
            return ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return value
    return value


def render_request(api_name: str, param_dict: Mapping[str, Any]) -> str:
    """Upstream text form: values as text in single quotes, not escaped (SPEC 4.3)."""
    inner = ", ".join(f"{k}='{v}'" for k, v in param_dict.items())
    return f"API-Request: [{api_name}({inner})]"

"""The Calculator API's arithmetic (SPEC.md 3.4), quirks included.

The upstream evaluator is deliberately reproduced: only integers, the first
`(` is paired with the first `)` (so nested parentheses fail with
`')' is not in list`), `*`/`/` then `+`/`-` left to right, and Python's own
error texts for division by zero and `**`. The one deviation: a unary minus
makes upstream loop forever, here it is rejected as `invalid formula` (B7).
"""

from __future__ import annotations

import re
from typing import Any

from core.benchmarks.apibank.common import ApiError

INVALID = "invalid formula"
_ALLOWED = re.compile(r"[0-9+\-*/()]*")
_TOKENS = re.compile(r"\d+|.")
_OPS = "+-*/"


def calculate(formula: Any) -> float:
    text = formula.replace(" ", "")
    if not _valid(text):
        raise ApiError(INVALID)
    tokens: list[Any] = [float(t) if t.isdigit() else t for t in _TOKENS.findall(text)]
    for i, tok in enumerate(tokens):
        if tok == "-" and (i == 0 or tokens[i - 1] in ("+", "-", "*", "/", "(")):
            raise ApiError(INVALID)  # unary minus: upstream hangs (B7)
    return _evaluate(tokens)


def _valid(text: str) -> bool:
    if not text or not _ALLOWED.fullmatch(text):
        return False
    if text.count("(") != text.count(")"):
        return False
    operators = sum(text.count(op) for op in _OPS)
    return operators > 0 and operators + 1 != len(text)


def _is(tok: Any, *symbols: str) -> bool:
    return isinstance(tok, str) and tok in symbols


def _evaluate(tokens: list[Any]) -> Any:
    tokens = list(tokens)
    while "(" in tokens:
        start = tokens.index("(")
        end = tokens.index(")")  # ValueError "')' is not in list" for nested parentheses
        if end < start:
            raise ApiError(INVALID)
        tokens[start : end + 1] = [_evaluate(tokens[start + 1 : end])]
    for symbols in (("*", "/"), ("+", "-")):
        i = _first(tokens, symbols)
        while i is not None:
            if i == 0:
                raise ApiError(INVALID)
            left, right = tokens[i - 1], tokens[i + 1]
            if tokens[i] == "*":
                value = left * right
            elif tokens[i] == "/":
                value = left / right
            elif tokens[i] == "+":
                value = left + right
            else:
                value = left - right
            tokens[i - 1 : i + 2] = [value]
            i = _first(tokens, symbols)
    return tokens[0]


def _first(tokens: list[Any], symbols: tuple[str, ...]) -> int | None:
    return next((i for i, t in enumerate(tokens) if _is(t, *symbols)), None)

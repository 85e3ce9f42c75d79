"""Check the shape of generated SOP code with `ast` — in the main process, without running it.

    shape = validate(source, known_tools={"email.send_email", ...})
    shape.function, shape.params, shape.uses

An SOP is a module with at most a docstring, imports from a short allow-list,
and exactly one function. Inside it: ordinary statements (assignments, if,
for, while, try, return, raise), calls of names it defined, its parameters,
safe builtins, the allowed modules, and the tool API (`tools.call("a.tool",
...)` with the tool named by a string literal, `tools.pick(...)`, ...). No
nested functions or classes, no global state, no attribute or name that
starts with an underscore, no bare `except:` (it would swallow the worker's
limits). Anything else is refused with a message saying what, which the LLM
constructor feeds back to the model.

This is the first of two fences: the code then runs only in the worker
(`core.sop.worker`), under limits. Passing validation says the code has an
allowed shape, not that it is safe or correct.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.sop.worker import ALLOWED_MODULES, SAFE_BUILTINS

MAX_CHARS = 12_000
TOOL_METHODS = frozenset({"call", "failed", "empty", "parse", "pick", "pick_all"})
EXCEPTIONS = frozenset(
    n
    for n in dir(builtins)
    if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException)
)
BUILTIN_NAMES = frozenset(SAFE_BUILTINS) | EXCEPTIONS | {"print"}
_FORBIDDEN_NODES = (
    ast.Global,
    ast.Nonlocal,
    ast.ClassDef,
    ast.AsyncFunctionDef,
    ast.FunctionDef,
    ast.Lambda,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
    ast.With,
    ast.AsyncWith,
    ast.AsyncFor,
    ast.Import,
    ast.ImportFrom,
    ast.Starred,
)


class SopCodeError(ValueError):
    """Generated code whose shape is not allowed (the message says why)."""


@dataclass(frozen=True)
class Param:
    name: str
    has_default: bool = False
    default: Any = None


@dataclass(frozen=True)
class Shape:
    """What validation learnt: the function, its parameters, and the atomic tools it calls in order."""

    function: str
    params: tuple[Param, ...]
    uses: tuple[str, ...]
    docstring: str | None


def validate(source: str, known_tools: Iterable[str] | None = None) -> Shape:
    """The shape of `source`, or SopCodeError. `known_tools` limits which tools it may call."""
    if len(source) > MAX_CHARS:
        raise SopCodeError(f"the code is {len(source)} characters long; at most {MAX_CHARS} are allowed")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise SopCodeError(f"syntax error on line {exc.lineno}: {exc.msg}") from exc
    body = list(tree.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]
    imported: set[str] = set()
    functions = []
    for node in body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                _check_module(alias.name)
                imported.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module:
                raise SopCodeError("relative imports are not allowed")
            _check_module(node.module)
            for alias in node.names:
                if alias.name == "*":
                    raise SopCodeError("`from ... import *` is not allowed")
                imported.add(alias.asname or alias.name)
        elif isinstance(node, ast.FunctionDef):
            functions.append(node)
        else:
            raise SopCodeError(
                f"line {node.lineno}: only imports and one function may appear at the top level, "
                f"not {type(node).__name__}"
            )
    if len(functions) != 1:
        raise SopCodeError(f"the code must define exactly one function, not {len(functions)}")
    fn = functions[0]
    if fn.decorator_list:
        raise SopCodeError("the function may not have decorators")
    params = _params(fn)
    known = set(known_tools) if known_tools is not None else None
    uses = _check_body(fn, {p.name for p in params}, imported, known)
    return Shape(fn.name, params, tuple(uses), ast.get_docstring(fn))


def _check_module(name: str) -> None:
    if name.split(".")[0] not in ALLOWED_MODULES:
        raise SopCodeError(
            f"import of {name!r} is not allowed; allowed: {', '.join(sorted(ALLOWED_MODULES))}"
        )


def _params(fn: ast.FunctionDef) -> tuple[Param, ...]:
    a = fn.args
    if a.vararg or a.kwarg or a.posonlyargs:
        raise SopCodeError("the function takes named parameters only (no *args, **kwargs or positional-only)")
    out: list[Param] = []
    positional = list(a.args)
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    pairs = list(zip(positional, defaults, strict=True)) + list(zip(a.kwonlyargs, a.kw_defaults, strict=True))
    for arg, default in pairs:
        if arg.arg.startswith("_") or arg.arg in ("tools", "ToolFailed"):
            raise SopCodeError(f"parameter name {arg.arg!r} is not allowed")
        if default is None:
            out.append(Param(arg.arg))
            continue
        try:
            value = ast.literal_eval(default)
        except ValueError as exc:
            raise SopCodeError(f"the default of {arg.arg!r} must be a literal") from exc
        out.append(Param(arg.arg, True, value))
    return tuple(out)


def _assigned(fn: ast.FunctionDef) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _check_body(
    fn: ast.FunctionDef, params: set[str], imported: set[str], known: set[str] | None
) -> list[str]:
    defined = params | _assigned(fn) | imported | BUILTIN_NAMES | {"tools", "ToolFailed"}
    uses: list[str] = []
    for stmt in fn.body:
        for node in ast.walk(stmt):
            line = getattr(node, "lineno", fn.lineno)
            if isinstance(node, _FORBIDDEN_NODES):
                raise SopCodeError(f"line {line}: {type(node).__name__} is not allowed inside an SOP")
            if isinstance(node, ast.Name):
                if node.id.startswith("_"):
                    raise SopCodeError(f"line {line}: names starting with '_' are not allowed ({node.id})")
                if isinstance(node.ctx, ast.Load) and node.id not in defined:
                    raise SopCodeError(f"line {line}: unknown name {node.id!r}")
                if isinstance(node.ctx, ast.Store) and node.id in ("tools", "ToolFailed"):
                    raise SopCodeError(f"line {line}: {node.id!r} may not be reassigned")
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                raise SopCodeError(f"line {line}: attributes starting with '_' are not allowed ({node.attr})")
            elif isinstance(node, ast.ExceptHandler):
                caught = ast.unparse(node.type) if node.type is not None else ""
                if not caught or "BaseException" in caught:
                    raise SopCodeError(
                        f"line {line}: catch specific exceptions (not bare except / BaseException)"
                    )
            elif isinstance(node, ast.Call):
                tool = _tool_call(node, line, known)
                if tool is not None:
                    uses.append(tool)
    if not uses:
        raise SopCodeError('the function calls no tool (`tools.call("a.tool", ...)`)')
    return uses


def _tool_call(node: ast.Call, line: int, known: set[str] | None) -> str | None:
    """The tool of a `tools.call("x", ...)`; checks the other `tools.*` methods; None for other calls."""
    func = node.func
    if not (
        isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "tools"
    ):
        return None
    if func.attr not in TOOL_METHODS:
        raise SopCodeError(
            f"line {line}: tools.{func.attr} does not exist; use one of {sorted(TOOL_METHODS)}"
        )
    if func.attr != "call":
        return None
    first = node.args[0] if node.args else None
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)) or len(node.args) != 1:
        raise SopCodeError(
            f"line {line}: tools.call takes the tool name as a string literal, then keyword arguments only"
        )
    if any(kw.arg is None for kw in node.keywords):
        raise SopCodeError(f"line {line}: tools.call does not accept **kwargs")
    if known is not None and first.value not in known:
        raise SopCodeError(f"line {line}: {first.value!r} is not an atomic tool of this benchmark")
    return first.value

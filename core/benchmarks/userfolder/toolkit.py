"""The tools of a user's folder: functions from `tools.py`, docs from docstrings or tool JSON.

Importing `tools.py` runs the user's own code — that is the point: the tools
are theirs and the benchmark executes them. Everything else in the folder is
data and is only parsed. Each public function of the module (or each name in
its `__all__`) is a tool named after the function; its documentation is parsed
from the signature and docstring, unless a file in `tools/` (OpenAI or MCP tool
JSON) documents it, in which case that file is the documentation and the
function is only the implementation.

A parameter named like the manifest's `state_param` (default `state`) is not
an argument for the agent: the sandbox passes the episode's state there, and
the parameter is hidden from the documentation.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from core.benchmarks.userfolder.errors import Problems
from core.docs import DocParseError, ToolDoc, load_docs, parse_callable

TOOLS_MODULE = "tools.py"
TOOLS_DIR = "tools"
DOC_SUFFIXES = (".json", ".jsonl")
MODULE_PREFIX = "docschisel_user_tools_"


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its implementation, what its signature accepts, and its documentation."""

    name: str
    fn: Callable[..., Any]
    params: tuple[str, ...]  # names the agent may pass, in signature order
    required: tuple[str, ...]
    defaults: Mapping[str, Any]
    takes_state: bool
    state_param: str
    var_kwargs: bool
    doc: ToolDoc
    doc_source: str  # "tools.py" or the tool JSON file that documents it
    line: int | None = None  # where the function is defined in tools.py

    def arg_problem(self, args: Mapping[str, Any]) -> str | None:
        """Why a call with `args` cannot run, in one message (None when it can)."""
        parts = []
        if self.takes_state and self.state_param in args:
            parts.append(f"{self.state_param!r} is supplied by the benchmark, it is not an argument")
        unknown = [k for k in args if k not in self.params and k != self.state_param]
        if unknown and not self.var_kwargs:
            parts.append(f"unexpected argument(s) {', '.join(unknown)}")
        missing = [p for p in self.required if p not in args]
        if missing:
            parts.append(f"missing required argument(s) {', '.join(missing)}")
        if not parts:
            return None
        return f"{self.name}(): {'; '.join(parts)} (its parameters are: {', '.join(self.params) or 'none'})"

    def normalise(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Arguments with defaults filled in, so `f(x=1)` and `f(x=1, unit="m")` compare equal."""
        return {**self.defaults, **{k: v for k, v in args.items() if k != self.state_param}}

    def invoke(self, args: Mapping[str, Any], state: dict[str, Any]) -> Any:
        """Call the function; the arguments are copied so the tool cannot alter the recorded call."""
        kwargs = copy.deepcopy(dict(args))
        if self.takes_state:
            kwargs[self.state_param] = state
        return self.fn(**kwargs)


@dataclass
class Toolkit:
    """Every tool of a folder, in definition order."""

    tools: dict[str, ToolSpec] = field(default_factory=dict)

    def names(self) -> list[str]:
        return list(self.tools)


def import_module(folder: Path, problems: Problems) -> ModuleType | None:
    """Import the folder's `tools.py` under a private, content-addressed module name."""
    path = folder / TOOLS_MODULE
    try:
        source = path.read_bytes()
    except OSError as exc:
        problems.add(TOOLS_MODULE, f"cannot read ({exc})")
        return None
    digest = hashlib.sha256(str(path.resolve()).encode() + b"\0" + source).hexdigest()[:12]
    name = f"{MODULE_PREFIX}{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        problems.add(TOOLS_MODULE, "cannot be imported as a Python module")
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling inside the user's module look it up
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        problems.add(TOOLS_MODULE, f"syntax error: {exc.msg}", exc.lineno)
        return None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - any import failure of user code is a load error
        sys.modules.pop(name, None)
        line = next(
            (f.lineno for f in reversed(traceback.extract_tb(exc.__traceback__)) if f.filename == str(path)),
            None,
        )
        problems.add(TOOLS_MODULE, f"importing the module failed: {type(exc).__name__}: {exc}", line)
        return None
    return module


def public_functions(module: ModuleType, problems: Problems) -> dict[str, Callable[..., Any]]:
    """The module's tools: names in `__all__`, else public functions defined in the module itself."""
    exported = getattr(module, "__all__", None)
    if exported is not None:
        if not isinstance(exported, list | tuple) or not all(isinstance(n, str) for n in exported):
            problems.add(TOOLS_MODULE, "__all__ must be a list of function names")
            return {}
        out: dict[str, Callable[..., Any]] = {}
        for n in exported:
            obj = getattr(module, n, None)
            if not inspect.isfunction(obj):
                problems.add(
                    TOOLS_MODULE, f"__all__ names {n!r}, which is not a function defined in the module"
                )
            else:
                out[n] = obj
        return out
    return {
        n: obj
        for n, obj in vars(module).items()
        if not n.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__
    }


def build_spec(name: str, fn: Callable[..., Any], state_param: str, problems: Problems) -> ToolSpec | None:
    """A ToolSpec from a function's signature and docstring (docs may be replaced by tool JSON later)."""
    line = getattr(getattr(fn, "__code__", None), "co_firstlineno", None)
    sig = inspect.signature(fn)
    params: list[str] = []
    required: list[str] = []
    defaults: dict[str, Any] = {}
    takes_state = var_kwargs = False
    for p in sig.parameters.values():
        if p.kind is p.POSITIONAL_ONLY:
            problems.add(
                TOOLS_MODULE, f"{name}(): positional-only parameter {p.name!r}; tools take keywords", line
            )
            return None
        if p.kind is p.VAR_KEYWORD:
            var_kwargs = True
            continue
        if p.kind is p.VAR_POSITIONAL:
            continue
        if p.name == state_param:
            takes_state = True
            continue
        params.append(p.name)
        if p.default is p.empty:
            required.append(p.name)
        else:
            defaults[p.name] = p.default
    try:
        doc = parse_callable(fn, tool=name)
    except DocParseError as exc:
        problems.add(TOOLS_MODULE, f"{name}(): cannot read its documentation ({exc})", line)
        return None
    doc = doc.model_copy(update={"parameters": tuple(p for p in doc.parameters if p.name != state_param)})
    return ToolSpec(
        name,
        fn,
        tuple(params),
        tuple(required),
        defaults,
        takes_state,
        state_param,
        var_kwargs,
        doc,
        TOOLS_MODULE,
        line,
    )


def read_json_docs(folder: Path, problems: Problems) -> list[tuple[str, ToolDoc]]:
    """(file, doc) for every tool documented in `tools/*.json` / `*.jsonl` (OpenAI, MCP, ToolDoc JSON)."""
    root = folder / TOOLS_DIR
    if not root.exists():
        return []
    if not root.is_dir():
        problems.add(TOOLS_DIR, "must be a folder of tool JSON files")
        return []
    out: list[tuple[str, ToolDoc]] = []
    for path in sorted(root.iterdir()):
        rel = f"{TOOLS_DIR}/{path.name}"
        if path.name.startswith("."):
            continue
        if not path.is_file() or path.suffix.lower() not in DOC_SUFFIXES:
            problems.add(rel, "unsupported file: tools/ holds only .json / .jsonl tool definitions")
            continue
        try:
            docs = load_docs(path)
        except DocParseError as exc:
            problems.add(rel, _strip_where(str(exc), exc), exc.line)
            continue
        if not docs:
            problems.add(rel, "declares no tools")
        out.extend((rel, d) for d in docs)
    return out


def _strip_where(message: str, exc: DocParseError) -> str:
    """The parser's message without its `file:line: ` head (our Problem prints the place)."""
    for head in (f"{exc.file}:{exc.line}: ", f"{exc.file}: "):
        if exc.file and message.startswith(head):
            return message[len(head) :]
    return message


def apply_json_docs(toolkit: Toolkit, docs: list[tuple[str, ToolDoc]], problems: Problems) -> None:
    """Make each JSON doc the documentation of its function, after checking they agree."""
    documented: dict[str, str] = {}
    for rel, doc in docs:
        spec = toolkit.tools.get(doc.tool)
        if spec is None:
            known = ", ".join(toolkit.names()) or "none"
            problems.add(
                rel,
                f"tool {doc.tool!r} has no implementation: tools.py defines no public function "
                f"{doc.tool!r} (its tools: {known})",
            )
            continue
        if doc.tool in documented:
            problems.add(rel, f"tool {doc.tool!r} is already documented in {documented[doc.tool]}")
            continue
        documented[doc.tool] = rel
        names = [p.name for p in doc.parameters]
        if spec.takes_state and spec.state_param in names:
            problems.add(
                rel, f"{doc.tool}: parameter {spec.state_param!r} is supplied by the benchmark; remove it"
            )
            continue
        extra = [n for n in names if n not in spec.params]
        if extra and not spec.var_kwargs:
            problems.add(
                rel,
                f"{doc.tool}: documents parameter(s) {', '.join(extra)} that the function does not accept "
                f"(its parameters: {', '.join(spec.params) or 'none'})",
            )
            continue
        missing = [n for n in spec.required if n not in names]
        if missing:
            problems.add(
                rel,
                f"{doc.tool}: the function requires {', '.join(missing)}, which this file does not document",
            )
            continue
        toolkit.tools[doc.tool] = replace(spec, doc=doc, doc_source=rel)


def load_toolkit(folder: Path, state_param: str, problems: Problems) -> Toolkit | None:
    """Import tools.py and attach documentation; None when the tools cannot be used at all."""
    module = import_module(folder, problems)
    if module is None:
        return None
    functions = public_functions(module, problems)
    if not functions and not problems:
        problems.add(
            TOOLS_MODULE,
            "defines no tools: every public function (name not starting with _) of tools.py is a tool",
        )
        return None
    toolkit = Toolkit()
    for name, fn in functions.items():
        spec = build_spec(name, fn, state_param, problems)
        if spec is not None:
            toolkit.tools[name] = spec
    apply_json_docs(toolkit, read_json_docs(folder, problems), problems)
    return toolkit

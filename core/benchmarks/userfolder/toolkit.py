"""The tools of a user's folder: functions from `tools.py`, docs from docstrings or tool JSON.

`tools.py` is the user's own code, and it never runs in our process: it is
imported in a worker process (core.sandbox), which reports each function's
signature and docstring as data and later runs the calls, one at a time, with
a timeout. Everything else in the folder is data and is only parsed. Each
public function of the module (or each name in its `__all__`) is a tool named
after the function; its documentation is parsed from the signature and
docstring, unless a file in `tools/` (OpenAI or MCP tool JSON) documents it, in
which case that file is the documentation and the function is only the
implementation.

A parameter named like the manifest's `state_param` (default `state`) is not
an argument for the agent: the sandbox passes the episode's state there, and
the parameter is hidden from the documentation.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from core.benchmarks.userfolder.errors import Problems
from core.benchmarks.userfolder.files import read_text
from core.docs import DocParseError, ToolDoc, load_docs
from core.docs.parsers.python import SignatureParam, parse_signature
from core.sandbox import FunctionInfo, ImportFailure, Limits, Pool, Reply, WorkerUnavailable

TOOLS_MODULE = "tools.py"
TOOLS_DIR = "tools"
DOC_SUFFIXES = (".json", ".jsonl")
MODULE_PREFIX = "docschisel_user_tools_"


@dataclass(frozen=True)
class ToolSpec:
    """One tool: what its signature accepts and its documentation (the code stays in the worker)."""

    name: str
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


@dataclass
class Toolkit:
    """Every tool of a folder, in definition order, and the workers that run them."""

    tools: dict[str, ToolSpec] = field(default_factory=dict)
    pool: Pool | None = None

    def names(self) -> list[str]:
        return list(self.tools)

    def invoke(
        self, spec: ToolSpec, args: Mapping[str, Any], state: Any, *, timeout_s: float | None = None
    ) -> Reply:
        """Run one call in a worker. Raises core.sandbox's ToolRaised / ToolFailure / WorkerUnavailable."""
        if self.pool is None:
            raise WorkerUnavailable("the tools of this benchmark were not loaded")
        return self.pool.call(
            spec.name,
            dict(args),
            state=state if spec.takes_state else None,
            state_param=spec.state_param if spec.takes_state else None,
            timeout_s=timeout_s,
        )

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


def read_source(folder: Path, problems: Problems) -> str | None:
    """tools.py as text; unreadable files and invalid UTF-8 are problems with their line."""
    return read_text(folder, TOOLS_MODULE, problems)


def start_tools(
    folder: Path, source: str, problems: Problems, limits: Limits | None
) -> tuple[Pool, list[FunctionInfo]] | None:
    """Import tools.py in a worker; import failures (syntax, exceptions, exits, hangs) are problems."""
    size = max(1, int(os.environ.get("DOCSCHISEL_TOOL_WORKERS", "") or 4))
    pool = Pool(
        source,
        str((folder / TOOLS_MODULE).absolute()),
        size=size,
        limits=limits,
        module=f"{MODULE_PREFIX}module",
        cwd=folder.absolute(),
    )
    try:
        info = pool.start()
    except ImportFailure as exc:
        pool.close()
        if exc.kind == "SyntaxError":
            problems.add(TOOLS_MODULE, f"syntax error: {str(exc).removeprefix('SyntaxError: ')}", exc.line)
        else:
            problems.add(TOOLS_MODULE, f"importing the module failed: {exc}", exc.line)
        return None
    except WorkerUnavailable as exc:
        pool.close()
        problems.add(TOOLS_MODULE, str(exc))
        return None
    for message in info.problems:
        problems.add(TOOLS_MODULE, message)
    return pool, list(info.functions)


def build_spec(info: FunctionInfo, state_param: str, problems: Problems) -> ToolSpec | None:
    """A ToolSpec from a function's signature and docstring (docs may be replaced by tool JSON later)."""
    name, line = info.name, info.line
    if info.signature_error:
        problems.add(TOOLS_MODULE, f"{name}(): no readable signature ({info.signature_error})", line)
        return None
    params: list[str] = []
    required: list[str] = []
    defaults: dict[str, Any] = {}
    takes_state = var_kwargs = False
    for p in info.params:
        if p.kind == "POSITIONAL_ONLY":
            problems.add(
                TOOLS_MODULE, f"{name}(): positional-only parameter {p.name!r}; tools take keywords", line
            )
            return None
        if p.kind == "VAR_KEYWORD":
            var_kwargs = True
            continue
        if p.kind == "VAR_POSITIONAL":
            continue
        if p.name == state_param:
            takes_state = True
            continue
        params.append(p.name)
        if not p.has_default:
            required.append(p.name)
        else:
            defaults[p.name] = p.default
    signature = [
        SignatureParam(p.name, p.kind, p.annotation, p.has_default, p.default)
        for p in info.params
        if p.name != state_param
    ]
    try:
        doc = parse_signature(name, signature, info.doc, info.returns)
    except DocParseError as exc:
        problems.add(TOOLS_MODULE, f"{name}(): cannot read its documentation ({exc})", line)
        return None
    return ToolSpec(
        name,
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


def load_toolkit(
    folder: Path, state_param: str, problems: Problems, limits: Limits | None = None
) -> Toolkit | None:
    """Import tools.py in a worker and attach documentation; None when the tools cannot be used at all."""
    source = read_source(folder, problems)
    if source is None:
        return None
    started = start_tools(folder, source, problems, limits)
    if started is None:
        return None
    pool, functions = started
    if not functions and not problems:
        problems.add(
            TOOLS_MODULE,
            "defines no tools: every public function (name not starting with _) of tools.py is a tool",
        )
    if not functions:
        pool.close()
        return None
    toolkit = Toolkit(pool=pool)
    for info in functions:
        spec = build_spec(info, state_param, problems)
        if spec is not None:
            toolkit.tools[info.name] = spec
    apply_json_docs(toolkit, read_json_docs(folder, problems), problems)
    if problems or not toolkit.tools:
        toolkit.close()
        return None if not toolkit.tools else toolkit
    return toolkit

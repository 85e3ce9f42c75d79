"""Read tool documentation from any supported source into ToolDocs.

Formats: OpenAI tool schemas (and BFCL function definitions, with their
`response` schema), BFCL rows (`{"id", "question", "function": [...]}`), MCP
tool definitions, OpenAPI 3 specs (one doc per operation), ToolAlpaca tool
entries, Python callables (signature + numpy/Google/reST docstring), WorkBench
`tools.json`, API-Bank `api_docs.json`, EasyTool/DRAFT `tool_guidelines`
files, our own ToolDoc / DocSet JSON, and our rendered text. `load_docs`
detects the format of a file (JSON, JSON lines whatever the file is named,
YAML, or text) or of every JSON/YAML file in a folder. Every failure is a `DocParseError`
naming the file, the line when there is one, and the key.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.docs.model import ToolDoc
from core.docs.parsers.datasets import (
    disambiguate_api_bank,
    parse_api_bank_api,
    parse_native,
    parse_tool_guidelines,
    parse_workbench_tool,
)
from core.docs.parsers.docstring import ParamDoc, ParsedDocstring, parse_docstring
from core.docs.parsers.errors import DocParseError, Where
from core.docs.parsers.openapi import is_openapi, parse_openapi, parse_toolalpaca
from core.docs.parsers.python import parse_callable
from core.docs.parsers.rendered import parse_text
from core.docs.parsers.schema import parse_mcp, parse_openai
from core.docs.parsers.sections import LABELS
from core.docs.parsers.yamlfile import YAML_SUFFIXES, load_yaml
from core.safeio import InputError, decode_utf8, loads_json

__all__ = [
    "FORMATS",
    "DocParseError",
    "ParamDoc",
    "ParsedDocstring",
    "Where",
    "detect_format",
    "load_docs",
    "load_workbench_tools",
    "parse_api_bank_api",
    "parse_callable",
    "parse_docstring",
    "parse_json",
    "parse_mcp",
    "parse_native",
    "parse_openai",
    "parse_openapi",
    "parse_text",
    "parse_tool_guidelines",
    "parse_workbench_tool",
]

_NATIVE_KEYS = frozenset(ToolDoc.model_fields)
# One tool per file, as plain text or our labelled text, named by the file unless the text names it.
TEXT_SUFFIXES = (".txt", ".md")
# Keys only an MCP tool definition has (and the usual misspellings of its inputSchema).
_MCP_ONLY = frozenset({"outputSchema", "annotations", "input_schema", "inputschema", "InputSchema"})

# format name -> (human label, reader of one item into ToolDocs)
FORMATS: dict[str, tuple[str, Callable[[Any, Where], list[ToolDoc]]]] = {
    "openai": ("OpenAI tool schema", lambda o, w: [parse_openai(o, where=w)]),
    "mcp": ("MCP tool definition", lambda o, w: [parse_mcp(o, where=w)]),
    "workbench": ("WorkBench tool", lambda o, w: [parse_workbench_tool(o, w)]),
    "api-bank": ("API-Bank API descriptor", lambda o, w: [parse_api_bank_api(o, w)]),
    "tool-guidelines": ("EasyTool/DRAFT tool_guidelines entry", parse_tool_guidelines),
    "tooldoc": ("ToolDoc JSON", lambda o, w: [parse_native(o, w)]),
    "openapi": ("OpenAPI 3 spec", parse_openapi),
    "toolalpaca": ("ToolAlpaca tool entry", parse_toolalpaca),
    "bfcl": ("BFCL row", lambda o, w: _bfcl_row(o, w)),
}


def _bfcl_row(row: dict[str, Any], where: Where) -> list[ToolDoc]:
    """The function definitions of one BFCL row; its question and id are not documentation."""
    functions = where.require(row, "function", list)
    return [parse_openai(fn, where=where.key("function").index(i)) for i, fn in enumerate(functions)]


def detect_format(item: Any) -> str | None:
    """The format name of one documentation object, or None."""
    if not isinstance(item, dict):
        return None
    if "tool_guidelines" in item:
        return "tool-guidelines"
    if is_openapi(item):
        return "openapi"
    if "Documentation" in item and "Name" in item:
        return "toolalpaca"
    if isinstance(item.get("function"), list):
        return "bfcl"
    if item.get("type") == "function" and "function" in item:
        return "openai"
    if "inputSchema" in item or _MCP_ONLY & set(item):
        return "mcp"  # parse_mcp insists on inputSchema, so a misspelt one is an error, not OpenAI
    if "docstring" in item:
        return "workbench"
    if "input_parameters" in item or "output_parameters" in item:
        return "api-bank"
    if "tool" in item and set(item) <= _NATIVE_KEYS:
        return "tooldoc"
    if "name" in item and ("parameters" in item or "description" in item):
        return "openai"
    return None


def _unknown(item: Any, where: Where) -> DocParseError:
    kinds = ", ".join(label for label, _ in FORMATS.values())
    if isinstance(item, dict):
        keys = ", ".join(sorted(map(str, item))[:8]) or "none"
        return where.error(f"unknown documentation format (keys: {keys}); expected one of: {kinds}")
    return where.error(f"unknown documentation format ({type(item).__name__}); expected one of: {kinds}")


def _parse_items(items: list[Any], where: Where) -> list[ToolDoc]:
    docs: list[ToolDoc] = []
    api_bank_items: list[Any] = []
    api_bank_docs: list[ToolDoc] = []
    for i, item in enumerate(items):
        w = where.index(i)
        fmt = detect_format(item)
        if fmt is None:
            raise _unknown(item, w)
        parsed = FORMATS[fmt][1](item, w)
        if fmt == "api-bank":
            api_bank_items.append(item)
            api_bank_docs.extend(parsed)
        docs.extend(parsed)
    if api_bank_docs:
        fixed = dict(
            zip(map(id, api_bank_docs), disambiguate_api_bank(api_bank_docs, api_bank_items), strict=True)
        )
        docs = [fixed.get(id(d), d) for d in docs]
    return docs


def parse_json(obj: Any, where: Where | None = None) -> list[ToolDoc]:
    """ToolDocs from a decoded JSON value: one doc object, a list of them, or a container.

    Containers: `{"tools": [...]}` (WorkBench tools.json, a DocSet, an OpenAI
    request's tool list) and EasyTool/DRAFT files keyed by tool ID.
    """
    where = where or Where()
    if isinstance(obj, list):
        return _parse_items(obj, where)
    if not isinstance(obj, dict):
        raise _unknown(obj, where)
    fmt = detect_format(obj)
    if fmt is not None:
        return FORMATS[fmt][1](obj, where)
    if isinstance(obj.get("tools"), list):
        return _parse_items(obj["tools"], where.key("tools"))
    if obj and all(isinstance(v, dict) and "tool_guidelines" in v for v in obj.values()):
        return [d for k, v in obj.items() for d in parse_tool_guidelines(v, where.key(str(k)))]
    if "tools" in obj:
        where.check(obj["tools"], list, "tools")
    raise _unknown(obj, where)


def _read_file(path: Path) -> list[ToolDoc]:
    """Docs of one file; malformed text (bad UTF-8, bad or too deeply nested JSON) names its line.

    A file with no documentation in it is an error, not an empty doc set, and
    a definition repeated verbatim (BFCL rows share functions) is read once.
    """
    name = str(path)
    try:
        text = decode_utf8(path.read_bytes())
    except OSError as exc:
        raise DocParseError(f"{name}: cannot read ({exc})", file=name) from exc
    except InputError as exc:
        raise Where(file=name, line=exc.line).error(exc.message) from None
    if not text.strip():
        raise Where(file=name).error("the file is empty; expected tool documentation")
    if path.suffix.lower() in TEXT_SUFFIXES:
        return [parse_text(text, tool=None if _names_itself(text) else path.stem, source=name)]
    if path.suffix.lower() == ".jsonl":
        docs = _read_lines(text, name)
    elif path.suffix.lower() in YAML_SUFFIXES:
        docs = parse_json(load_yaml(text, name), Where(file=name))
    else:
        try:
            obj = loads_json(text)
        except InputError as exc:
            if not _is_json_lines(text):
                raise Where(file=name, line=exc.line).error(exc.message) from None
            docs = _read_lines(text, name)
        else:
            docs = parse_json(obj, Where(file=name))
    if not docs:
        raise Where(file=name).error("no tool documentation in this file")
    unique = {d.canonical_json(): d for d in reversed(docs)}
    return [d for d in docs if unique.get(d.canonical_json()) is d]


def _names_itself(text: str) -> bool:
    """Whether our labelled text names its tool (else a text file's stem does)."""
    first = next(ln for ln in text.split("\n") if ln.strip())
    return first.startswith((f"{LABELS['TN']}:", f"{LABELS['ALIAS']}:"))


def _is_json_lines(text: str) -> bool:
    """Whether a file that is not one JSON value is JSON lines (its first line is a whole object)."""
    first = next((ln for ln in text.split("\n") if ln.strip()), "")
    try:
        return isinstance(loads_json(first), dict) and len([ln for ln in text.split("\n") if ln.strip()]) > 1
    except InputError:
        return False


def _read_lines(text: str, name: str) -> list[ToolDoc]:
    docs: list[ToolDoc] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = Where(file=name, line=lineno)
        try:
            obj = loads_json(line, line=lineno)
        except InputError as exc:
            raise where.error(exc.message) from None
        docs.extend(parse_json(obj, where))
    return docs


def load_docs(path: str | Path) -> list[ToolDoc]:
    """All ToolDocs in a doc file or in every .json/.jsonl/.yaml/.yml file of a folder.

    A JSON or YAML file's format is detected per object; a .txt/.md file is
    one tool's text (see `parse_text`).
    """
    p = Path(path)
    if p.is_dir():
        kinds = (".json", ".jsonl", *YAML_SUFFIXES)
        files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in kinds)
        if not files:
            raise DocParseError(
                f"{p}: no .json, .jsonl or .yaml documentation files in this folder", file=str(p)
            )
        return [d for f in files for d in _read_file(f)]
    if not p.exists():
        raise DocParseError(f"{p}: no such file or folder", file=str(p))
    return _read_file(p)


def load_workbench_tools(path: str | Path) -> list[ToolDoc]:
    """The 27 WorkBench tool docs from its `derived/tools.json` (see `parse_workbench_tool`)."""
    docs = load_docs(path)
    if not docs:
        raise DocParseError(f"{path}: no tools", file=str(path))
    return docs

"""The original WorkBench documentation (`derived/tools.json`) as a DocSet.

The shared documentation parsers (`core.docs.parsers`) own the conversion of a
tools.json file into ToolDocs; this module only locates the file and calls
them. The small fallback below keeps the benchmark usable on its own: it
splits each numpy-style docstring with the shared docstring parser when that
is importable, and otherwise keeps the whole docstring as the description.
Docstrings are kept verbatim (quirk Q4: their errors are the object of study),
except that LangChain's doubled braces are rendered single, as the agent saw them.
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.docs import DocSet, Param, ToolDoc

DOCSET_NAME = "workbench-original"


def tools_json(root: Path) -> Path:
    return root / "derived" / "tools.json"


def _shared_loader() -> Callable[[Path], Any] | None:
    try:
        mod = importlib.import_module("core.docs.parsers")
    except ImportError:
        return None
    for name in ("parse_workbench_tools", "load_workbench_tools"):
        fn = getattr(mod, name, None)
        if callable(fn):
            return fn
    return None


def load_original_docs(root: Path) -> DocSet:
    """All 27 tool docs, verbatim, as one DocSet named `workbench-original`."""
    path = tools_json(root)
    loader = _shared_loader()
    if loader is not None:
        docs = loader(path)
        docset = docs if isinstance(docs, DocSet) else DocSet(docs)
        return DocSet(docset.values(), name=DOCSET_NAME)
    return DocSet(_fallback(path), name=DOCSET_NAME)


def _fallback(path: Path) -> list[ToolDoc]:
    data = json.loads(path.read_text(encoding="utf-8"))
    try:
        from core.docs.parsers.docstring import parse_docstring
    except ImportError:
        parse_docstring = None
    out = []
    for t in data["tools"]:
        raw = t["docstring"].replace("{{", "{").replace("}}", "}")
        if parse_docstring is None:
            out.append(
                ToolDoc(
                    tool=t["name"],
                    name=t["name"],
                    description=inspect.cleandoc(raw),
                    parameters=tuple(
                        Param(name=p["name"], has_default=p["has_default"], default=p["default"])
                        for p in t["parameters"]
                    ),
                )
            )
            continue
        parsed = parse_docstring(raw)
        params = []
        for p in t["parameters"]:
            pd_ = parsed.params.get(p["name"])
            params.append(
                Param(
                    name=p["name"],
                    description=pd_.description if pd_ else None,
                    type=pd_.type if pd_ else None,
                    has_default=p["has_default"],
                    default=p["default"],
                    optional=True if pd_ and pd_.optional else None,
                )
            )
        out.append(
            ToolDoc(
                tool=t["name"],
                name=t["name"],
                description=parsed.description,
                parameters=tuple(params),
                returns=tuple(parsed.returns),
                examples=tuple(parsed.examples),
            )
        )
    return out

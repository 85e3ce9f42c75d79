"""The original API-Bank documentation as ToolDocs, read from derived/api_docs.json.

Upstream shows each API as its descriptor: name, description, input parameters
(name, type, description) and output parameters (name, type, description). So
the original docs carry TN, FD, IPN, IPT, IPD, RPN, RPT and RPD, and nothing
else: no required flag, no domain label (the file's `domain` key is project
metadata, not shown to the model).

The shared parser in `core.docs.parsers` is used when it provides an API-Bank
reader; this module's reader is the fallback and the reference for its shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from core.docs import DocSet, Param, Return, ToolDoc

API_DOCS = Path("derived/api_docs.json")


def descriptor_to_doc(entry: dict) -> ToolDoc:
    params = tuple(
        Param(name=name, description=spec.get("description"), type=spec.get("type"))
        for name, spec in (entry.get("input_parameters") or {}).items()
    )
    returns = tuple(
        Return(name=name, description=spec.get("description"), type=spec.get("type"))
        for name, spec in (entry.get("output_parameters") or {}).items()
    )
    return ToolDoc(
        tool=entry["name"],
        name=entry["name"],
        description=entry.get("description"),
        parameters=params,
        returns=returns,
    )


def level1_descriptors(root: Path) -> dict[str, dict]:
    """Level-1/2 descriptors by name (the file also holds level-3 APIs of the same names)."""
    data = json.loads((root / API_DOCS).read_text(encoding="utf-8"))
    return {e["name"]: e for e in data if e.get("used_in") != "level-3"}


def load_original_docs(root: Path, tools: Iterable[str]) -> DocSet:
    wanted = list(tools)
    shared = _shared_parser(root / API_DOCS)
    if shared is not None:
        found = {d.tool: d for d in shared.values() if d.tool in wanted}
        if len(found) == len(wanted):
            return DocSet(found.values(), name="api-bank/original")
    descriptors = level1_descriptors(root)
    return DocSet([descriptor_to_doc(descriptors[t]) for t in wanted], name="api-bank/original")


def _shared_parser(path: Path) -> DocSet | None:
    """The project-wide API-Bank parser when it exists (a DocSet or list of ToolDocs)."""
    try:
        from core.docs import parsers  # noqa: PLC0415
    except ImportError:
        return None
    reader = getattr(parsers, "parse_apibank_docs", None)
    if reader is None:
        return None
    result = reader(path)
    return result if isinstance(result, DocSet) else DocSet(list(result), name="api-bank/original")

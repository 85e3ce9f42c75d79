"""The original API-Bank documentation as ToolDocs, read from derived/api_docs.json.

Upstream shows each API as its descriptor: name, description, input parameters
(name, type, description) and output parameters (name, type, description). So
the original docs carry TN, FD, IPN, IPT, IPD, RPN, RPT and RPD, and nothing
else: no required flag and no domain. The file's `domain` label (joined from
the design list all_apis.csv) is dropped, as SPEC 1.1 requires for rendering;
otherwise the agent would see a Task Domain field upstream never showed.

Reading goes through the project-wide parser (`core.docs.parsers.load_docs`),
which keys the level-3 namesakes `Name@level-3`, so the level-1 versions keep
their plain names.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from core.docs import DocSet
from core.docs.parsers import load_docs

API_DOCS = Path("derived/api_docs.json")


def load_original_docs(root: Path, tools: Iterable[str]) -> DocSet:
    wanted = list(tools)
    parsed = {d.tool: d for d in load_docs(root / API_DOCS)}
    missing = [t for t in wanted if t not in parsed]
    if missing:
        raise KeyError(f"{root / API_DOCS} has no descriptor for {missing}")
    docs = [parsed[t].remove("TD") if parsed[t].has("TD") else parsed[t] for t in wanted]
    return DocSet(docs, name="api-bank/original")

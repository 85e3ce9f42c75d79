"""The original WorkBench documentation (`derived/tools.json`) as a DocSet.

The shared documentation parser (`core.docs.parsers.load_workbench_tools`)
owns the conversion of tools.json into ToolDocs; this module only locates the
file and names the set. Docstrings stay verbatim (quirk Q4: their errors are
the object of study), apart from LangChain's doubled braces, which the agents
saw single.
"""

from __future__ import annotations

from pathlib import Path

from core.docs import DocSet
from core.docs.parsers import load_workbench_tools

DOCSET_NAME = "workbench-original"


def tools_json(root: Path) -> Path:
    return root / "derived" / "tools.json"


def load_original_docs(root: Path) -> DocSet:
    """All 27 tool docs as one DocSet named `workbench-original`."""
    return DocSet(load_workbench_tools(tools_json(root)), name=DOCSET_NAME)

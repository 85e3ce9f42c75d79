"""Company directory (SPEC 3.6): returns a numpy array of every matching address."""

from __future__ import annotations

from typing import Any

from core.benchmarks.workbench.tables import Tables


def find_email_address(t: Tables, /, name: Any = "") -> Any:
    if name == "":
        return "Name not provided."
    name = name.lower()  # None raises here, as upstream
    directory = t.directory
    return directory[directory.str.contains(name, na=False)].values

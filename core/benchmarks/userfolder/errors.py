"""Load errors that point at the exact file and line of a user's benchmark folder.

A user's folder is hand-written, so a loader that stops at the first typo makes
them fix one line per run. Validation therefore collects every independent
problem (one `Problem` each: file, line, message) and raises them together as
one `BenchmarkFolderError`; a folder with one defect gets exactly one problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

MAX_LISTED = 20


@dataclass(frozen=True)
class Problem:
    """One defect: where it is (file, optional line) and what is wrong."""

    file: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.message}"


class BenchmarkFolderError(ValueError):
    """A benchmark folder that cannot be loaded; `problems` lists every defect found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        if len(self.problems) == 1:
            text = str(self.problems[0])
        else:
            shown = [f"  - {p}" for p in self.problems[:MAX_LISTED]]
            more = len(self.problems) - MAX_LISTED
            if more > 0:
                shown.append(f"  - ... and {more} more")
            text = f"{len(self.problems)} problems in the benchmark folder:\n" + "\n".join(shown)
        super().__init__(text)

    @property
    def file(self) -> str | None:
        return self.problems[0].file if self.problems else None

    @property
    def line(self) -> int | None:
        return self.problems[0].line if self.problems else None


@dataclass
class Problems:
    """Collects problems during a load; `raise_if_any` ends the load with all of them."""

    folder: Path
    items: list[Problem] = field(default_factory=list)

    def name(self, rel: str) -> str:
        """How a file is named in messages: the folder as the user gave it joined with `rel`."""
        return str(self.folder / rel) if rel else str(self.folder)

    def add(self, rel: str, message: str, line: int | None = None) -> None:
        """Record a problem in the file `rel` (relative to the folder; "" for the folder itself)."""
        self.items.append(Problem(self.name(rel), message, line))

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self) -> None:
        if self.items:
            raise BenchmarkFolderError(self.items)

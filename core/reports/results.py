"""docs/RESULTS.md as a projection of the warehouse.

Each section is a function of the warehouse returning Markdown (or None when
it has no data yet), registered with `@section(order, title)` in
`core.reports.sections`, which calls the producers' own read and render
functions; `write_results` renders them all, so the file is always
regenerated from stored runs and never edited by hand.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from core.config import PROJECT_ROOT
from core.tables import markdown_table

SectionFn = Callable[[object], str | None]


@dataclass(frozen=True)
class Section:
    order: int
    title: str
    fn: SectionFn


SECTIONS: list[Section] = []
# Modules that register sections (this layer imports the producers' read functions; producers never
# import this layer); imported lazily so a missing optional part never breaks the report.
PROVIDERS = ("core.reports.sections",)


def section(order: int, title: str) -> Callable[[SectionFn], SectionFn]:
    def register(fn: SectionFn) -> SectionFn:
        if not any(s.title == title for s in SECTIONS):
            SECTIONS.append(Section(order, title, fn))
        return fn

    return register


def _load_providers() -> None:
    for mod in PROVIDERS:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod:
                raise


table = markdown_table


def render_results(warehouses) -> str:
    """All sections over one or several warehouse files (experiments may keep separate files)."""
    _load_providers()
    whs = list(warehouses) if isinstance(warehouses, list | tuple) else [warehouses]
    names = ", ".join(f"`{Path(w.path).name}`" for w in whs)
    parts = [
        "# Results",
        "",
        f"Regenerated from the warehouse file(s) {names} by `docschisel results` on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Do not edit by hand.",
        "",
    ]
    for s in sorted(SECTIONS, key=lambda s: s.order):
        bodies = [(w, b) for w in whs if (b := s.fn(w))]
        if not bodies:
            continue
        parts += [f"## {s.title}", ""]
        for w, body in bodies:
            if len(bodies) > 1:
                parts += [f"_From `{Path(w.path).name}`:_", ""]
            parts += [body.strip(), ""]
    return "\n".join(parts)


def write_results(warehouses, path: str | Path | None = None) -> Path:
    out = Path(path) if path else PROJECT_ROOT / "docs" / "RESULTS.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_results(warehouses), encoding="utf-8")
    return out

"""docs/RESULTS.md as a projection of the warehouse.

Each section is a function of the warehouse returning Markdown (or None when
it has no data yet), registered with `@section(order, title)` in
`core.reports.sections`, which calls the producers' own read and render
functions; `write_results` renders them all, so the file is always
regenerated from stored runs and never edited by hand.
"""

from __future__ import annotations

import importlib
import re
import shutil
import tempfile
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
    # built only from tables of the results archive (core.warehouse.archive): with an archive at
    # hand, the section is rendered from it alone — every row ever archived, whichever warehouse
    # measured it — instead of from each warehouse given
    archived: bool = False


SECTIONS: list[Section] = []
# Modules that register sections (this layer imports the producers' read functions; producers never
# import this layer); imported lazily so a missing optional part never breaks the report.
PROVIDERS = ("core.reports.sections",)


def section(order: int, title: str, *, archived: bool = False) -> Callable[[SectionFn], SectionFn]:
    def register(fn: SectionFn) -> SectionFn:
        if not any(s.title == title for s in SECTIONS):
            SECTIONS.append(Section(order, title, fn, archived))
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


CARRIED = "_Carried over unchanged from"


@dataclass(frozen=True)
class MeasurementChange:
    """A change to what an episode measures: when it landed (UTC), what changed, and the sections
    whose measurements it leaves as they were (`exempt`, by title)."""

    when: datetime
    what: str
    exempt: tuple[str, ...] = ()


# Newest last. An episode's id covers its configuration, so after such a change the runner measures
# every affected episode again; a section carried over from results generated before one still shows
# the earlier measurements, and says so, until its experiment has been re-run.
MEASUREMENT_CHANGES: tuple[MeasurementChange, ...] = (
    MeasurementChange(
        datetime(2026, 12, 3, 18, 36, tzinfo=UTC),
        "docs rendered with the corrected parameter key and each task sampled with a seed of its own",
        # greedy single calls on API-Bank's original docs, which render as they did, and speed figures
        exempt=("Offline backbones: speed, memory and tool-call accuracy",),
    ),
)


def previous_sections(text: str) -> tuple[str, dict[str, str]]:
    """(provenance of a results document, its sections by title) — for carrying sections over."""
    head = next((ln for ln in text.splitlines() if ln.startswith("Regenerated from")), "")
    m = re.match(r"Regenerated from the warehouse file\(s\) (.*) by `docschisel results` on (.*) UTC", head)
    provenance = (
        f"the results of {m.group(2)} UTC (warehouse file(s) {m.group(1)})" if m else "an earlier run"
    )
    sections: dict[str, str] = {}
    for chunk in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        title, _, body = chunk.partition("\n")
        sections[title.strip()] = body.strip()
    return provenance, sections


def _utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


PROVENANCE = re.compile(r"the results of (\S+ \S+) UTC \((.*?)\)(?=[,:]|$)")


def carried(body: str, provenance: str, title: str = "") -> str:
    """A carried-over section's body under one marker line naming where (and when) it was measured
    and the measurement changes since then that concern section `title`.

    A body carried before keeps its first provenance; its line is written again, so it names the
    changes made since then as well.
    """
    if body.startswith(CARRIED):
        line, _, rest = body.partition("\n")
        m = PROVENANCE.search(line)
        if not m:
            return body
        first = f"the results of {m.group(1)} UTC ({m.group(2)})"
    else:
        first, rest = provenance, f"\n{body}"
        m = PROVENANCE.fullmatch(provenance)
    note = outdated_by(_utc(m.group(1)), title) if m else ""
    return f"{CARRIED} {first}{note}: no warehouse given here holds these runs._\n{rest}"


def outdated_by(generated: datetime, title: str = "") -> str:
    """What changed in the measurement of section `title` since results generated at `generated`."""
    later = [c for c in MEASUREMENT_CHANGES if generated < c.when and title not in c.exempt]
    if not later:
        return ""
    changes = "; ".join(f"{c.what} (since {c.when:%Y-%m-%d %H:%M} UTC)" for c in later)
    return f", measured before these changes, so re-running the experiment measures them again: {changes}"


def render_results(warehouses, previous: str | None = None, archive=None, archive_label: str = "") -> str:
    """All sections over one or several warehouse files (experiments may keep separate files).

    With `previous` (the current document's text), a section that none of
    these warehouses can produce is carried over from it verbatim, marked with
    where it came from: an experiment's warehouse that is not at hand (another
    machine, a later session) does not erase its measured results. With
    `archive` (a warehouse opened from the results archive, already holding
    the given warehouses' archived rows), the sections built from archived
    tables are rendered from it alone.
    """
    _load_providers()
    whs = list(warehouses) if isinstance(warehouses, list | tuple) else [warehouses]
    names = ", ".join(f"`{Path(w.path).name}`" for w in whs)
    if archive is not None:
        names += f" and the results archive `{archive_label or 'docs/results'}/`"
    parts = [
        "# Results",
        "",
        f"Regenerated from the warehouse file(s) {names} by `docschisel results` on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Do not edit by hand.",
        "",
    ]
    parts += scoring_note(whs)
    provenance, old = previous_sections(previous) if previous else ("", {})
    for s in sorted(SECTIONS, key=lambda s: s.order):
        sources = [archive] if s.archived and archive is not None else whs
        bodies = [(w, b) for w in sources if (b := s.fn(w))]
        if not bodies:
            if s.title in old:
                parts += [f"## {s.title}", "", carried(old[s.title], provenance, s.title), ""]
            continue
        parts += [f"## {s.title}", ""]
        for w, body in bodies:
            if len(bodies) > 1 and not s.archived:
                parts += [f"_From `{Path(w.path).name}`:_", ""]
            parts += [body.strip(), ""]
    return "\n".join(parts)


def scoring_note(whs) -> list[str]:
    """A line saying which scoring rules the episodes behind the numbers were scored under."""
    from core.benchmarks.base import SCORING_VERSION
    from core.warehouse.reads import scoring_versions

    counts: dict[int, int] = {}
    for w in whs:
        for version, n in scoring_versions(w).items():
            counts[version] = counts.get(version, 0) + n
    if not counts:
        return []
    older = sum(n for v, n in counts.items() if v < SCORING_VERSION)
    line = (
        f"Scores follow scoring rules version {SCORING_VERSION} (TC's predicted tool set holds only calls "
        "that did not raise; benchmark folders' task options decide their gold tool set)"
    )
    if older:
        line += (
            f"; {older:,} episode(s) still carry scores of earlier rules: `docschisel rescore` updates them"
        )
    return [line + ".", ""]


def write_results(
    warehouses,
    path: str | Path | None = None,
    *,
    keep_missing: bool = True,
    archive_dir: str | Path | None = None,
) -> Path:
    """Write the document; sections no given warehouse can produce are carried over (`keep_missing`).

    With `archive_dir`, the given warehouses' measured rows are first merged
    into that results archive, and the archived sections are built from it.
    """
    from core.warehouse.archive import archive, open_archive

    out = Path(path) if path else PROJECT_ROOT / "docs" / "RESULTS.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    previous = out.read_text(encoding="utf-8") if keep_missing and out.exists() else None
    whs = list(warehouses) if isinstance(warehouses, list | tuple) else [warehouses]
    held, scratch = None, None
    if archive_dir is not None:
        archive(whs, archive_dir)
        scratch = tempfile.mkdtemp(prefix="docschisel-archive-")
        held = open_archive(archive_dir, Path(scratch) / "archive.duckdb")
    label = ""
    if archive_dir is not None:
        a = Path(archive_dir).resolve()
        label = str(a.relative_to(PROJECT_ROOT)) if a.is_relative_to(PROJECT_ROOT) else str(a)
    try:
        out.write_text(render_results(whs, previous, held, label), encoding="utf-8")
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    return out

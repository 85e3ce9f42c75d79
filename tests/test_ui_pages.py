"""Every dashboard page renders on a seeded warehouse and on an empty one (AppTest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.sample import seeded_copy
from core.ui.components import PAGE_FILES
from core.ui.testing import open_app, problems, show

EXPECTED = {
    "overview": "DocsChisel Studio",
    "traces": "Traces",
    "diagnoses": "Diagnoses & plans",
    "review": "Doc review",
    "jobs": "Re-evaluation",
    "impact": "Field impact",
    "compare": "Compare methods",
    "data": "Data",
}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    path = tmp_path_factory.mktemp("ui") / "wh.duckdb"
    return path, seeded_copy(path)


def test_every_page_renders_on_a_seeded_warehouse(seeded: tuple[Path, dict]) -> None:
    at = open_app(seeded[0])
    assert not problems(at)
    for page, title in EXPECTED.items():
        show(at, page)
        assert not problems(at), (page, problems(at))
        assert at.title[0].value == title, page
    # the pages draw the seeded study, not empty states
    show(at, "impact")
    assert len(at.get("vega_lite_chart")) == 1
    show(at, "compare")
    # the scores as one table; the box plots and the other views are built when their tab is opened
    assert len(at.get("vega_lite_chart")) == 0 and not at.dataframe
    assert any(
        m.value.startswith("| Method | TS | TC |") and "DocsChisel (DC)" in m.value for m in at.markdown
    )
    at.session_state["cmp_view"] = "Box plots (Fig. 8)"
    at.run()
    assert not problems(at) and len(at.get("vega_lite_chart")) == 2
    assert any("DC vs OG" in str(df.value.to_dict()) for df in at.dataframe)
    # DC and OG ran the same test tasks: the mark comes from the paired per-task test
    assert any("paired per task" in str(df.value.to_dict()) for df in at.dataframe)
    at.session_state["cmp_view"] = "Efficiency (Table III)"
    at.run()
    assert not problems(at) and len(at.get("vega_lite_chart")) == 0
    assert any(m.value == "##### Efficiency (Table III)" for m in at.markdown)
    at.session_state["cmp_view"] = "Scores"
    show(at, "diagnoses")
    assert at.selectbox(key="dg_run").value == seeded[1]["optimize_run"]
    # the failed traces are read as cards; the chart of fields across tools is drawn only in its tab
    assert len(at.get("vega_lite_chart")) == 0
    assert any("Implicated fields: " in m.value for m in at.markdown)
    at.session_state["dg_tab"] = "Fields across tools"
    at.run()
    assert len(at.get("vega_lite_chart")) == 1
    assert not any("Implicated fields: " in m.value for m in at.markdown)
    show(at, "data")
    assert any("Episodes" == m.label for m in at.metric)


def test_every_page_has_an_empty_state(tmp_path: Path) -> None:
    at = open_app(tmp_path / "empty.duckdb")
    for page in EXPECTED:
        show(at, page)
        assert not problems(at), (page, problems(at))
        assert at.title[0].value == EXPECTED[page]


def test_pages_are_thin() -> None:
    """pages/*.py only call a render function: no SQL, no warehouse access."""
    root = Path(__file__).resolve().parent.parent
    for rel in PAGE_FILES.values():
        text = (root / rel).read_text()
        assert "SELECT" not in text.upper().replace("SELECTBOX", "")
        assert "render()" in text and len(text.splitlines()) <= 5, rel


def test_every_run_ends_with_a_numbered_marker(seeded: tuple[Path, dict]) -> None:
    """The hidden end-of-run marker (what browser tests and bench/pages.py wait for) grows per run."""
    import re

    def marker(at) -> int:  # noqa: ANN001
        bodies = [e.proto.body for e in at.get("html") if "docschisel-drawn" in e.proto.body]
        assert len(bodies) == 1, bodies
        return int(re.search(r'data-run="(\d+)"', bodies[0]).group(1))

    first = marker(open_app(seeded[0]))
    assert marker(open_app(seeded[0])) > first, "a new session's run is told from an earlier one"

"""The dashboard in a real browser: every page, trace filtering, review, a background job, screenshots.

Starts `streamlit run app.py` on a free localhost port against a seeded
temporary warehouse and drives Debian's headless Chromium with Playwright (the
pip package only; no browser download). Screenshots of every page land in
test-artifacts/ (git-ignored) so a reviewer can see what users see.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from core import jobs
from core.cli.app import dashboard_command
from core.sample import seeded_copy
from core.warehouse import Warehouse
from core.warehouse.store import close_all

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("DOCSCHISEL_CHROMIUM", "/usr/bin/chromium")
CHROME_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDTH, HEIGHT = 1440, 900  # a laptop screen: every page must fit it
SLOW = 120_000  # ms: the CI machine is small and shared


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _reevaluated(path: Path) -> None:
    """A finished re-evaluation of the optimized docs against the originals (see tests/test_ui_reeval.py)."""
    from tests.test_ui_reeval import reevaluated

    wh = Warehouse(path)
    original = wh.rows("SELECT docset_id FROM doc_sets WHERE origin = 'original'")[0][0]
    optimized = wh.rows("SELECT docset_id FROM doc_sets WHERE origin = 'docschisel'")[0][0]
    reevaluated(wh, original, optimized, "eval-browser", "browser-reader")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip("headless Chromium not installed: run `make browser` (Debian package chromium)")
    pytest.importorskip("playwright", reason="pip install playwright (the test extra)")
    path = tmp_path_factory.mktemp("browser") / "wh.duckdb"
    seeded_copy(path)
    _reevaluated(path)
    close_all()
    port = _free_port()
    # the sample benchmark and its scripted model by name in the jobs the page starts (core/sample/plugin.py)
    env = {**os.environ, "DOCSCHISEL_WAREHOUSE": str(path), "PYTHONUNBUFFERED": "1",
           "DOCSCHISEL_PLUGINS": "core.sample.plugin"}  # fmt: skip
    log = (tmp_path_factory.getbasetemp() / "streamlit.log").open("wb")
    proc = subprocess.Popen(
        [*dashboard_command("127.0.0.1", port), "--server.fileWatcherType", "none"],  # as `docschisel app`
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(
                f"streamlit did not start: {(tmp_path_factory.getbasetemp() / 'streamlit.log').read_text()}"
            )
        time.sleep(0.5)
    yield base, path
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
    log.close()


@pytest.fixture(scope="module")
def page(server: tuple[str, Path]):  # noqa: ANN201
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
        pg = context.new_page()
        pg.set_default_timeout(SLOW)
        yield pg
        context.close()
        browser.close()


def settle(pg) -> None:  # noqa: ANN001
    """Wait until Streamlit has started (if it will) and finished the current script run."""
    try:
        pg.wait_for_selector('[data-testid="stStatusWidget"]', timeout=1500)
    except Exception:  # noqa: BLE001 - a quick run may have finished already
        pass
    pg.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=SLOW, polling=200
    )
    pg.wait_for_timeout(300)


def ran(pg, after: int = 0) -> int:  # noqa: ANN001
    """Wait for the end of a script run numbered above `after` (core.ui.app.drawn_marker); its number.

    After a navigation any run counts (the page is new); after an interaction
    pass the number read before it, so the rerun it caused is waited for.
    """
    handle = pg.wait_for_function(
        "(after) => { const m = document.querySelector('[data-testid=docschisel-drawn]');"
        " return m && Number(m.dataset.run) > after ? Number(m.dataset.run) : null; }",
        arg=after,
        timeout=SLOW,
        polling=50,
    )
    return int(handle.json_value())


def drawn(pg) -> None:  # noqa: ANN001
    """Tables and charts load their code lazily: wait until no placeholder is left and charts have drawn."""
    pg.wait_for_function(
        "() => !document.querySelector('[data-testid=stSkeleton]') && "
        "[...document.querySelectorAll('[data-testid=stVegaLiteChart]')]"
        ".filter(c => c.offsetParent !== null).every(c => c.querySelector('svg.marks, canvas.marks'))",
        timeout=SLOW,
        polling=50,
    )


def visit(pg, base: str, path: str, title: str) -> None:  # noqa: ANN001
    pg.goto(f"{base}/{path}")
    pg.get_by_role("heading", name=title, level=1).wait_for()
    ran(pg)
    drawn(pg)
    assert pg.get_by_test_id("stException").count() == 0, f"{path}: exception on the page"


def shoot(pg, name: str) -> Path:  # noqa: ANN001
    """Screenshot of the whole page content (Streamlit scrolls inside its main block)."""
    height = pg.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=stMain], [data-testid=stMainBlockContainer]')]"
        ".map(e => e.scrollHeight), 800)"
    )
    pg.set_viewport_size({"width": WIDTH, "height": min(int(height) + 40, 7000)})
    pg.wait_for_timeout(800)
    drawn(pg)
    out = ARTIFACTS / f"{name}.png"
    pg.screenshot(path=str(out))
    pg.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    return out


PAGES = [
    ("", "DocsChisel Studio", "01-overview"),
    ("traces", "Traces", "02-traces"),
    ("diagnoses", "Diagnoses & plans", "03-diagnoses"),
    ("doc_review", "Doc review", "04-doc-review"),
    ("re_evaluation", "Re-evaluation", "05-re-evaluation"),
    ("field_impact", "Field impact", "06-field-impact"),
    ("compare", "Compare methods", "07-compare"),
    ("data", "Data", "08-data"),
    ("sops", "SOPs", "08b-sops"),
    ("re_evaluation?job=eval-browser", "Re-evaluation", "09-run-comparison"),
]


def cut_headers(pg) -> list[str]:  # noqa: ANN001
    """Table column headers whose text is wider than their cell (drawn with an ellipsis), page-wide."""
    return pg.evaluate(
        """() => [...document.querySelectorAll('[data-testid=stTable] th, table th')]
              .filter(th => th.offsetParent !== null && th.scrollWidth > th.clientWidth + 1)
              .map(th => th.innerText.trim())"""
    )


# st.dataframe draws on a canvas (glide-data-grid): its header cells are not laid out in the DOM (the
# accessible table inside the canvas has the titles but no widths). The grid component's `columns`
# prop has each column's title and its drawn width; a title is cut when the header's left padding plus
# the title, measured in the header font, is wider than the column.
GRID_COLUMNS_JS = """frame => {
    const canvas = frame.querySelector('canvas');
    const editor = frame.querySelector('.stDataFrameGlideDataEditor');
    const key = Object.keys(canvas).find(k => k.startsWith('__reactFiber'));
    let fiber = key && canvas[key];
    while (fiber && !(Array.isArray((fiber.memoizedProps || {}).columns)
                      && fiber.memoizedProps.columns.every(c => c && 'title' in c && typeof c.width === 'number'))) {
      fiber = fiber.return;
    }
    if (!fiber || !editor) return null;
    const css = getComputedStyle(editor);
    const font = css.getPropertyValue('--gdg-header-font-style').trim() + ' '
      + css.getPropertyValue('--gdg-font-family').trim();
    const pad = parseFloat(css.getPropertyValue('--gdg-cell-horizontal-padding')) || 8;
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = font;
    return {width: frame.querySelector('[data-testid=stDataFrameResizable]').clientWidth,
            columns: fiber.memoizedProps.columns.map(c => ({
              title: c.title, width: c.width, needs: Math.ceil(pad + ctx.measureText(c.title).width)}))};
  }"""


def cut_grid_headers(pg) -> tuple[int, list[str]]:  # noqa: ANN001
    """(data grids read, their column titles cut by the column width or by the grid's right edge).

    A grid draws its canvas only once it is scrolled into view, so each visible grid is, first."""
    pg.evaluate("() => document.fonts.ready")
    grids = pg.get_by_test_id("stDataFrame")
    read, cut = 0, []
    for i in range(grids.count()):
        grid = grids.nth(i)
        if not grid.is_visible():
            continue  # in a closed expander or another tab
        grid.scroll_into_view_if_needed()
        grid.locator("canvas").first.wait_for(state="attached")
        found = grid.evaluate(GRID_COLUMNS_JS)
        assert found is not None, f"data grid {i}: its columns could not be read"
        read += 1
        columns = found["columns"]
        cut += [f"{c['title']!r} needs {c['needs']} px, has {c['width']}" for c in columns
                if c["title"] and c["needs"] > c["width"]]  # fmt: skip
        right, edge = 0, found["width"] - 2  # the grid's border
        for (
            c
        ) in columns:  # a column whose title ends past the grid's edge is cut, or hidden until scrolled to
            if c["title"] and edge < right + c["needs"]:
                cut.append(
                    f"{c['title']!r} runs past the grid's right edge ({right + c['needs']} > {edge} px)"
                )
            right += c["width"]
    return read, cut


def test_every_page_renders_with_a_screenshot(server, page) -> None:  # noqa: ANN001
    base, _ = server
    grids = 0
    for path, title, name in PAGES:
        visit(page, base, path, title)
        assert shoot(page, name).stat().st_size > 20_000
        assert not cut_headers(page), f"{path}: cut column headers {cut_headers(page)}"
        read, cut = cut_grid_headers(page)
        assert not cut, f"{path}: data grid headers cut at {WIDTH} px: {cut}"
        grids += read
    # the grids a page draws on request: the diagnoses as one table, every version of a doc, the tests
    # behind the box plots' marks and every evaluation run of a comparison
    for path, title, opener in (
        ("diagnoses", "Diagnoses & plans", lambda: page.get_by_role("tab", name="Failed traces as a table")),
        ("doc_review", "Doc review", lambda: page.get_by_text(re.compile(r"^All \d+ versions of "))),
        ("compare", "Compare methods", lambda: page.get_by_role("tab", name="Box plots (Fig. 8)")),
        ("compare", "Compare methods", lambda: page.get_by_role("tab", name="Runs and their traces")),
    ):
        visit(page, base, path, title)
        before = ran(page)
        opener().click()
        ran(page, before)
        drawn(page)
        read, cut = cut_grid_headers(page)
        assert read and not cut, f"{path}: data grid headers cut at {WIDTH} px: {cut}"
        grids += read
    assert grids >= 15  # the data grids' headers were measured, not skipped
    # the run comparison: TS/TC against the old docs, the flipped tasks, one task side by side
    visit(page, base, "re_evaluation?job=eval-browser", "Re-evaluation")
    page.get_by_text("Fixed: pass more often with the new docs").wait_for()
    page.get_by_text("under the two doc versions").first.wait_for()
    # navigation through the sidebar works too
    page.get_by_test_id("stSidebarNav").get_by_text("Field impact").click()
    page.get_by_role("heading", name="Field impact", level=1).wait_for()


def _choose(pg, label: str, option: str) -> None:  # noqa: ANN001
    box = pg.get_by_test_id("stSelectbox").filter(has_text=label)
    box.click()
    pg.get_by_role("option", name=option, exact=True).click()
    settle(pg)


def _at(pg, position: int, total: int) -> None:  # noqa: ANN001
    """The trace navigator shows `Trace position of total` (retrying while the page reruns)."""
    from playwright.sync_api import expect

    expect(pg.get_by_text(re.compile(r"^Trace [\d,]+ of [\d,]+$")).first).to_have_text(
        f"Trace {position:,} of {total:,}", timeout=SLOW
    )


def test_filter_traces_step_and_open_one(server, page) -> None:  # noqa: ANN001
    base, path = server
    visit(page, base, "traces", "Traces")
    _choose(page, "Domain", "shop")
    page.get_by_test_id("stButtonGroup").get_by_text("Failed", exact=True).click()
    settle(page)
    assert "domain=shop" in page.url and "outcome=failed" in page.url
    n = Warehouse(path).scalar("SELECT count(*) FROM episodes WHERE domain = 'shop' AND NOT success")
    page.get_by_text(f"{n:,} traces match").wait_for()
    _at(page, 1, n)
    first = page.url
    page.get_by_role("button", name="Next", exact=True).click()
    settle(page)
    _at(page, 2, n)
    assert page.url != first
    # open one from the table: click the third row
    grid = page.get_by_test_id("stDataFrame").first
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    page.mouse.move(box["x"] + 200, box["y"] + 35 * 3 + 18)
    page.mouse.click(box["x"] + 12, box["y"] + 35 * 3 + 18)
    settle(page)
    _at(page, 3, n)
    assert "episode=" in page.url and "domain=shop" in page.url
    page.get_by_role("heading", name="Ground truth").wait_for()
    # a reload (or the link sent to a colleague) shows the same filtered trace
    url = page.url
    page.reload()
    page.get_by_role("heading", name="Traces", level=1).wait_for()
    settle(page)
    _at(page, 3, n)
    assert page.url == url
    shoot(page, "02b-trace-open")


def test_a_point_of_a_box_plot_opens_its_traces(server, page) -> None:  # noqa: ANN001
    base, _ = server
    visit(page, base, "compare", "Compare methods")
    # the scores' table first, the plots a tab away
    assert page.get_by_test_id("stVegaLiteChart").count() == 0
    page.get_by_role("cell", name="DocsChisel (DC)").wait_for()
    before = ran(page)
    page.get_by_role("tab", name="Box plots (Fig. 8)").click()
    ran(page, before)
    drawn(page)
    boxes = page.get_by_test_id("stVegaLiteChart").filter(has=page.locator("g.mark-symbol"))
    points = boxes.first.locator("g.mark-symbol path")
    points.first.wait_for(state="attached")
    assert points.count() > 4
    points.last.click(force=True)
    page.get_by_role("heading", name="Traces", level=1).wait_for()
    settle(page)
    assert "run=" in page.url and "docset=" in page.url and "split=test" in page.url
    page.get_by_role("heading", name="Ground truth").wait_for()


def test_approve_a_candidate_doc(server, page) -> None:  # noqa: ANN001
    base, path = server
    visit(page, base, "doc_review?tool=shop.order", "Doc review")
    page.get_by_text("Field-level diff").wait_for()
    page.get_by_label("Reason (kept in the audit trail)").fill("clearer parameter descriptions")
    page.get_by_role("button", name="Approve").click()
    settle(page)
    rows = Warehouse(path).rows("SELECT tool, action, reason FROM approvals WHERE action = 'approve'")
    assert ("shop.order", "approve", "clearer parameter descriptions") in rows
    page.get_by_role("tab", name="Audit trail").click()
    page.get_by_text("clearer parameter descriptions").first.wait_for(state="attached")
    shoot(page, "04b-doc-approved")


def test_start_and_finish_a_job(server, page) -> None:  # noqa: ANN001
    base, path = server
    visit(page, base, "re_evaluation", "Re-evaluation")
    page.get_by_text("Check the job runner").click()
    page.get_by_role("button", name="Start self-test job").click()
    settle(page)
    # the job runs ~5 s: a loaded machine may draw the list only after it ended, so wait for its card,
    # running or finished (a state either way), then for the list to say nothing runs any more
    running = page.get_by_text("Running (1)")
    page.get_by_text("self-test · 20 steps").first.or_(running).first.wait_for(timeout=SLOW)
    shoot(page, "05b-job-running")
    # the list refreshes itself (fragment): wait for the job to land in Finished, in a second tab too
    page.get_by_text("Running (0)").wait_for(timeout=SLOW)
    wh = Warehouse(path)
    status = wh.rows(
        "SELECT arg_max(status, ts) FROM job_events WHERE job_id IN (SELECT job_id FROM jobs WHERE kind = 'selftest')"
    )[0][0]
    assert status == "done"
    second = page.context.new_page()
    second.goto(f"{base}/re_evaluation")
    second.get_by_role("heading", name="Re-evaluation", level=1).wait_for()
    second.get_by_text("self-test · 20 steps").first.wait_for()
    second.close()
    shoot(page, "05c-job-done")


def _follow(pg, link) -> None:  # noqa: ANN001
    """Open a Markdown link the way a reader does: in this tab, or in a new one when it says so."""
    href = link.get_attribute("href")
    if link.get_attribute("target") == "_blank":
        pg.goto(urllib.parse.urljoin(pg.url, href))
    else:
        link.click()
    settle(pg)


def _card(pg, *texts: str):  # noqa: ANN001, ANN202
    """The first innermost container (a bordered card) that holds every one of `texts`."""
    blocks = pg.get_by_test_id("stVerticalBlock")
    for text in texts:
        blocks = blocks.filter(has_text=text)
    inner = pg.get_by_test_id("stVerticalBlock")
    for text in texts:
        inner = inner.filter(has_text=text)
    return blocks.filter(has_not=inner).first


def _commit(pg, field, value: str) -> None:  # noqa: ANN001
    """Type into a text input or area and apply it (Enter, or Ctrl+Enter in an area)."""
    field.fill(value)
    field.press("Control+Enter" if field.evaluate("e => e.tagName") == "TEXTAREA" else "Enter")
    settle(pg)


JOB_WAIT = 600_000  # ms: a real evaluation process of 34 episodes on a loaded two-core machine


def test_the_analysts_loop_with_a_real_reevaluation_job(server, page) -> None:  # noqa: ANN001
    """Failed trace → diagnosis → planned operation → candidate → edit → approve → register →
    re-evaluate (a real `docschisel eval --against` process with the sample's doc-reading model) →
    the card's TS/TC against the old docs and the flipped tasks → one flipped task side by side."""
    from playwright.sync_api import expect

    base, path = server
    wh = Warehouse(path)
    tool = "shop.order"
    run_id = wh.rows("SELECT run_id FROM runs WHERE kind = 'optimize' ORDER BY created_at LIMIT 1")[0][0]
    episode, iteration = wh.rows(
        "SELECT d.episode_id, d.iteration FROM diagnoses d JOIN episodes e USING (episode_id) "
        "WHERE d.run_id = ? AND d.tool = ? AND d.doc_related AND NOT e.success "
        "AND d.diagnosis_id IN (SELECT diagnosis_id FROM plans WHERE scope = 'trace') "
        "AND d.iteration = (SELECT iteration FROM candidates WHERE run_id = d.run_id AND tool = d.tool "
        "                   ORDER BY val_ts DESC, iteration DESC LIMIT 1) "  # the candidate that validated
        "ORDER BY e.task_id LIMIT 1",
        [run_id, tool],
    )[0]

    # a failed trace and its diagnosis
    visit(page, base, f"traces?episode={episode}", "Traces")
    page.get_by_role("heading", name="Diagnoses").wait_for()
    shoot(page, "10-loop-failed-trace")
    _follow(
        page,
        page.get_by_role("link", name=re.compile("Its diagnosis, planned operations and candidate")).first,
    )
    page.get_by_role("heading", name="Diagnoses & plans", level=1).wait_for()
    assert f"run={run_id}" in page.url and f"iteration={iteration}" in page.url
    drawn(page)

    # the diagnosis of that trace comes first, with its planned operations and the candidate they produced
    card = _card(page, "the trace you came from", "Planned:")
    expect(card).to_contain_text("Implicated fields")
    shoot(page, "11-loop-diagnosis-plan")
    review = card.get_by_role("link", name=re.compile("diff & review"))
    candidate = urllib.parse.parse_qs(urllib.parse.urlparse(review.get_attribute("href")).query)["b"][0]
    _follow(page, review)

    # the candidate: edit a field, save it as a new version
    page.get_by_role("heading", name="Doc review", level=1).wait_for()
    assert f"b={candidate}" in page.url
    page.get_by_role("tab", name="Edit").click()
    constraint = page.get_by_label("IC · Invocation Constraint")
    _commit(page, constraint, f"{constraint.input_value()} Order at most 100 units per request.".strip())
    _commit(page, page.get_by_label("Why this edit"), "the shop caps orders")
    page.get_by_role("button", name="Save as new version").click()
    settle(page)
    expect(page).not_to_have_url(re.compile(f"b={candidate}"), timeout=SLOW)
    edited = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["b"][0]
    assert wh.rows("SELECT parent_doc_id FROM doc_versions WHERE doc_id = ?", [edited])[0][0] == candidate

    # approve the edited version
    page.get_by_role("tab", name="Decide").click()
    _commit(
        page, page.get_by_label("Reason (kept in the audit trail)"), "states the format, quantity and cap"
    )
    page.get_by_role("button", name="Approve").click()
    settle(page)
    page.get_by_text(f"Approved {edited[:8]}").first.wait_for()
    shoot(page, "12-loop-edited-and-approved")

    # register the reviewed set: it starts from the tool's own original set, with the edited doc in it
    page.get_by_role("tab", name="Export approved set").click()
    _commit(page, page.get_by_label("Name of the reviewed set"), "reviewed order docs")
    page.get_by_role("button", name="Register doc set").click()
    settle(page)
    done = page.get_by_text(re.compile(r"Registered doc set \S+ — evaluate it"))
    done.wait_for()
    registered = re.search(r"Registered doc set (\S+)", done.inner_text()).group(1).strip("`")
    members = dict(wh.rows("SELECT tool, doc_id FROM doc_set_members WHERE docset_id = ?", [registered]))
    assert members[tool] == edited
    old = wh.rows("SELECT docset_id FROM doc_sets WHERE origin = 'original' AND benchmark = 'sample-shop'")[
        0
    ][0]
    shoot(page, "13-loop-registered")
    page.get_by_role("link", name="Re-evaluate it").click()
    page.get_by_role("heading", name="Re-evaluation", level=1).wait_for()
    settle(page)

    # re-evaluate: the form opens on the new set, against the docs it replaces, with the sample's model
    assert f"docset={registered}" in page.url
    expect(page.get_by_role("combobox", name="Doc set")).to_have_value(re.compile(registered[:8]))
    expect(page.get_by_role("combobox", name="Compare against")).to_have_value(re.compile(old[:8]))
    _choose(page, "Model", "scripted/sample-doc-reader")
    page.get_by_role("button", name="Start evaluation").click()
    settle(page)
    job_id = wh.rows(
        "SELECT job_id FROM jobs WHERE kind = 'eval' AND json_extract_string(params, '$.docset') = ?",
        [registered],
    )[0][0]

    # the job's own card, refreshed live, ends with TS/TC against the old docs and the flipped tasks
    card = _card(page, job_id)
    expect(card).to_contain_text(f"against docs {old[:8]}", timeout=JOB_WAIT)
    state = jobs.job_state(wh, job_id)
    assert state.status == "done" and state.done == state.total, jobs.log_tail(wh, job_id)
    text = card.inner_text()
    assert re.search(r"TS [\d.]+% → [\d.]+%", text) and re.search(r"TC [\d.]+% → [\d.]+%", text), text
    fixed = int(re.search(r"(\d+) fixed", text).group(1))
    assert fixed > 0 and re.search(r"\d+ broken", text), text  # the edited order docs fix order tasks
    shoot(page, "14-loop-job-card")

    # one flipped task side by side, the doc diff above it
    card.get_by_role("link", name="Compare with the old docs, task by task").click()
    settle(page)
    page.get_by_role("heading", name=f"Run comparison · job {job_id}").wait_for()
    page.get_by_text(f"Fixed: pass more often with the new docs ({fixed})").wait_for()
    from core.ui.views.runcompare import comparison_of

    flipped = list(comparison_of(str(path), state).flipped("fixed")["task_id"])
    order = next(t for t in flipped if t.startswith("order"))  # a task of the edited tool
    _choose(page, "Task side by side", order)
    page.get_by_text(f"{order} under the two doc versions").wait_for()
    page.get_by_text(re.compile(r"Doc diff · \d+ tool\(s\) this task can use")).wait_for()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text(tool, exact=True).first).to_be_visible()
    expect(main.get_by_text("failed", exact=True).first).to_be_visible()
    expect(main.get_by_text("success", exact=True).first).to_be_visible()
    assert f"task={order}" in page.url
    shoot(page, "15-loop-one-task-side-by-side")

"""Page-load benchmark in a real browser: the time a person waits for each page to be fully drawn.

    python bench/pages.py [--episodes 100000] [--events-per-episode 10] [--keep PATH]

`bench/dashboard.py` measures queries and AppTest renders; this one starts
`streamlit run app.py` on the same 100k-episode / 1M-event warehouse and loads
every page in headless Chromium (Playwright, Debian's chromium), cold (a fresh
server process once its launcher reports the pages warmed, first visit from a
browser with an empty cache; the start-to-warmed time is printed too), warm (the same address loaded again, the
median of three: a browser reload, so the frontend starts over and only the server's and the browser's caches are
warm; the first reload also compiles the frontend's scripts again, which Chromium's code cache spares the later ones) and
by in-app navigation (its sidebar link clicked from another page: what an
analyst moving between pages waits for; the frontend stays), until no skeleton
is left and every chart has drawn (the end of the script run is read from the
hidden marker the app writes after every run, core.ui.app.drawn_marker), and
times the most frequent interaction of a page (Next on Traces) the same way.
Targets on a quiet machine: under 3 s cold, under 1 s warm per page, under
1 s per interaction.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from core.cli.app import dashboard_command  # noqa: E402
from core.sample import seeded_copy  # noqa: E402
from core.ui.serve import READY_LINE  # noqa: E402
from core.warehouse.store import close_all  # noqa: E402
from tests.browser.test_dashboard_browser import (  # noqa: E402
    CHROME_ARGS,
    CHROMIUM,
    HEIGHT,
    PAGES,
    WIDTH,
    _free_port,
    drawn,
    ran,
)

COLD_TARGET_S, WARM_TARGET_S, INTERACTION_TARGET_S = 3.0, 1.0, 1.0
# interactions timed on a page (after its warm load): what an analyst does most there, three times
INTERACTIONS = {
    "traces": ("Next trace", lambda pg: pg.get_by_role("button", name="Next", exact=True).click()),
}


def _dashboard_bench():  # noqa: ANN202
    """bench/dashboard.py as a module: its generator of synthetic rows and its options, shared."""
    spec = importlib.util.spec_from_file_location("bench_dashboard", ROOT / "bench" / "dashboard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _server(path: Path, port: int) -> tuple[subprocess.Popen, float]:
    """A fresh dashboard process; returns it and the seconds from its start until the launcher reported
    its pages warmed (core.ui.serve: imports, first charts and tables done, so a first visit costs only
    the page's own queries and the browser's work)."""
    env = {**os.environ, "DOCSCHISEL_WAREHOUSE": str(path)}
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*dashboard_command("127.0.0.1", port), "--server.fileWatcherType", "none"],  # as `docschisel app` does
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    warmed = threading.Event()

    def drain() -> None:  # read the launcher's lines (and keep the pipe from filling up)
        for line in proc.stderr:
            if READY_LINE in line:
                warmed.set()

    threading.Thread(target=drain, daemon=True).start()
    while not warmed.wait(0.2):
        if proc.poll() is not None:
            raise SystemExit("the dashboard did not start")
    ready = time.perf_counter() - t0
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc, ready
        except OSError:
            if proc.poll() is not None:
                raise SystemExit("streamlit did not start") from None
            time.sleep(0.2)


def load(pg, url: str, title: str) -> float:  # noqa: ANN001
    """Seconds from navigation to a fully drawn page (heading, the script run's end marker, charts drawn)."""
    t0 = time.perf_counter()
    pg.goto(url)
    pg.get_by_role("heading", name=title, level=1).wait_for()
    ran(pg)
    drawn(pg)
    return time.perf_counter() - t0


NAV_LABELS = {
    "": "Overview",
    "traces": "Traces",
    "diagnoses": "Diagnoses & plans",
    "doc_review": "Doc review",
    "re_evaluation": "Re-evaluation",
    "field_impact": "Field impact",
    "compare": "Compare methods",
    "data": "Data",
    "sops": "SOPs",
}


def navigate(pg, url_path: str, title: str) -> float:  # noqa: ANN001
    """Seconds from clicking a page's sidebar link (on another page) to that page fully drawn."""
    away = "traces" if url_path == "" else ""
    before = ran(pg)
    pg.get_by_test_id("stSidebarNav").get_by_role("link", name=NAV_LABELS[away], exact=True).click()
    before = ran(pg, before)
    drawn(pg)
    t0 = time.perf_counter()
    pg.get_by_test_id("stSidebarNav").get_by_role("link", name=NAV_LABELS[url_path], exact=True).click()
    pg.get_by_role("heading", name=title, level=1).wait_for()
    ran(pg, before)
    drawn(pg)
    return time.perf_counter() - t0


def interact(pg, action) -> float:  # noqa: ANN001
    """Seconds from an action to the end of the rerun it causes, with charts drawn."""
    before = ran(pg)
    t0 = time.perf_counter()
    action(pg)
    ran(pg, before)
    drawn(pg)
    return time.perf_counter() - t0


def main() -> None:
    from playwright.sync_api import sync_playwright

    dashboard = _dashboard_bench()
    parser = dashboard.warehouse_options(argparse.ArgumentParser(description=__doc__.split("\n")[0]))
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="with --keep: load the pages on the warehouse already at PATH instead of generating it again "
        "(generate it ahead, e.g. while the machine is busy, then measure when it is quiet)",
    )
    parser.add_argument("--no-pages", action="store_true", help="only generate the warehouse (with --keep)")
    parser.add_argument("--pages", default="", help="comma-separated url paths to load (default: every page)")
    args = parser.parse_args()
    path = args.keep or Path(tempfile.mkdtemp(prefix="docschisel-pages-")) / "bench.duckdb"
    if args.reuse and not args.keep:
        parser.error("--reuse needs --keep PATH")
    if not (args.reuse and Path(path).exists()):
        seeded_copy(path)
        close_all()
        dashboard.generate(path, args.episodes, args.events_per_episode)
        close_all()
    if args.no_pages:
        print(f"warehouse ready: {path}")
        return
    rows, clicks, readies = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        wanted = {w.strip() for w in args.pages.split(",") if w.strip()}
        for url_path, title, _ in [
            p for p in PAGES if "?" not in p[0] and (not wanted or (p[0] or "overview") in wanted)
        ]:
            port = _free_port()
            proc, ready = _server(path, port)  # a fresh process per page: its first visit is really cold
            readies.append(ready)
            try:
                pg = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}).new_page()
                pg.set_default_timeout(300_000)
                url = f"http://127.0.0.1:{port}/{url_path}"
                cold = load(pg, url, title)
                warm = sorted(load(pg, url, title) for _ in range(3))[1]
                nav = sorted(navigate(pg, url_path, title) for _ in range(3))[1]
                rows.append((url_path or "overview", cold, warm, nav))
                print(
                    f"  {url_path or 'overview':<36} cold {cold:6.1f} s  warm {warm:6.1f} s  in-app {nav:5.2f} s",
                    flush=True,
                )
                if url_path in INTERACTIONS:
                    what, action = INTERACTIONS[url_path]
                    times = sorted(interact(pg, action) for _ in range(3))
                    clicks.append((f"{url_path}: {what}", times[1], times[-1]))
                    print(
                        f"  {url_path}: {what:<28} median {times[1]:5.2f} s  max {times[-1]:5.2f} s",
                        flush=True,
                    )
            finally:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
        browser.close()
    print(
        f"\n{'page':<36} {'cold (s)':>9} {'warm (s)':>9} {'in-app (s)':>11}  target: cold < {COLD_TARGET_S:g} s, "
        f"warm < {WARM_TARGET_S:g} s (reload and in-app navigation, each the median of 3)"
    )
    for name, cold, warm, nav in rows:
        marks = [
            "cold " + ("ok" if cold < COLD_TARGET_S else "OVER"),
            "reload " + ("ok" if warm < WARM_TARGET_S else "OVER"),
            "in-app " + ("ok" if nav < WARM_TARGET_S else "OVER"),
        ]
        print(f"{name:<36} {cold:>9.1f} {warm:>9.1f} {nav:>11.2f}  {', '.join(marks)}")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} (targets hold on a quiet machine)")
    if readies:
        print(
            f"server start to pages warmed: median {sorted(readies)[len(readies) // 2]:.1f} s, max {max(readies):.1f} s "
            "(cold visits are timed from then on: a fresh process, an empty browser cache)"
        )
    for what, median, worst in clicks:
        ok = "ok" if median < INTERACTION_TARGET_S else "OVER"
        print(
            f"{what:<36} median {median:.2f} s, max {worst:.2f} s  target < {INTERACTION_TARGET_S:g} s  {ok}"
        )


if __name__ == "__main__":
    main()

"""core.ui.serve: the dashboard's launcher loads the pages' code beside the server's start."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from core.cli.app import dashboard_command
from core.ui import serve
from core.ui.serve import LIBRARIES, VIEWS, preload, wait_for, warm


def test_preload_imports_what_it_can_and_skips_what_fails() -> None:
    assert preload(("json", "core_no_such_module_here", "csv")) == ["json", "csv"]


def test_every_view_module_is_preloaded() -> None:
    from core.config import PROJECT_ROOT

    on_disk = {f"core.ui.views.{p.stem}" for p in (PROJECT_ROOT / "core" / "ui" / "views").glob("*.py")}
    assert on_disk - {"core.ui.views.__init__"} == set(VIEWS)


def test_views_wait_for_the_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    """Libraries load at once; the views (with their caches) only once the server's runtime exists."""
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(serve, "preload", lambda modules: seen.append(modules) or list(modules))
    monkeypatch.setattr(serve, "warm_charts", lambda: None)
    monkeypatch.setattr(serve, "warm_tables", lambda: None)
    started = threading.Event()
    result: list[list[str]] = []
    lines: list[str] = []
    thread = threading.Thread(
        target=lambda: result.append(warm(runtime_exists=started.is_set, report=lines.append))
    )
    thread.start()
    assert wait_for(lambda: len(seen) == 1, timeout_s=30)
    assert seen == [LIBRARIES] and thread.is_alive() and not lines  # waiting on the runtime, not ready
    started.set()
    thread.join(timeout=30)
    assert seen == [LIBRARIES, ("core.ui.app", *VIEWS)]
    assert result == [[*LIBRARIES, "core.ui.app", *VIEWS]]
    assert len(lines) == 1 and lines[0].startswith(serve.READY_LINE)


def test_no_runtime_no_views(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serve, "RUNTIME_WAIT_S", 0.2)
    monkeypatch.setattr(serve, "warm_charts", lambda: None)
    monkeypatch.setattr(serve, "preload", lambda modules: list(modules))
    assert serve.warm(runtime_exists=lambda: False) == list(LIBRARIES)


def test_a_cache_defined_before_the_runtime_uses_the_runtimes_storage() -> None:
    """The Streamlit behaviour preloading relies on: a cached function binds its storage at its first call."""
    code = """
import streamlit as st
from streamlit import runtime
from streamlit.runtime.caching.storage.dummy_cache_storage import MemoryCacheStorageManager

@st.cache_data(ttl=10)
def f(x):
    return x * 2

class Manager(MemoryCacheStorageManager):
    created = 0
    def create(self, context):
        Manager.created += 1
        return super().create(context)

class Runtime:
    cache_storage_manager = Manager()

runtime.exists = lambda: True
runtime.get_instance = lambda: Runtime()
assert f(2) == 4 and f(2) == 4
print(Manager.created)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "1"


def test_charts_and_tables_warm_without_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCSCHISEL_WAREHOUSE", str(tmp_path / "wh.duckdb"))
    serve.warm_charts()
    serve.warm_tables()
    assert (tmp_path / "wh.duckdb").exists()  # opened (and its schema checked) ahead of the first visit


def test_the_app_command_runs_the_launcher() -> None:
    cmd = dashboard_command("127.0.0.1", 8599)
    assert cmd[1:3] == ["-m", "core.ui.serve"]
    assert cmd[cmd.index("--server.port") + 1] == "8599"

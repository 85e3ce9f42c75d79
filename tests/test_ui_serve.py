"""core.ui.serve: the dashboard's launcher imports the pages' libraries beside the server's start."""

from __future__ import annotations

import subprocess
import sys

from core.cli.app import dashboard_command
from core.ui.serve import PRELOAD, preload


def test_preload_imports_what_it_can_and_skips_what_fails() -> None:
    assert preload(("json", "core_no_such_module_here", "csv")) == ["json", "csv"]


def test_preloaded_modules_hold_no_streamlit_cache() -> None:
    """A cached function defined outside a running server would bind to a private cache: none is preloaded."""
    code = (
        "import sys\n"
        "from core.ui.serve import preload\n"
        "preload()\n"
        "print(sorted(m for m in sys.modules if m.startswith(('core.ui.', 'streamlit')) and m != 'core.ui.serve'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"  # not even streamlit: no cache can be defined
    assert all(not m.startswith("core.ui") for m in PRELOAD)


def test_the_app_command_runs_the_launcher() -> None:
    cmd = dashboard_command("127.0.0.1", 8599)
    assert cmd[1:3] == ["-m", "core.ui.serve"]
    assert cmd[cmd.index("--server.port") + 1] == "8599"

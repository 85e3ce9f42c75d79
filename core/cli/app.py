"""`docschisel app`: start the dashboard, bound to this machine unless asked otherwise.

The dashboard starts jobs that spend the server's API keys, so it listens on
127.0.0.1 by default. `--host 0.0.0.0` (or any other address) exposes it, and
then it refuses to start without a shared token in $DOCSCHISEL_DASHBOARD_TOKEN,
which every browser session must enter first (core/ui/auth.py).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import click

from core.cli.common import warehouse_option
from core.config import PROJECT_ROOT

DEFAULT_HOST = "127.0.0.1"


def dashboard_command(host: str, port: int) -> list[str]:
    """The command line of the dashboard on host:port: `streamlit run app.py` through core.ui.serve,
    which imports the pages' libraries while the server starts (a faster first visit)."""
    return [
        sys.executable, "-m", "core.ui.serve",
        "--server.address", host, "--server.port", str(port),
        "--server.headless", "true", "--browser.gatherUsageStats", "false",
    ]  # fmt: skip


def check_exposure(host: str) -> str:
    """What to tell the user about who can reach the dashboard; raises when exposed without a token."""
    from core.ui.auth import MIN_TOKEN_LEN, TOKEN_ENV, configured_token, is_loopback

    if is_loopback(host):
        return "only this machine can reach it (pass --host ADDRESS to expose it, with a token)"
    token = configured_token()
    if token is None:
        raise click.UsageError(
            f"refusing to expose the dashboard on {host} without a login: set {TOKEN_ENV} to a secret of at "
            f"least {MIN_TOKEN_LEN} characters (every visitor must enter it), or omit --host"
        )
    if len(token) < MIN_TOKEN_LEN:
        raise click.UsageError(f"{TOKEN_ENV} is too short: use at least {MIN_TOKEN_LEN} characters")
    return f"exposed on {host}: login required with the token in ${TOKEN_ENV}"


def launch(host: str, port: int, warehouse: str | None = None) -> int:
    """Run the dashboard in the foreground; returns Streamlit's exit code."""
    from core.warehouse.store import close_all

    note = check_exposure(host)
    close_all()
    env = dict(os.environ)
    if warehouse:
        env["DOCSCHISEL_WAREHOUSE"] = str(warehouse)
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    click.echo(f"opening the dashboard on http://{shown}:{port} — {note} (Ctrl-C to stop)")
    return run_forwarding_signals(dashboard_command(host, port), env)


def run_forwarding_signals(cmd: list[str], env: dict[str, str]) -> int:
    """Run the server as a child and hand it every stop signal this process gets; returns its exit code.

    Why: a terminal's Ctrl-C reaches both processes, but a supervisor's SIGTERM (systemd, a container
    stop, `kill`) reaches only this one; by default it would die and leave the server running,
    holding the port, with nobody to stop it.
    """
    proc = subprocess.Popen(cmd, env=env, cwd=str(PROJECT_ROOT))

    def forward(signum: int, _frame: object) -> None:
        if proc.poll() is None:
            proc.send_signal(signum)

    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[sig] = signal.signal(sig, forward)
        except ValueError:  # not the main thread: the caller keeps its own handling
            break
    try:
        while True:
            try:
                return proc.wait()
            except KeyboardInterrupt:  # SIGINT sent to this process alone: pass it on, then wait
                forward(signal.SIGINT, None)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@click.command()
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=8501, show_default=True)
@warehouse_option
def command(host: str, port: int, warehouse: str | None) -> None:
    """Start the dashboard (127.0.0.1 unless --host; a non-local address needs $DOCSCHISEL_DASHBOARD_TOKEN)."""
    raise SystemExit(launch(host, port, warehouse))

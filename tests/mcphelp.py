"""Helpers of the MCP tests: the fixture server's command, child processes, an HTTP server on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "mcp"
NOTES_SERVER = FIXTURES / "notes_server.py"
NOTES_TASKS = FIXTURES / "notes" / "tasks.jsonl"


def notes_command(*extra: str) -> str:
    """`mcp:<python> notes_server.py ...` for this interpreter."""
    return "mcp:" + " ".join([sys.executable, str(NOTES_SERVER), *extra])


def descendants(pid: int | None = None) -> set[int]:
    """Every live process below `pid` (default: this one), read from /proc."""
    root = os.getpid() if pid is None else pid
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z":
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    out: set[int] = set()
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in out:
                out.add(child)
                stack.append(child)
    return out


def settle(before: set[int], timeout_s: float = 10.0) -> set[int]:
    """The descendants that are still alive `timeout_s` after `before` was taken, minus `before`."""
    deadline = time.monotonic() + timeout_s
    while True:
        extra = descendants() - before
        if not extra or time.monotonic() > deadline:
            return extra
        time.sleep(0.2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


def start(argv: list[str], port: int) -> subprocess.Popen:
    """A server process listening on loopback `port` (the caller terminates it)."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
    except TimeoutError:
        proc.kill()
        raise
    return proc

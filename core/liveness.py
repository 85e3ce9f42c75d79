"""Which process owns a run or a claimed episode, and whether it still lives.

Why: a run killed with SIGKILL (or a machine that rebooted) leaves its last
status at `started` and its claimed episodes claimed. Whoever looks next — the
next command, the dashboard — must be able to tell a live owner from a dead
one. A process id alone is not enough (ids are reused), so an owner is
`host:pid:start` where `start` is the process's start time in clock ticks
since boot (from /proc). On another host nothing can be checked: such owners
count as alive.
"""

from __future__ import annotations

import functools
import os
import socket


def _start_ticks(pid: int) -> str | None:
    """Field 22 of /proc/<pid>/stat (start time since boot), None when the process does not exist."""
    try:
        stat = open(f"/proc/{pid}/stat", encoding="ascii", errors="replace").read()  # noqa: SIM115
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    if len(fields) > 19 and fields[0] == "Z":
        return None  # a zombie has finished
    return fields[19] if len(fields) > 19 else "?"


@functools.cache
def _host() -> str:
    return socket.gethostname() or "localhost"


def process_owner(pid: int | None = None) -> str:
    """`host:pid:start` of this process (or of `pid`)."""
    pid = os.getpid() if pid is None else pid
    return f"{_host()}:{pid}:{_start_ticks(pid) or '?'}"


def owner_alive(owner: str | None) -> bool:
    """Whether the process named by `owner` (a `process_owner` value, optionally `:suffix`ed) still runs."""
    if not owner:
        return True  # written before owners were recorded: cannot tell, assume alive
    parts = owner.split(":")
    if len(parts) < 3 or parts[0] != _host():
        return True
    try:
        pid = int(parts[1])
    except ValueError:
        return True
    ticks = _start_ticks(pid)
    if ticks is None:
        return False
    return parts[2] in ("?", ticks) or ticks == "?"

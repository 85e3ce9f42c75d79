"""The parent side of the worker: start it, send a call, serve its tool calls, enforce the wall clock.

    executor = Executor(Limits(cpu_s=2, wall_s=10, memory_mb=256))
    outcome = executor.run(code, "lookup_then_send", {"name": "Ann"}, tool=sandbox_call)
    outcome.ok, outcome.value, outcome.defect, outcome.calls

`tool(name, args) -> ToolReply` runs one atomic call on the episode's real
sandbox (so every inner call is recorded there, scored and traced); the worker
never touches the sandbox. An outcome is never an exception: a loop past its
CPU budget, a memory bomb, an exit, a crash, a hung worker past the wall clock
or too many tool calls come back as `ok=False` with `defect` naming which, and
the worker that failed is discarded (the next call starts a fresh one).

Workers are kept in a small process-wide pool: starting one costs ~50 ms, an
SOP call on a warm worker a few milliseconds. Each worker serves one call at a
time; the runner's episode threads each take their own.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORKER = Path(__file__).resolve().parent / "worker.py"
DEFECTS = ("cpu_time", "wall_time", "memory", "exit", "crash", "exception", "call_limit", "invalid")


@dataclass(frozen=True)
class Limits:
    """Per-invocation limits: CPU seconds in the worker, wall seconds overall, address space, tool calls."""

    cpu_s: float = 2.0
    wall_s: float = 10.0
    memory_mb: int = 256
    max_calls: int = 20
    imports: str = "allow"  # allow: the SOP allow-list; any: trusted code (limits and network block stay)


@dataclass(frozen=True)
class ToolReply:
    """What one atomic call gave back: its output text, or the error the sandbox raised."""

    output: str | None = None
    error: str | None = None
    is_error: bool = False


@dataclass
class Outcome:
    """One invocation's result: the value, or the defect that stopped it, and the tool calls it made."""

    ok: bool
    value: str | None = None
    defect: str | None = None  # one of DEFECTS when not ok
    error: str | None = None
    traceback: str | None = None
    log: str = ""
    calls: list[tuple[str, dict[str, Any], ToolReply]] = field(default_factory=list)
    seconds: float = 0.0


ToolFn = Callable[[str, dict[str, Any]], ToolReply]


class _Dead(Exception):
    """The worker closed its pipe (it exited or was killed)."""


class Worker:
    """One worker process and its line protocol."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        cmd = [sys.executable, "-S", "-E", "-B", str(WORKER), "--memory-mb", str(limits.memory_mb)]
        cmd += ["--imports", limits.imports]
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={"PATH": os.defpath},  # none of the parent's variables (API keys stay here)
            cwd=str(WORKER.parent),
            start_new_session=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None  # noqa: S101
        self._fd = self.proc.stdout.fileno()
        os.set_blocking(self._fd, False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._fd, selectors.EVENT_READ)
        self._buf = b""
        ready = self.receive(time.monotonic() + 10.0)
        if ready.get("op") != "ready":
            raise RuntimeError(f"SOP worker did not start: {ready}")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None  # noqa: S101
        try:
            self.proc.stdin.write(json.dumps(msg, ensure_ascii=False, default=str).encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise _Dead(str(exc)) from exc

    def receive(self, deadline: float) -> dict[str, Any]:
        """The next message, or TimeoutError at the deadline, or _Dead when the pipe closes."""
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            if not self._sel.select(timeout=left):
                continue
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                raise _Dead("worker closed its output")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        msg = json.loads(line)
        if msg.get("pid") != self.proc.pid:
            raise ValueError(f"a message from process {msg.get('pid')}, not the worker {self.proc.pid}")
        return msg

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=5)
        with contextlib.suppress(Exception):
            self._sel.close()
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                pipe.close()  # type: ignore[union-attr]

    def exit_reason(self) -> tuple[str, str]:
        """(defect, message) for a worker that died."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)
        rc = self.proc.returncode
        if rc is not None and rc < 0:
            sig = signal.Signals(-rc)
            if sig == signal.SIGXCPU:
                return "cpu_time", f"stopped at its CPU-time limit of {self.limits.cpu_s:g} s (SIGXCPU)"
            if sig == signal.SIGKILL:
                return "crash", "the worker was killed (SIGKILL; memory or an outside kill)"
            return "crash", f"the worker died on {sig.name}"
        return "exit", f"the worker process exited with code {rc}"


class Executor:
    """Runs generated functions in pooled workers under `limits`; thread-safe."""

    def __init__(self, limits: Limits | None = None, pool_size: int = 4) -> None:
        self.limits = limits or Limits()
        self.pool_size = pool_size
        self._idle: list[Worker] = []
        self._lock = threading.Lock()
        self.started = 0  # workers started so far (tests check restarts)
        atexit.register(self.close)

    def _take(self) -> Worker:
        with self._lock:
            while self._idle:
                w = self._idle.pop()
                if w.alive():
                    return w
                w.kill()
            self.started += 1
        return Worker(self.limits)

    def _give(self, worker: Worker) -> None:
        with self._lock:
            if worker.alive() and len(self._idle) < self.pool_size:
                self._idle.append(worker)
                return
        worker.kill()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for w in idle:
            w.kill()

    def run(
        self, code: str, function: str, args: dict[str, Any], tool: ToolFn, *, wall_s: float | None = None
    ) -> Outcome:
        """Call `function` of `code` with `args`; tool calls go to `tool`. Never raises for the code's faults.

        `wall_s` shortens the wall-clock limit for this call (e.g. to what is left of an episode).
        """
        t0 = time.monotonic()
        budget = self.limits.wall_s if wall_s is None else max(0.0, min(self.limits.wall_s, wall_s))
        deadline = t0 + budget
        out = Outcome(ok=False)
        try:
            worker = self._take()
        except (OSError, RuntimeError) as exc:
            out.defect, out.error = "crash", f"could not start an SOP worker: {exc}"
            return out
        healthy = False
        try:
            worker.send(
                {
                    "op": "run",
                    "code": code,
                    "function": function,
                    "args": args,
                    "cpu_s": self.limits.cpu_s,
                    "max_calls": self.limits.max_calls,
                }
            )
            while True:
                msg = worker.receive(deadline)
                if msg.get("op") == "call":
                    reply = tool(str(msg.get("tool")), dict(msg.get("args") or {}))
                    out.calls.append((str(msg.get("tool")), dict(msg.get("args") or {}), reply))
                    ok = reply.error is None
                    worker.send(
                        {
                            "op": "result",
                            "ok": ok,
                            "output": reply.output,
                            "error": reply.error,
                            "is_error": reply.is_error,
                        }
                    )
                    continue
                if msg.get("op") == "done":
                    out.log = str(msg.get("log") or "")
                    if msg.get("ok"):
                        out.ok, out.value = (
                            True,
                            str(msg.get("value") if msg.get("value") is not None else ""),
                        )
                        healthy = True
                    else:
                        out.defect = str(msg.get("kind") or "exception")
                        out.error = str(msg.get("error") or "")
                        out.traceback = msg.get("traceback")
                    break
        except TimeoutError:
            out.defect = "wall_time"
            out.error = f"stopped at its wall-time limit of {budget:g} s"
        except _Dead:
            out.defect, out.error = worker.exit_reason()
        except (ValueError, OSError) as exc:  # a garbled message: the worker is not trusted further
            out.defect, out.error = "crash", f"protocol error: {exc}"
        finally:
            if healthy:
                self._give(worker)
            else:
                worker.kill()  # any defect: the next call gets a fresh worker
        out.seconds = time.monotonic() - t0
        return out

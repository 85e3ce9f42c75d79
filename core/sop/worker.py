"""The worker process that runs generated code: one function call at a time, limited, tools forwarded.

This file is the child side; `core.sop.executor` starts it and speaks to it.
It is the only place in the project where generated source is compiled and
run, and it never runs in the main process:

    python -S -E core/sop/worker.py --memory-mb 256 --imports allow

Why a separate process: generated code can loop forever, allocate without
bound, exit the interpreter or crash it. Here that costs one worker, which the
parent kills or replaces; the run goes on. What the worker does before it
runs anything (see docs/sop.md for what this does and does not protect
against):

- resource limits: address space (`--memory-mb`), CPU seconds per call (the
  soft RLIMIT_CPU is moved to "used so far + budget" before each call; the
  kernel ends the process with SIGXCPU when it is passed), no child processes
  (RLIMIT_NPROC 0, and `os.fork`, `os.system`, the `exec*` and spawn calls
  and `_posixsubprocess.fork_exec` raise, because root ignores RLIMIT_NPROC),
  no file writes (RLIMIT_FSIZE 0), no core dumps;
- no network: `socket.socket`, `socketpair`, `fromfd`, `create_connection` and
  the `_socket` C type raise PermissionError;
- in `allow` mode (SOPs), a reduced set of builtins (no `open`, `eval`,
  `exec`, `__import__` beyond the allow-list, `exit`) — the code has already
  passed `core.sop.validate` in the parent; `any` mode (for trusted user tool
  code later) keeps the limits and the network block only;
- an empty environment (the parent passes none of its variables: no API keys).

Protocol: one JSON object per line. Parent -> worker: {"op": "run", "code",
"function", "args", "cpu_s", "max_calls"} and, for each tool call the code
makes, {"op": "result", "ok", "output" | "error", "is_error"}. Worker ->
parent: {"op": "ready"}, {"op": "call", "tool", "args"} and finally
{"op": "done", "ok": true, "value", "log"} or {"op": "done", "ok": false,
"kind", "error", "traceback", "fatal"}. The code's own prints are captured
and returned in "log"; file descriptor 1 is moved to stderr so nothing the
code writes can corrupt the protocol.
"""

from __future__ import annotations

import argparse
import builtins
import hashlib
import io
import json
import math
import os
import signal
import sys
import traceback
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: find the project without site-packages
    sys.path[0] = str(Path(__file__).resolve().parents[2])

from core.sop import sopapi  # noqa: E402 - after the path fix; standard library only

ALLOWED_MODULES = frozenset(
    {"re", "json", "math", "datetime", "itertools", "collections", "functools", "string", "statistics"}
)
SAFE_BUILTINS = (
    "abs all any bool dict enumerate filter float frozenset int isinstance issubclass len list map max min "
    "next range repr reversed round set slice sorted str sum tuple zip divmod hash ord chr None True False"
).split()


class ToolFailed(Exception):
    """A tool call the parent's sandbox rejected (the message is what an agent would observe)."""


class CallLimit(BaseException):
    """More tool calls than the invocation may make (a BaseException: SOP code cannot swallow it)."""


class Channel:
    """Line-delimited JSON over the saved stdin / stdout descriptors."""

    def __init__(self) -> None:
        self.inp = os.fdopen(os.dup(0), "rb", buffering=0)
        self.out = os.fdopen(os.dup(1), "wb", buffering=0)
        os.dup2(2, 1)  # anything written to fd 1 from now on lands in stderr
        self._buf = b""

    def send(self, msg: dict[str, Any]) -> None:
        msg = {**msg, "pid": os.getpid()}  # the parent drops a worker whose messages come from elsewhere
        self.out.write(json.dumps(msg, ensure_ascii=False, default=str).encode("utf-8") + b"\n")

    def receive(self) -> dict[str, Any] | None:
        while b"\n" not in self._buf:
            chunk = self.inp.read(65536)
            if not chunk:
                return None
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)


class Tools:
    """What SOP code sees as `tools`: the atomic tool API, forwarded to the parent's sandbox."""

    def __init__(self, channel: Channel, max_calls: int) -> None:
        self._channel = channel
        self._max_calls = max_calls
        self._calls = 0
        self._errors: set[str] = set()

    def call(self, tool: str, **args: Any) -> str:
        """Run one atomic tool in the episode's sandbox; returns its output text, raises ToolFailed."""
        self._calls += 1
        if self._calls > self._max_calls:
            raise CallLimit(f"more than {self._max_calls} tool calls in one SOP invocation")
        self._channel.send({"op": "call", "tool": str(tool), "args": args})
        reply = self._channel.receive()
        if reply is None:
            raise SystemExit(0)  # the parent went away
        if not reply.get("ok"):
            raise ToolFailed(str(reply.get("error") or "tool call failed"))
        output = str(reply.get("output") or "")
        if reply.get("is_error"):
            self._errors.add(output)
        return output

    def failed(self, output: Any) -> bool:
        """Whether an output is a rejection (as the benchmark defines it, else by its look)."""
        return output in self._errors or sopapi.looks_like_error(output)

    def empty(self, output: Any) -> bool:
        return sopapi.is_empty(output)

    @staticmethod
    def parse(output: Any) -> Any:
        return sopapi.parse(output)

    @staticmethod
    def pick(output: Any, key: str | None = None) -> Any:
        return sopapi.pick(output, key)

    @staticmethod
    def pick_all(output: Any, key: str | None = None) -> list[Any]:
        return sopapi.pick_all(output, key)


def apply_limits(memory_mb: int) -> None:
    import resource

    limits = [
        (resource.RLIMIT_AS, memory_mb * 1024 * 1024),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_NPROC, 0),
    ]
    for which, value in limits:
        try:
            _soft, hard = resource.getrlimit(which)
            cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (cap, cap))
        except (ValueError, OSError):
            pass  # a limit the platform refuses is not applied; the parent's wall clock still holds
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a file write fails with an error instead of a kill


def set_cpu_budget(seconds: float) -> None:
    """Soft CPU limit = CPU used so far + this call's budget (the hard limit stays where it is)."""
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(math.ceil(spent + max(0.1, seconds)))
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def block_network() -> None:
    import _socket
    import socket

    def refuse(*_a: Any, **_k: Any) -> Any:
        raise PermissionError("network access is disabled in the SOP worker")

    class NoSocket(socket.socket):
        def __init__(self, *_a: Any, **_k: Any) -> None:
            refuse()

    for mod in (socket, _socket):
        mod.socket = NoSocket  # type: ignore[misc, assignment]
        for name in ("socketpair", "fromfd", "create_connection", "create_server", "getaddrinfo"):
            if hasattr(mod, name):
                setattr(mod, name, refuse)


def block_processes() -> None:
    """No new processes: RLIMIT_NPROC does not bind root, so the calls that start one raise too."""
    import os as _os

    def refuse(*_a: Any, **_k: Any) -> Any:
        raise PermissionError("starting processes is disabled in the SOP worker")

    names = "fork forkpty system popen posix_spawn posix_spawnp execv execve execvp execvpe execl execle execlp execlpe"
    for name in names.split():
        if hasattr(_os, name):
            setattr(_os, name, refuse)
    try:
        import _posixsubprocess

        _posixsubprocess.fork_exec = refuse  # type: ignore[attr-defined]
    except ImportError:
        pass


def _restricted_import(name: str, globals_=None, locals_=None, fromlist=(), level=0):  # noqa: ANN001
    if level != 0 or name.split(".")[0] not in ALLOWED_MODULES:
        raise ImportError(f"import of {name!r} is not allowed in SOP code")
    return builtins.__import__(name, globals_, locals_, fromlist, level)


def sop_builtins(log: io.StringIO) -> dict[str, Any]:
    table = {n: getattr(builtins, n) for n in SAFE_BUILTINS if hasattr(builtins, n)}
    for n in dir(builtins):
        obj = getattr(builtins, n)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            table[n] = obj
    table["__import__"] = _restricted_import
    table["__build_class__"] = builtins.__build_class__
    table["print"] = lambda *a, **_k: log.write(" ".join(str(x) for x in a) + "\n")
    return table


def run_one(channel: Channel, msg: dict[str, Any], mode: str, cache: dict[str, Any]) -> dict[str, Any]:
    """Compile (cached by hash) and call the function; every failure becomes a `done` message."""
    log = io.StringIO()
    source = str(msg.get("code") or "")
    key = hashlib.sha256(source.encode("utf-8")).hexdigest()
    tools = Tools(channel, int(msg.get("max_calls") or 20))
    set_cpu_budget(float(msg.get("cpu_s") or 2.0))
    failure: tuple[str, str, str, bool] | None = None
    value: Any = None
    try:
        code = cache.get(key)
        if code is None:
            code = compile(source, f"<sop {msg.get('function')}>", "exec")
            cache[key] = code
        table = sop_builtins(log) if mode == "allow" else dict(vars(builtins))
        namespace: dict[str, Any] = {"__builtins__": table, "__name__": "sop", "tools": tools}
        namespace["ToolFailed"] = ToolFailed
        exec(code, namespace)  # the worker process only: this is what the worker is for
        fn = namespace[str(msg.get("function"))]
        value = fn(**dict(msg.get("args") or {}))
    except MemoryError:
        # no traceback: formatting one needs memory, and the frames holding the allocation are freed below
        failure = ("memory", "MemoryError: the SOP exceeded its memory limit", "", True)
    except RecursionError as exc:
        failure = ("exception", f"RecursionError: {exc}", "", True)
    except CallLimit as exc:
        failure = ("call_limit", str(exc), "", False)
    except SystemExit as exc:
        failure = ("exit", f"SystemExit({exc.code!r}): the SOP tried to exit the interpreter", "", False)
    except KeyboardInterrupt:
        failure = ("exit", "KeyboardInterrupt", "", False)
    except BaseException as exc:  # noqa: BLE001 - any error of generated code is reported, not raised
        failure = ("exception", f"{type(exc).__name__}: {exc}", traceback.format_exc(limit=6), False)
    if failure is not None:  # outside the handlers: the failed call's frames are gone by now
        return _failed(*failure, log)
    text = value if isinstance(value, str) else _text(value)
    return {"op": "done", "ok": True, "value": text, "log": log.getvalue()[-4000:]}


def _text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _failed(kind: str, error: str, trace: str, fatal: bool, log: io.StringIO) -> dict[str, Any]:
    return {
        "op": "done",
        "ok": False,
        "kind": kind,
        "error": error[:2000],
        "traceback": trace[-3000:],
        "log": log.getvalue()[-4000:],
        "fatal": fatal,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="run generated SOP functions under limits")
    ap.add_argument("--memory-mb", type=int, default=256)
    ap.add_argument("--imports", choices=("allow", "any"), default="allow")
    args = ap.parse_args(argv)
    channel = Channel()
    apply_limits(args.memory_mb)
    block_network()
    block_processes()
    channel.send({"op": "ready"})
    cache: dict[str, Any] = {}
    while True:
        msg = channel.receive()
        if msg is None or msg.get("op") == "stop":
            return 0
        if msg.get("op") != "run":
            continue
        done = run_one(channel, msg, args.imports, cache)
        channel.send(done)
        if done.get("fatal"):
            return 3  # a worker that ran out of memory is not reused


if __name__ == "__main__":
    sys.exit(main())

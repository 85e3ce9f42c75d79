"""Run untrusted Python functions in a separate worker process, one call at a time.

Why. A user's `tools.py` (and, later, generated code) is arbitrary Python: it
may call `sys.exit()`, `os._exit()`, sleep forever, allocate without end or
print the environment. Run in the CLI, a job or the Streamlit process, any of
these ends or hangs the product. A `Worker` imports the module in a child
process (`core/sandbox/child.py`, started with `python -I`) and calls its
functions there:

- every call and the import have a wall-clock timeout; a call that overruns,
  a worker that exits or crashes, or a reply that breaks the protocol kills
  the worker (its whole process group) and is reported as `ToolFailure` with
  a class (`tool_timeout`, `tool_crash`); the next call starts a fresh worker
  from the same source, so one bad call never poisons the rest of a run;
- exceptions a function raises (`SystemExit` included) come back as
  `ToolRaised` with `Type: message`, and the worker lives on;
- the worker's environment holds no secret (`worker_env`), its memory, file
  size and CPU time are limited (`Limits`), and its stdout is not the protocol
  stream, so prints cannot forge a reply.

What it does not protect against: the worker runs as the same user, with the
same file system and network access. It stops accidents and sloppy code, not a
determined attacker; run untrusted folders in a container or VM.

    worker = Worker(source, filename, limits=Limits(call_s=5))
    info = worker.start()                           # ModuleInfo: functions and their signatures
    reply = worker.call("add", {"a": 1}, state={}, state_param="state")
    reply.text, reply.value, reply.state
    worker.close()

`Pool` hands out up to `size` workers of one module to concurrent callers.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from core.redaction import is_secret_name

CHILD = Path(__file__).with_name("child.py")
MAX_REPLY_BYTES = 16 * 1024 * 1024 + 4096
# Variables a worker may see: locating programs and libraries, the locale and the time zone.
BASE_ENV = ("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT")
ENV_PASS = "DOCSCHISEL_TOOL_ENV"  # extra variable names a user's tools need (comma-separated)


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


@dataclass(frozen=True)
class Limits:
    """Per-worker limits. Defaults come from the environment so a deployment can tighten them.

    `call_s` / `import_s`: wall-clock seconds per call / for the import
    (DOCSCHISEL_TOOL_TIMEOUT, DOCSCHISEL_TOOL_IMPORT_TIMEOUT); `memory_mb`:
    address space (DOCSCHISEL_TOOL_MEMORY_MB); `file_mb`: largest file the
    worker may write; `open_files`: descriptors.
    """

    call_s: float = field(default_factory=lambda: _env_float("DOCSCHISEL_TOOL_TIMEOUT", 30.0))
    import_s: float = field(default_factory=lambda: _env_float("DOCSCHISEL_TOOL_IMPORT_TIMEOUT", 30.0))
    memory_mb: int = field(default_factory=lambda: int(_env_float("DOCSCHISEL_TOOL_MEMORY_MB", 2048)))
    file_mb: int = 256
    open_files: int = 256

    def child_spec(self) -> dict[str, Any]:
        return {"memory_mb": self.memory_mb, "file_mb": self.file_mb, "open_files": self.open_files}


class WorkerError(Exception):
    """Base of the worker's failures; `error_class` names the kind for traces."""

    error_class = "tool_error"


class ToolRaised(WorkerError):
    """The function raised; the message is `Type: message`. The worker is still usable."""

    error_class = "tool_crash"

    def __init__(self, message: str, state: Any = None) -> None:
        super().__init__(message)
        self.state = state


class ToolFailure(WorkerError):
    """The worker died, overran its time or broke the protocol during a call; it was restarted."""

    def __init__(self, message: str, error_class: str = "tool_crash") -> None:
        super().__init__(message)
        self.error_class = error_class


class ImportFailure(WorkerError):
    """The module could not be imported: a syntax error, an exception, an exit, a hang."""

    error_class = "import_error"

    def __init__(self, message: str, line: int | None = None, kind: str = "") -> None:
        super().__init__(message)
        self.line = line
        self.kind = kind


class WorkerUnavailable(WorkerError):
    """No worker process could be started at all (an infrastructure failure, not the tool's)."""

    error_class = "infra_sandbox"


@dataclass(frozen=True)
class ParamInfo:
    name: str
    kind: str  # inspect.Parameter kind name: POSITIONAL_OR_KEYWORD, KEYWORD_ONLY, VAR_KEYWORD, ...
    has_default: bool
    default: Any
    default_is_json: bool
    annotation: str | None


@dataclass(frozen=True)
class FunctionInfo:
    """One function of the module as the worker saw it: signature and docstring, no code."""

    name: str
    line: int | None
    doc: str | None
    params: tuple[ParamInfo, ...]
    returns: str | None
    signature_error: str | None = None

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> FunctionInfo:
        return cls(
            name=str(d["name"]),
            line=d.get("line"),
            doc=d.get("doc"),
            params=tuple(ParamInfo(**p) for p in d.get("params") or ()),
            returns=d.get("returns"),
            signature_error=d.get("signature_error"),
        )


@dataclass(frozen=True)
class ModuleInfo:
    functions: tuple[FunctionInfo, ...]
    problems: tuple[str, ...]  # e.g. a bad __all__


@dataclass(frozen=True)
class Reply:
    """A successful call: the observation text, the value as JSON data and the state after it."""

    text: str
    value: Any
    state: Any


def worker_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The worker's environment: locale and paths only; no key, token or password ever.

    Names listed in $DOCSCHISEL_TOOL_ENV are passed too (tools that need a
    setting of their own), unless they look secret.
    """
    env = os.environ if environ is None else environ
    extra = {n.strip() for n in env.get(ENV_PASS, "").split(",") if n.strip()}
    return {
        k: v
        for k, v in env.items()
        if (k in BASE_ENV or k.startswith("LC_") or k in extra) and not is_secret_name(k)
    }


class Worker:
    """One worker process for one module; thread-safe, one call at a time."""

    def __init__(
        self,
        source: str,
        filename: str,
        *,
        limits: Limits | None = None,
        module: str = "docschisel_user_module",
        cwd: str | os.PathLike[str] | None = None,
    ) -> None:
        self.source = source
        self.filename = filename
        self.module = module
        self.limits = limits or Limits()
        self.cwd = str(cwd) if cwd is not None else os.path.dirname(filename) or None
        self.info: ModuleInfo | None = None
        self.restarts = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._buf = bytearray()
        self._lock = threading.RLock()
        _LIVE.add(self)

    # ------------------------------------------------------------------ lifecycle
    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> ModuleInfo:
        """Start the process and import the module; `ImportFailure` says why it cannot be used."""
        with self._lock:
            if self.alive and self.info is not None:
                return self.info
            self._spawn()
            deadline = time.monotonic() + self.limits.import_s
            try:
                reply = self._request(
                    {"op": "load", "source": self.source, "filename": self.filename, "module": self.module},
                    deadline,
                )
            except _Timeout:
                self.kill()
                raise ImportFailure(
                    f"importing the module did not finish within {self.limits.import_s:g}s", kind="timeout"
                ) from None
            except _Died as exc:
                self.kill()
                raise ImportFailure(
                    f"the module ended the worker process during import ({exc})", kind="exit"
                ) from None
            if not reply.get("ok"):
                self.kill()
                err = reply.get("error") or {}
                if isinstance(err, str):
                    raise ImportFailure(err)
                raise ImportFailure(
                    f"{err.get('type', 'Error')}: {err.get('message', '')}".rstrip(": "),
                    err.get("line"),
                    kind=str(err.get("type", "")),
                )
            self.info = ModuleInfo(
                tuple(FunctionInfo.from_json(f) for f in reply.get("functions") or ()),
                tuple(str(p) for p in reply.get("problems") or ()),
            )
            return self.info

    def _spawn(self) -> None:
        self.kill()
        cmd = [sys.executable, "-I", "-X", "utf8", str(CHILD), json.dumps(self.limits.child_spec())]
        try:
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None,  # the user's prints and warnings reach our stderr, as before
                cwd=self.cwd,
                env=worker_env(),
                start_new_session=True,  # its own process group: a kill takes its children along
            )
        except OSError as exc:
            raise WorkerUnavailable(f"cannot start a worker process: {exc}") from exc
        self._buf.clear()

    def kill(self) -> None:
        """End the worker and everything it started (no-op when none runs)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        _kill(proc)

    close = kill

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.kill()

    # ------------------------------------------------------------------ calls
    def call(
        self,
        function: str,
        args: Mapping[str, Any],
        *,
        state: Any = None,
        state_param: str | None = None,
        timeout_s: float | None = None,
    ) -> Reply:
        """Call `function(**args)` (plus `state` under `state_param`) in the worker.

        Raises `ToolRaised` when the function raised, `ToolFailure` when the
        worker timed out, died or misbehaved (it is restarted for the next
        call), `WorkerUnavailable` when no worker can be started.
        """
        limit = self.limits.call_s if timeout_s is None else max(0.0, min(timeout_s, self.limits.call_s))
        with self._lock:
            if not (self.alive and self.info is not None):
                restart = self.info is not None
                try:
                    self.start()
                except ImportFailure as exc:
                    raise WorkerUnavailable(f"the worker could not be (re)started: {exc}") from exc
                self.restarts += restart
            request = {
                "op": "call",
                "function": function,
                "args": dict(args),
                "state": state,
                "state_param": state_param,
                "cpu_s": limit + 1.0,
            }
            try:
                reply = self._request(request, time.monotonic() + limit)
            except _Timeout:
                self.kill()
                raise ToolFailure(
                    f"the tool did not return within {limit:g}s and was stopped", "tool_timeout"
                ) from None
            except _Died as exc:
                self.kill()
                raise ToolFailure(f"the tool ended its worker process ({exc})", "tool_crash") from None
        if reply.get("ok"):
            return Reply(str(reply.get("text", "")), reply.get("value"), reply.get("state"))
        raise ToolRaised(str(reply.get("error") or "error"), reply.get("state"))

    # ------------------------------------------------------------------ protocol
    def _request(self, message: Mapping[str, Any], deadline: float) -> dict[str, Any]:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise _Died("no worker process")
        try:
            data = json.dumps(message, ensure_ascii=False, default=str).encode("utf-8", "replace")
        except (ValueError, RecursionError) as exc:
            raise ToolFailure(f"the call cannot be sent to the worker: {exc}", "bad_arguments") from exc
        try:
            proc.stdin.write(data + b"\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise _Died(self._exit_text(proc, exc)) from None
        line = self._read_line(proc, deadline)
        try:
            reply = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise _Died(f"unreadable reply: {exc}") from None
        if not isinstance(reply, dict):
            raise _Died("unreadable reply")
        return reply

    def _read_line(self, proc: subprocess.Popen[bytes], deadline: float) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line = bytes(self._buf[:nl])
                del self._buf[: nl + 1]
                return line
            if len(self._buf) > MAX_REPLY_BYTES:
                raise _Died("reply larger than the limit")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Timeout
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                raise _Timeout
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise _Died(self._exit_text(proc))
            self._buf.extend(chunk)

    @staticmethod
    def _exit_text(proc: subprocess.Popen[bytes], exc: BaseException | None = None) -> str:
        try:
            rc = proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return f"the pipe closed{f': {exc}' if exc else ''}"
        if rc < 0:
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(-rc).name}"
        return f"exit code {rc}"


class _Timeout(Exception):
    pass


class _Died(Exception):
    pass


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, OSError):
        proc.kill()
    for stream in (proc.stdin, proc.stdout):
        with contextlib.suppress(OSError, ValueError):
            if stream is not None:
                stream.close()
    with contextlib.suppress(subprocess.TimeoutExpired, OSError):
        proc.wait(timeout=5.0)


class Pool:
    """Up to `size` workers of one module, each serving one caller at a time.

    The first worker is started (and the module imported) by `start()`; more
    are started on demand when concurrent callers need them.
    """

    def __init__(self, source: str, filename: str, *, size: int = 2, **worker_kw: Any) -> None:
        self._make = lambda: Worker(source, filename, **worker_kw)
        self.size = max(1, size)
        self._idle: list[Worker] = []
        self._all: list[Worker] = []
        self._cond = threading.Condition()

    def start(self) -> ModuleInfo:
        worker = self._make()
        info = worker.start()
        with self._cond:
            self._all.append(worker)
            self._idle.append(worker)
            self._cond.notify()
        return info

    @contextlib.contextmanager
    def lease(self):  # noqa: ANN201 - a context manager yielding a Worker
        with self._cond:
            while not self._idle and len(self._all) >= self.size:
                self._cond.wait()
            if self._idle:
                worker = self._idle.pop()
            else:
                worker = self._make()
                self._all.append(worker)
        try:
            yield worker
        finally:
            with self._cond:
                self._idle.append(worker)
                self._cond.notify()

    def call(self, function: str, args: Mapping[str, Any], **kw: Any) -> Reply:
        with self.lease() as worker:
            return worker.call(function, args, **kw)

    @property
    def restarts(self) -> int:
        return sum(w.restarts for w in self._all)

    def close(self) -> None:
        with self._cond:
            for w in self._all:
                w.kill()


_LIVE: weakref.WeakSet[Worker] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for w in list(_LIVE):
        with contextlib.suppress(Exception):
            w.kill()


def with_limits(limits: Limits | None = None, **changes: Any) -> Limits:
    """`limits` (default: from the environment) with some fields changed."""
    return replace(limits or Limits(), **changes)

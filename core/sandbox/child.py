"""The worker process that runs untrusted Python functions (started by core.sandbox.worker).

This file runs as a script (`python -I child.py LIMITS_JSON`), not as part of
the `core` package: it imports only the standard library, so a worker starts
in tens of milliseconds and user code finds no project module set up for it.

Protocol: one JSON object per line. Requests arrive on the original stdin and
replies leave on the original stdout; both are moved to private descriptors
at start, and the user's `print` goes to stderr instead, so nothing the user's
code writes can corrupt a reply.

    {"op": "load", "source": "...", "filename": "/abs/tools.py", "module": "name"}
        -> {"ok": true, "functions": [FUNCTION_INFO, ...], "problems": ["..."]}
        -> {"ok": false, "error": {"type": ..., "message": ..., "line": ...}}
    {"op": "call", "function": "f", "args": {...}, "state": {...} | null, "state_param": "state"}
        -> {"ok": true, "text": "observation", "value": JSON | null, "state": {...} | null}
        -> {"ok": false, "error": "Type: message", "state": {...} | null}
    {"op": "ping"} -> {"ok": true}

A `SystemExit` or `KeyboardInterrupt` raised by a function is an error reply
like any exception; `os._exit`, a crash or a resource limit ends the process
and the parent sees the pipe close.
"""

from __future__ import annotations

import inspect
import json
import os
import resource
import sys
import threading
import time
import traceback
import types
from typing import Any

MAX_REPLY_BYTES = 16 * 1024 * 1024


def _limits(spec: dict[str, Any]) -> None:
    """Apply the resource limits the parent asked for (best effort: some may be refused)."""
    mb = spec.get("memory_mb")
    if mb:
        _setlimit(resource.RLIMIT_AS, int(mb) * 1024 * 1024)
    fsize = spec.get("file_mb")
    if fsize:
        _setlimit(resource.RLIMIT_FSIZE, int(fsize) * 1024 * 1024)
    nofile = spec.get("open_files")
    if nofile:
        _setlimit(resource.RLIMIT_NOFILE, int(nofile))
    _setlimit(resource.RLIMIT_CORE, 0)


def _setlimit(which: int, value: int) -> None:
    try:
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, hard))
    except (ValueError, OSError):
        pass


def _cpu_budget(seconds: float | None) -> None:
    """Let the next call use `seconds` more CPU time (a backstop behind the parent's wall clock)."""
    if not seconds:
        return
    used = time.process_time()
    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        resource.setrlimit(resource.RLIMIT_CPU, (int(used + seconds) + 1, hard))
    except (ValueError, OSError):
        pass


def _watch_parent(parent: int) -> None:
    """End this process when the parent is gone, even while a function is stuck."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(3)


def annotation_text(annotation: Any) -> str | None:
    """Readable type text for an annotation (mirrors core.docs.parsers.python.annotation_text)."""
    if annotation is inspect.Parameter.empty or annotation is inspect.Signature.empty:
        return None
    if isinstance(annotation, str):
        return annotation
    if annotation is None or annotation is type(None):
        return "None"
    if isinstance(annotation, type) and not getattr(annotation, "__args__", None):
        return annotation.__name__
    return repr(annotation).replace("typing.", "")


def _json_value(value: Any) -> tuple[Any, bool]:
    """(value as JSON data, whether it was JSON already); other values become their repr."""
    try:
        return json.loads(json.dumps(value)), True
    except (TypeError, ValueError, RecursionError):
        return repr(value), False


def _describe(name: str, fn: Any) -> dict[str, Any]:
    info: dict[str, Any] = {
        "name": name,
        "line": getattr(getattr(fn, "__code__", None), "co_firstlineno", None),
        "doc": inspect.getdoc(fn),
        "params": [],
        "returns": None,
    }
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        info["signature_error"] = str(exc)
        return info
    for p in sig.parameters.values():
        has_default = p.default is not inspect.Parameter.empty
        default, is_json = _json_value(p.default) if has_default else (None, True)
        info["params"].append(
            {
                "name": p.name,
                "kind": p.kind.name,
                "has_default": has_default,
                "default": default,
                "default_is_json": is_json,
                "annotation": annotation_text(p.annotation),
            }
        )
    info["returns"] = annotation_text(sig.return_annotation)
    return info


def _public(module: types.ModuleType) -> tuple[dict[str, Any], list[str]]:
    """The module's functions: names in `__all__`, else public functions defined in it."""
    exported = getattr(module, "__all__", None)
    if exported is not None:
        if not isinstance(exported, list | tuple) or not all(isinstance(n, str) for n in exported):
            return {}, ["__all__ must be a list of function names"]
        out, problems = {}, []
        for n in exported:
            obj = getattr(module, n, None)
            if not inspect.isfunction(obj):
                problems.append(f"__all__ names {n!r}, which is not a function defined in the module")
            else:
                out[n] = obj
        return out, problems
    return {
        n: obj
        for n, obj in vars(module).items()
        if not n.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__
    }, []


class Host:
    """The loaded module and its functions."""

    def __init__(self) -> None:
        self.functions: dict[str, Any] = {}
        self.filename = ""

    def load(self, req: dict[str, Any]) -> dict[str, Any]:
        source: str = req["source"]
        self.filename = filename = req["filename"]
        name = req.get("module") or "user_module"
        try:
            code = compile(source, filename, "exec", dont_inherit=True)
        except SyntaxError as exc:
            return {"ok": False, "error": {"type": "SyntaxError", "message": exc.msg, "line": exc.lineno}}
        except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, absurd nesting
            return {"ok": False, "error": {"type": type(exc).__name__, "message": str(exc), "line": None}}
        module = types.ModuleType(name)
        module.__file__ = filename
        sys.modules[name] = module  # dataclasses and pickling inside the user's module look it up
        try:
            exec(code, module.__dict__)  # noqa: S102 - running the user's module is this process's job
        except BaseException as exc:  # noqa: BLE001 - SystemExit at import is a load error too
            return {"ok": False, "error": self._where(exc)}
        functions, problems = _public(module)
        self.functions = functions
        return {
            "ok": True,
            "functions": [_describe(n, f) for n, f in functions.items()],
            "problems": problems,
        }

    def _where(self, exc: BaseException) -> dict[str, Any]:
        line = next(
            (
                f.lineno
                for f in reversed(traceback.extract_tb(exc.__traceback__))
                if f.filename == self.filename
            ),
            None,
        )
        return {"type": type(exc).__name__, "message": str(exc), "line": line}

    def call(self, req: dict[str, Any]) -> dict[str, Any]:
        fn = self.functions.get(req["function"])
        state = req.get("state")
        if fn is None:
            return {"ok": False, "error": f"no function {req['function']!r}", "state": state}
        kwargs = dict(req.get("args") or {})
        if req.get("state_param"):
            kwargs[req["state_param"]] = state
        _cpu_budget(req.get("cpu_s"))
        try:
            value = fn(**kwargs)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt are tool errors here
            text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            return {"ok": False, "error": text, "state": state}
        finally:
            _cpu_budget(3600.0)
        json_value, _ = _json_value(value)
        return {"ok": True, "text": render(value), "value": json_value, "state": state}


def render(value: Any) -> str:
    """What an agent sees: strings as they are, anything else as JSON (None becomes null)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def _encode(reply: dict[str, Any]) -> bytes:
    try:
        data = json.dumps(reply, ensure_ascii=False, default=str).encode("utf-8", "replace")
    except (TypeError, ValueError, RecursionError) as exc:
        data = json.dumps(
            {"ok": False, "error": f"the result cannot be sent back: {type(exc).__name__}: {exc}"}
        ).encode()
    if len(data) > MAX_REPLY_BYTES:
        data = json.dumps(
            {
                "ok": False,
                "error": f"the result is {len(data) // 1_000_000} MB; the limit is "
                f"{MAX_REPLY_BYTES // 1_000_000} MB",
                "state": reply.get("state")
                if len(json.dumps(reply.get("state"), default=str)) < MAX_REPLY_BYTES
                else None,
            }
        ).encode()
    return data + b"\n"


def main() -> None:
    limits = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    # Private channels: the user's print() must never reach the protocol stream.
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _limits(limits)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    host = Host()
    for raw in proto_in:
        try:
            req = json.loads(raw)
            op = req.get("op")
            if op == "load":
                reply = host.load(req)
            elif op == "call":
                reply = host.call(req)
            elif op == "ping":
                reply = {"ok": True}
            else:
                reply = {"ok": False, "error": f"unknown op {op!r}"}
        except Exception as exc:  # noqa: BLE001 - a malformed request is answered, not fatal
            reply = {"ok": False, "error": f"worker: {type(exc).__name__}: {exc}"}
        proto_out.write(_encode(reply))
        proto_out.flush()


if __name__ == "__main__":
    main()

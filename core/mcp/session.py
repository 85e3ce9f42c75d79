"""A synchronous client session with one MCP server (stdio command or streamable-HTTP URL).

Why synchronous: the runner, the sandboxes and the checks run episodes in
plain threads, while the `mcp` SDK is async (anyio). Each `McpSession` owns
one event loop in its own thread (an anyio blocking portal) and one SDK
`Client` entered inside it; callers get blocking `list_tools` / `call_tool`
and a `close` that leaves nothing behind: the client's exit stops the server
process tree (stdio) and the portal's exit stops the loop and joins its
thread. A `weakref.finalize` closes a session that was dropped without
`close`, so a forgotten sandbox cannot leak a server process either.

Failures keep their kind, because an episode records them as its error
class: `mcp_start` (the server did not start or answer the handshake),
`mcp_crash` (the connection closed: the process exited), `mcp_timeout` (no
answer in time; the server is then stopped, it may be wedged) and
`mcp_protocol` (an answer that is not valid MCP). A JSON-RPC error answer to
one call is not a failure of the session: it comes back as an error result.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

START_TIMEOUT_S = 60.0
CALL_TIMEOUT_S = 30.0
STDERR_TAIL = 1200  # characters of the server's stderr quoted in a failure message


class McpFailure(Exception):
    """The session with the server is unusable; `error_class` names why (see the module docstring)."""

    def __init__(self, error_class: str, message: str) -> None:
        super().__init__(message)
        self.error_class = error_class


@dataclass(frozen=True)
class ServerSpec:
    """Where an MCP server is: a stdio command (argv) or a streamable-HTTP URL."""

    command: tuple[str, ...] = ()
    url: str | None = None
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if bool(self.command) == bool(self.url):
            raise ValueError("an MCP server is either a command or a URL")

    @classmethod
    def parse(cls, text: str, *, cwd: str | None = None) -> ServerSpec:
        """`mcp:<command>`, `mcp+http(s)://host/path`, a bare URL or a bare command line."""
        value = text.strip()
        if value.startswith("mcp+"):
            value = value[4:]
        elif value.startswith("mcp:"):
            value = value[4:].strip()
        if value.startswith(("http://", "https://")):
            return cls(url=value)
        try:
            argv = tuple(shlex.split(value))
        except ValueError as exc:
            raise ValueError(f"cannot read the MCP server command {text!r}: {exc}") from None
        if not argv:
            raise ValueError(f"no MCP server command in {text!r}")
        return cls(command=argv, cwd=cwd)

    @property
    def is_http(self) -> bool:
        return self.url is not None

    def label(self) -> str:
        return self.url or shlex.join(self.command)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"url": self.url} if self.url else {"command": list(self.command)}
        if self.cwd:
            out["cwd"] = self.cwd
        return out


@dataclass(frozen=True)
class ToolResult:
    """One `tools/call` answer: the text an agent observes, the error flag and the full result."""

    text: str
    is_error: bool
    raw: dict[str, Any]


def result_text(raw: Mapping[str, Any]) -> str:
    """What an agent observes: the text blocks joined; structured content as JSON when there is no text."""
    parts: list[str] = []
    for block in raw.get("content") or []:
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") == "resource" and isinstance(block.get("resource"), dict):
            parts.append(str(block["resource"].get("text") or block["resource"].get("uri") or ""))
        else:
            parts.append(f"[{block.get('type', 'content')}]")
    if not parts and raw.get("structuredContent") is not None:
        return json.dumps(raw["structuredContent"], ensure_ascii=False)
    return "\n".join(parts)


def dump(model: Any) -> dict[str, Any]:
    """An SDK model as the JSON the wire carries (aliases, no unset fields)."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


class McpSession:
    """One connected client; `open()` (or `with`) starts it, `close()` ends it and its server."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        start_timeout_s: float = START_TIMEOUT_S,
        call_timeout_s: float = CALL_TIMEOUT_S,
    ) -> None:
        self.spec = spec
        self.start_timeout_s = start_timeout_s
        self.call_timeout_s = call_timeout_s
        self.broken: McpFailure | None = None
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {}
        self._finalizer = weakref.finalize(self, _shutdown, self._state)

    # ------------------------------------------------------------------ lifecycle
    def open(self) -> McpSession:
        from anyio.from_thread import start_blocking_portal

        if self._state.get("client") is not None:
            return self
        state = self._state
        state["errlog"] = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        state["portal_cm"] = start_blocking_portal(backend="asyncio")
        portal = state["portal_cm"].__enter__()
        state["portal"] = portal
        try:
            future, (client, stop) = portal.start_task(
                _serve, self.spec, state["errlog"], self.start_timeout_s
            )
        except BaseException as exc:  # noqa: BLE001 - any start failure is reported the same way
            message = self._explain(f"the MCP server {self.spec.label()} did not start", exc)
            _shutdown(state)
            raise McpFailure("mcp_start", message) from None
        state.update(client=client, stop=stop, future=future)
        return self

    def close(self) -> None:
        """Stop the client, the server process (stdio) and the event-loop thread; idempotent."""
        with self._lock:
            _shutdown(self._state)

    def __enter__(self) -> McpSession:
        return self.open()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def is_open(self) -> bool:
        return self._state.get("client") is not None

    # ------------------------------------------------------------------ calls
    def list_tools(self) -> list[dict[str, Any]]:
        """Every tool definition of the server (all pages), as wire JSON."""
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(1000):
            page = self._run(_list_page, cursor, timeout_s=self.start_timeout_s, what="tools/list")
            tools.extend(dump(t) for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools
        raise McpFailure("mcp_protocol", f"{self.spec.label()}: tools/list never ended (1000 pages)")

    def call_tool(self, name: str, args: Mapping[str, Any], *, timeout_s: float | None = None) -> ToolResult:
        """Run one tool; a JSON-RPC error answer comes back as an error result, not an exception."""
        from mcp.shared.exceptions import MCPError

        limit = self.call_timeout_s if timeout_s is None else max(0.05, min(timeout_s, self.call_timeout_s))
        try:
            result = self._run(_call, name, dict(args), timeout_s=limit, what=f"tools/call {name}")
        except _RpcError as exc:
            err: MCPError = exc.args[0]
            text = f"MCP error {err.code}: {err.message}"
            return ToolResult(text, True, {"error": {"code": err.code, "message": err.message}})
        raw = dump(result)
        raw.pop("_meta", None)  # the server's identity stamp, not part of the answer
        return ToolResult(result_text(raw), bool(raw.get("isError")), raw)

    def _run(self, fn: Any, *args: Any, timeout_s: float, what: str) -> Any:
        if self.broken is not None:
            raise self.broken
        if not self.is_open:
            self.open()
        portal, client = self._state["portal"], self._state["client"]
        try:
            return portal.call(_bounded, fn, client, args, timeout_s)
        except _RpcError:
            raise
        except TimeoutError:
            failure = McpFailure(
                "mcp_timeout", f"{self.spec.label()}: no answer to {what} within {timeout_s:.0f} s"
            )
        except BaseException as exc:  # noqa: BLE001 - classified below, the caller gets one kind
            kind = "mcp_protocol" if _is_protocol(exc) else "mcp_crash"
            verb = (
                "sent an answer that is not valid MCP" if kind == "mcp_protocol" else "closed the connection"
            )
            failure = McpFailure(kind, self._explain(f"{self.spec.label()} {verb} during {what}", exc))
        self.broken = failure
        self.close()  # a wedged or dead server is stopped now, not at the end of the episode
        raise failure

    def _explain(self, head: str, exc: BaseException) -> str:
        detail = _exception_text(exc)
        tail = _stderr_tail(self._state.get("errlog"))
        return head + (f": {detail}" if detail else "") + (f"\nserver stderr: …{tail}" if tail else "")


class _RpcError(Exception):
    """Carries an `MCPError` answer out of the portal untouched by the failure classification."""


async def _serve(spec: ServerSpec, errlog: Any, timeout_s: float, *, task_status: Any) -> None:
    """The client's whole life in one task: connect (within `timeout_s`), hand it out, wait for stop.

    One task, because the SDK's client keeps task groups and cancel scopes open
    between its enter and its exit, and anyio requires both in the same task.
    """
    import math

    import anyio
    from mcp import Client

    target = client_target(spec, errlog)
    stop = anyio.Event()
    with anyio.CancelScope(deadline=anyio.current_time() + timeout_s) as scope:
        async with Client(target, cache=None) as client:
            scope.deadline = math.inf
            task_status.started((client, stop))
            await stop.wait()
    if scope.cancelled_caught:
        raise TimeoutError(f"no handshake within {timeout_s:.0f} s")


def client_target(spec: ServerSpec, errlog: Any) -> Any:
    """What the SDK's `Client` connects to: the URL, or a stdio transport whose stderr goes to `errlog`."""
    if spec.url:
        return spec.url
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=spec.command[0],
        args=list(spec.command[1:]),
        env={**_passed_env(), **dict(spec.env)},
        cwd=spec.cwd,
    )
    return stdio_client(params, errlog=errlog)


def _passed_env() -> dict[str, str]:
    """Environment a stdio server inherits beyond the SDK's safe minimum: Python and Node settings."""
    keep = ("PYTHONPATH", "VIRTUAL_ENV", "NODE_PATH", "LANG", "LC_ALL", "TMPDIR")
    return {k: os.environ[k] for k in keep if k in os.environ}


async def _bounded(fn: Any, client: Any, args: tuple, timeout_s: float) -> Any:
    import anyio
    from mcp.shared.exceptions import MCPError

    with anyio.fail_after(timeout_s):
        try:
            return await fn(client, *args)
        except MCPError as exc:
            if _connection_lost(exc):
                raise
            raise _RpcError(exc) from None


async def _list_page(client: Any, cursor: str | None) -> Any:
    return await client.list_tools(cursor=cursor)


async def _call(client: Any, name: str, args: dict[str, Any]) -> Any:
    return await client.call_tool(name, args)


def _connection_lost(exc: Any) -> bool:
    """An `MCPError` the SDK raises itself when the transport closed (not an answer of the server)."""
    return getattr(exc, "code", None) in (-32000,) and "clos" in str(getattr(exc, "message", "")).lower()


def _is_protocol(exc: BaseException) -> bool:
    from pydantic import ValidationError

    seen: list[BaseException] = [exc]
    while seen:
        e = seen.pop()
        if isinstance(e, ValidationError | json.JSONDecodeError):
            return True
        if isinstance(e, BaseExceptionGroup):
            seen.extend(e.exceptions)
        if e.__cause__ is not None:
            seen.append(e.__cause__)
    return False


def _exception_text(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _stderr_tail(errlog: Any) -> str:
    if errlog is None or errlog.closed:
        return ""
    try:
        errlog.flush()
        errlog.seek(0, os.SEEK_END)
        size = errlog.tell()
        errlog.seek(max(0, size - 4 * STDERR_TAIL))
        return errlog.read()[-STDERR_TAIL:].strip()
    except (OSError, ValueError):
        return ""


def _shutdown(state: dict[str, Any]) -> None:
    """Stop the client task (its exit stops a stdio server), then the portal (joins the loop thread)."""
    portal, stop, future = state.get("portal"), state.pop("stop", None), state.pop("future", None)
    state["client"] = None
    if portal is not None and stop is not None:
        try:
            portal.call(stop.set)
            future.result(timeout=30)
        except BaseException:  # noqa: BLE001, S110 - a dead server cannot be closed politely; go on
            pass
    portal_cm = state.pop("portal_cm", None)
    state.pop("portal", None)
    if portal_cm is not None:
        try:
            portal_cm.__exit__(None, None, None)
        except BaseException:  # noqa: BLE001, S110
            pass
    errlog = state.pop("errlog", None)
    if errlog is not None:
        try:
            errlog.close()
        except OSError:
            pass


def interpreter() -> str:
    """The Python running DocsChisel (for servers written in Python, e.g. `mcp:python server.py`)."""
    return sys.executable

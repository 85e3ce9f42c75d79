"""A drop-in MCP server that serves optimized docs in front of the user's own server.

`docschisel mcp serve --docs <docset-or-run-id> -- <upstream command>` runs
this: it starts (or connects to) the upstream server, lists its tools, and
exposes exactly those tools, each definition overlaid field by field with the
chosen doc set (core.mcp.overlay: only what DocsChisel changed differs). Every
`tools/call` is forwarded unchanged to the upstream and its result returned
as the upstream sent it; an error the upstream answers with is passed on as
the same JSON-RPC error. The user points Claude Desktop, Cursor or any MCP
client at this server instead of the original and gets the optimized docs
without touching the server's code.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

from core.docs import ToolDoc
from core.mcp.overlay import overlay_tool
from core.mcp.session import ServerSpec, client_target

log = logging.getLogger(__name__)


@dataclass
class Exposed:
    """What the proxy serves: the overlaid definitions and the exposed -> upstream name map."""

    tools: list[dict[str, Any]] = field(default_factory=list)
    upstream_name: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def expose(definitions: list[dict[str, Any]], docs: Mapping[str, ToolDoc] | None) -> Exposed:
    """The upstream's tools, in its order, with the docs of `docs` (keyed by upstream name) overlaid."""
    out = Exposed()
    docs = dict(docs or {})
    for definition in definitions:
        name = definition["name"]
        doc = docs.pop(name, None)
        served, notes = overlay_tool(definition, doc) if doc is not None else (dict(definition), [])
        exposed = served.get("name", name)
        if exposed in out.upstream_name:
            notes.append(f"{name}: the optimized name {exposed!r} is taken; kept {name!r}")
            served["name"] = exposed = name
        out.upstream_name[exposed] = name
        out.tools.append(served)
        out.notes += notes
    if docs:
        out.notes.append(f"the doc set documents tools the server does not list: {', '.join(sorted(docs))}")
    return out


def build_server(upstream: Any, exposed: Exposed, name: str = "docschisel-proxy") -> Any:
    """A low-level SDK `Server` whose handlers serve `exposed` and forward calls to `upstream` (a Client)."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    listed = [types.Tool.model_validate(t) for t in exposed.tools]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: Any) -> Any:
        target = exposed.upstream_name.get(params.name, params.name)
        return await upstream.call_tool(target, params.arguments)

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


async def serve(
    upstream: ServerSpec,
    docs: Mapping[str, ToolDoc] | None,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    path: str = "/mcp",
    on_ready: Any = None,
) -> None:
    """Connect to the upstream, then serve over stdio or streamable HTTP until the client (or a signal) ends it."""
    from mcp import Client

    async with AsyncExitStack() as stack:
        # the upstream's stderr is ours; stdout stays the MCP channel of a stdio proxy
        client = await stack.enter_async_context(Client(client_target(upstream, sys.stderr), cache=None))
        definitions = []
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor)
            definitions += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
            cursor = page.next_cursor
            if not cursor:
                break
        exposed = expose(definitions, docs)
        for note in exposed.notes:
            print(f"docschisel mcp serve: {note}", file=sys.stderr)
        server = build_server(client, exposed)
        if on_ready is not None:
            on_ready(exposed)
        if transport == "stdio":
            from mcp.server.stdio import stdio_server

            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
            return
        import uvicorn

        app = server.streamable_http_app(streamable_http_path=path, host=host)
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
        print(
            f"docschisel mcp serve: http://{host}:{port}{path} ({len(exposed.tools)} tools)", file=sys.stderr
        )
        await uvicorn.Server(config).serve()

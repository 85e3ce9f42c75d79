"""`docschisel mcp serve`: the optimized docs as a drop-in MCP server in front of the original one."""

from __future__ import annotations

import click

from core.cli.common import open_warehouse, warehouse_option


@click.group()
def command() -> None:
    """MCP servers: serve optimized docs in front of a server (see README, "Use it on your MCP server")."""


@command.command("serve", context_settings={"show_default": True, "ignore_unknown_options": True})
@click.option(
    "--docs",
    "ref",
    default="original",
    help="Doc set to serve: an optimize run id, a doc-set id, a doc JSON file, or 'original' (pass-through).",
)
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio")
@click.option("--host", default="127.0.0.1", help="HTTP: address to listen on.")
@click.option("--port", type=int, default=8765, help="HTTP: port to listen on.")
@click.option("--path", "http_path", default="/mcp", help="HTTP: the endpoint's path.")
@warehouse_option
@click.argument("upstream", nargs=-1, required=True, type=click.UNPROCESSED)
def serve_cmd(
    ref: str,
    transport: str,
    host: str,
    port: int,
    http_path: str,
    warehouse: str | None,
    upstream: tuple[str, ...],
) -> None:
    """Serve the tools of UPSTREAM (a server command after `--`, or its URL) with the docs of --docs.

    \b
    docschisel mcp serve --docs <run-id> -- python notes_server.py
    docschisel mcp serve --docs <run-id> --transport http --port 8765 -- npx -y @modelcontextprotocol/server-memory
    """
    import anyio

    from core.mcp.proxy import serve
    from core.mcp.session import ServerSpec

    spec = (
        ServerSpec(url=upstream[0])
        if len(upstream) == 1 and "://" in upstream[0]
        else ServerSpec(command=upstream)
    )
    docs = None if ref in ("", "original", "og") else dict(_docset(ref, warehouse))
    anyio.run(lambda: serve(spec, docs, transport=transport, host=host, port=port, path=http_path))


def _docset(ref: str, warehouse: str | None):
    from pathlib import Path

    if Path(ref).expanduser().is_file():
        from core.docs import DocSet, load_docs

        return DocSet(load_docs(Path(ref).expanduser()))
    from core.chisel.export import resolve_export

    wh = open_warehouse(warehouse, llm=False)
    try:
        docset, _ = resolve_export(wh, ref)
    except KeyError as exc:
        raise click.UsageError(str(exc.args[0])) from exc
    return docset

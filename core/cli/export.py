"""`docschisel export`: write a doc set as JSON (our schema), OpenAI tool schemas or MCP tools."""

from __future__ import annotations

from pathlib import Path

import click

from core.cli.common import open_warehouse, warehouse_option


@click.command(context_settings={"show_default": True})
@click.argument("ref")
@click.option("--format", "fmt", type=click.Choice(["json", "openai", "mcp"]), default="json")
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False), default=None, help="File to write (default: stdout)."
)
@click.option("--changed-only", is_flag=True, help="Only the tools whose doc the optimizer changed.")
@warehouse_option
def command(ref: str, fmt: str, output: str | None, changed_only: bool, warehouse: str | None) -> None:
    """Export REF (an optimize run id or a doc-set id)."""
    from core.chisel.export import export_text, resolve_export

    wh = open_warehouse(warehouse, llm=False)
    try:
        docset, meta = resolve_export(wh, ref)
    except KeyError as exc:
        raise click.UsageError(str(exc.args[0])) from exc
    if changed_only:
        tools = meta.get("tools") or {}
        keep = [t for t, info in tools.items() if info.get("selected") != info.get("original")]
        docset = docset.subset(keep)
    text = export_text(docset, fmt, meta if fmt == "json" else None)
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
        click.echo(f"wrote {len(docset)} tools as {fmt} to {output}", err=True)
    else:
        click.echo(text)

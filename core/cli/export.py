"""`docschisel export`: write a doc set as JSON (our schema), OpenAI tool schemas, MCP tools or an MCP overlay.

`mcp-overlay` is, per tool whose doc changed, a JSON merge patch of its MCP
definition (core.mcp.overlay), for servers and clients that accept
description overrides.
"""

from __future__ import annotations

from pathlib import Path

import click

from core.cli.common import open_warehouse, warehouse_option


@click.command(context_settings={"show_default": True})
@click.argument("ref")
@click.option("--format", "fmt", type=click.Choice(["json", "openai", "mcp", "mcp-overlay"]), default="json")
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False), default=None, help="File to write (default: stdout)."
)
@click.option("--changed-only", is_flag=True, help="Only the tools whose doc the optimizer changed.")
@warehouse_option
def command(ref: str, fmt: str, output: str | None, changed_only: bool, warehouse: str | None) -> None:
    """Export REF: an optimize run id, any stored doc-set id, or a candidate (the id the optimize log
    prints after "candidate", or its candidate id) as the doc set it was evaluated in."""
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
    if fmt == "mcp-overlay":
        text = _overlay(wh, docset, meta)
    else:
        text = export_text(docset, fmt, meta if fmt == "json" else None)
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
        click.echo(f"wrote {len(docset)} tools as {fmt} to {output}", err=True)
    else:
        click.echo(text)


def _overlay(wh, docset, meta) -> str:
    """The merge patches from the benchmark's original docs to `docset` (the original tools' docs)."""
    import json

    from core.docs import DocSet
    from core.mcp.overlay import overlay_docset

    bench = meta.get("benchmark") or wh.scalar(
        "SELECT benchmark FROM doc_sets WHERE docset_id = ?", [docset.docset_id]
    )
    rows = wh.rows(
        """SELECT m.tool, v.doc FROM doc_set_members m JOIN doc_versions v ON v.doc_id = m.doc_id
           WHERE m.docset_id = (SELECT docset_id FROM doc_sets WHERE origin = 'original' AND benchmark = ?
                                ORDER BY created_at DESC LIMIT 1)""",
        [bench or ""],
    )
    if not rows:
        raise click.UsageError(
            f"no original docs stored for benchmark {bench!r}; an overlay needs them to tell what changed"
        )
    from core.docs import ToolDoc

    original = DocSet([ToolDoc.model_validate_json(doc) for _, doc in rows])
    return json.dumps(overlay_docset(original, docset), ensure_ascii=False, indent=2)

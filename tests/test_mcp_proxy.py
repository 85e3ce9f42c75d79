"""Optimized docs served as a drop-in MCP server, and the field-level overlay behind it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.mcphelp import NOTES_SERVER, descendants, free_port, settle, start

pytest.importorskip("mcp")

DEFINITION = {
    "name": "add_note",
    "title": "Add a note",
    "description": "Create a note and return its id.",
    "inputSchema": {
        "type": "object",
        "title": "add_noteArguments",
        "properties": {
            "title": {"type": "string", "title": "Title", "minLength": 1},
            "body": {"type": "string", "title": "Body"},
            "folder": {"type": "string", "title": "Folder", "default": "inbox"},
        },
        "required": ["title", "body"],
    },
    "outputSchema": {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]},
    "annotations": {"readOnlyHint": False, "idempotentHint": False},
}


def _optimized():
    from core.docs import parse_mcp

    return (
        parse_mcp(DEFINITION)
        .refine("FD", "Create a note in one folder and return the new note's id (an integer).")
        .add("IPD", {"folder": "One of inbox, work, personal, archive; default inbox."})
        .add("UE", ["add_note(title='Call Bob', body='about the offsite', folder='work')"])
    )


def test_the_overlay_changes_exactly_the_fields_that_changed() -> None:
    from core.docs import parse_mcp
    from core.mcp.overlay import overlay_tool

    same, notes = overlay_tool(DEFINITION, parse_mcp(DEFINITION))
    assert same == DEFINITION and not notes  # an unchanged doc serves the server's own bytes
    served, notes = overlay_tool(DEFINITION, _optimized())
    assert not notes
    changed = {k for k in DEFINITION if served[k] != DEFINITION[k]}
    assert changed == {"description", "inputSchema"}
    assert served["description"].startswith("Create a note in one folder")
    assert "add_note(title='Call Bob'" in served["description"]  # UE has no slot of its own
    assert "Behaviour hints" not in served["description"]  # the annotations still say it
    assert "Returns" not in served["description"]  # the outputSchema still says it
    props = served["inputSchema"]["properties"]
    assert props["folder"] == {
        **DEFINITION["inputSchema"]["properties"]["folder"],
        "description": props["folder"]["description"],
    }
    assert props["title"] == DEFINITION["inputSchema"]["properties"]["title"]  # minLength, title kept
    back = parse_mcp(served)
    assert back.description == _optimized().description and back.examples == _optimized().examples
    assert back.param("folder").description == "One of inbox, work, personal, archive; default inbox."


def test_required_flags_types_and_renames() -> None:
    from core.docs import parse_mcp
    from core.mcp.overlay import overlay_tool

    doc = parse_mcp(DEFINITION)
    params = [p.model_copy(update={"required": True}) if p.name == "folder" else p for p in doc.parameters]
    doc = doc.model_copy(update={"parameters": tuple(params), "name": "create_note"})
    served, _ = overlay_tool(DEFINITION, doc)
    assert served["inputSchema"]["required"] == ["title", "body", "folder"]
    assert served["name"] == "create_note"
    fewer = parse_mcp(DEFINITION).model_copy(update={"parameters": parse_mcp(DEFINITION).parameters[:2]})
    served, notes = overlay_tool(DEFINITION, fewer)
    assert set(served["inputSchema"]["properties"]) == {
        "title",
        "body",
        "folder",
    }  # the server still takes it
    assert notes and "folder" in notes[0]


def test_mcp_overlay_export_is_a_merge_patch_per_changed_tool() -> None:
    from core.docs import DocSet, parse_mcp, render_mcp
    from core.mcp.overlay import overlay_docset

    original = DocSet([parse_mcp(DEFINITION), parse_mcp({**DEFINITION, "name": "list_folders"})])
    optimized = original.replace(_optimized())
    out = overlay_docset(original, optimized)
    assert list(out["tools"]) == ["add_note"]
    patch = out["tools"]["add_note"]
    assert set(patch) == {"description", "inputSchema"}
    assert set(patch["inputSchema"]) == {"properties"}
    assert set(patch["inputSchema"]["properties"]) == {"folder"}
    base = render_mcp(original["add_note"])
    assert patch["description"] != base.get("description")


def _call_both(session_a, session_b, name, args):
    a, b = session_a.call_tool(name, args), session_b.call_tool(name, args)
    return a.raw, b.raw


def test_stdio_proxy_serves_optimized_docs_and_forwards_calls_unchanged(tmp_path: Path) -> None:
    from core.docs import parse_mcp
    from core.mcp.session import McpSession, ServerSpec

    upstream = (sys.executable, str(NOTES_SERVER))
    docs_file = tmp_path / "docs.json"
    before = descendants()
    with McpSession(ServerSpec(command=upstream)) as direct:
        definitions = {t["name"]: t for t in direct.list_tools()}
        doc = (
            parse_mcp(definitions["add_note"])
            .refine("FD", "Create a note in one folder and return its id.")
            .add("IPD", {"folder": "One of inbox, work, personal, archive."})
        )
        docs_file.write_text(json.dumps([doc.to_json()]))
        proxy_cmd = (
            sys.executable,
            "-m",
            "core.cli.main",
            "mcp",
            "serve",
            "--docs",
            str(docs_file),
            "--",
            *upstream,
        )
        with McpSession(ServerSpec(command=proxy_cmd, cwd=str(Path(__file__).parent.parent))) as proxy:
            served = {t["name"]: t for t in proxy.list_tools()}
            assert list(served) == list(definitions)  # exactly the upstream's tools, in its order
            assert served["add_note"]["description"] == "Create a note in one folder and return its id."
            assert served["add_note"]["inputSchema"]["properties"]["folder"]["description"].startswith(
                "One of"
            )
            for name in definitions:
                if name != "add_note":
                    assert served[name] == definitions[name]
            for name, args in [
                ("add_note", {"title": "x", "body": "y", "folder": "work"}),
                ("export_notebook", {}),
                ("add_note", {"title": "x", "body": "y", "folder": "nowhere"}),  # the server's own error
                ("get_note", {"note_id": 99}),
            ]:
                via_proxy, straight = _call_both(proxy, direct, name, args)
                assert json.dumps(via_proxy, sort_keys=True) == json.dumps(straight, sort_keys=True)
    assert not settle(before), "the proxy or its upstream was left running"


def test_http_proxy_is_a_streamable_http_server(tmp_path: Path) -> None:
    from core.mcp.session import McpSession, ServerSpec

    port = free_port()
    argv = [sys.executable, "-m", "core.cli.main", "mcp", "serve", "--transport", "http", "--port", str(port)]
    proc = start([*argv, "--", sys.executable, str(NOTES_SERVER)], port)
    try:
        with McpSession(ServerSpec(url=f"http://127.0.0.1:{port}/mcp")) as proxy:
            names = [t["name"] for t in proxy.list_tools()]
            assert "add_note" in names
            assert proxy.call_tool("add_note", {"title": "a", "body": "b"}).text == "4"
    finally:
        proc.terminate()
        proc.wait(timeout=20)

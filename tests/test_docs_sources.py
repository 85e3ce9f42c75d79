"""Documentation sources beyond tool schemas: OpenAPI 3, ToolAlpaca entries, BFCL files and plain text.

The corpus under fixtures/docs/corpus is written for these tests in the style of
each source (no third-party data); every definition in it must parse, keep its
schema keywords and render back exactly where the source is a tool schema.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.docs import DocSet, load_docs, parse_openai, parse_text, render_mcp, render_openai
from core.docs.parsers import DocParseError, parse_json

CORPUS = Path(__file__).parent / "fixtures" / "docs" / "corpus"


def canon(obj: object) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


def _bfcl_functions() -> list[dict]:
    rows = [json.loads(ln) for ln in (CORPUS / "bfcl_rows.json").read_text().splitlines() if ln.strip()]
    return [fn for row in rows for fn in row["function"]]


# ------------------------------------------------------------------ corpus
def test_every_corpus_file_loads_into_one_doc_set() -> None:
    docs = [d for f in sorted(CORPUS.iterdir()) for d in load_docs(f)]
    ids = DocSet(docs).keys()
    assert len(ids) == len(docs)
    assert {"geometry.triangle_area", "flights.book", "flights.cancel", "units.convert_many"} <= set(ids)
    assert {"WordOfTheDay.getWord", "WordOfTheDay.searchWords", "PlantCare.careAdvice", "listPets"} <= set(
        ids
    )


def test_bfcl_functions_render_back_exactly() -> None:
    for fn in _bfcl_functions():
        source = {k: v for k, v in fn.items() if k != "response"}
        doc = parse_openai(fn)
        rendered = render_openai(doc)["function"]
        assert canon(rendered["parameters"]) == canon(source["parameters"]), fn["name"]
        if "response" not in fn:
            # OpenAI names cannot hold dots: they are encoded there (and decoded on reading), kept by MCP
            assert canon({**rendered, "name": fn["name"]}) == canon(source), fn["name"]
            mcp = render_mcp(doc)
            schema = mcp.pop("inputSchema")
            assert canon({**mcp, "parameters": schema}) == canon(source)
        assert parse_openai(render_openai(doc)) == doc


def test_bfcl_keywords_the_type_text_cannot_hold_are_kept() -> None:
    docs = {d.tool: d for d in load_docs(CORPUS / "bfcl_rows.json")}
    book = docs["flights.book"]
    cabin = book.param("cabin")
    assert cabin.type == 'Literal["economy", "business", "first"]'
    meals = book.param("meals")
    assert meals.type == 'list[Literal["vegan", "kosher", "none"]]'
    assert meals.type_schema["items"] == {"type": "string", "enum": ["vegan", "kosher", "none"]}
    route = book.param("route").type_schema
    assert route["required"] == ["origin", "destination"]
    assert route["properties"]["origin"]["pattern"] == "^[A-Z]{3}$"
    assert book.param("seats").type_schema == {"type": "integer", "minimum": 1, "maximum": 9}
    assert [(r.name, r.type, r.description) for r in book.returns] == [
        ("booking_id", "str", "Reference of the booking."),
        ("total", "float", "Price in EUR."),
    ]
    area = docs["geometry.triangle_area"]
    assert [(r.name, r.type) for r in area.returns] == [("area", "float")]
    assert area.param("unit").type_schema == {"type": "string", "enum": ["m2", "cm2", "ft2"]}
    pairs = docs["units.convert_many"].param("pairs").type_schema
    assert pairs["items"]["properties"]["from"]["enum"] == ["mi", "km", "ft"]
    assert docs["units.convert_many"].schema_extra == {"type": "dict"}


def test_json_lines_named_json_and_bad_lines_name_their_line(tmp_path: Path) -> None:
    rows = (CORPUS / "bfcl_rows.json").read_text().splitlines()
    assert len(load_docs(CORPUS / "bfcl_rows.json")) == 4  # flights.cancel is in two rows, read once
    bad = tmp_path / "rows.json"
    bad.write_text("\n".join([rows[0], rows[1], '{"id": "x", "function": [{"description": "no name"}]}']))
    with pytest.raises(DocParseError, match=r"rows\.json:3: function\[0\]: missing \"name\""):
        load_docs(bad)
    broken = tmp_path / "broken.json"
    broken.write_text(rows[0] + "\n{not json\n")
    with pytest.raises(DocParseError, match=r"broken\.json:2:"):
        load_docs(broken)


def test_toolalpaca_entries_become_one_doc_per_operation() -> None:
    docs = {d.tool: d for d in load_docs(CORPUS / "toolalpaca_entries.json")}
    assert set(docs) == {"WordOfTheDay.getWord", "WordOfTheDay.searchWords", "PlantCare.careAdvice"}
    word = docs["WordOfTheDay.getWord"]
    assert word.name == "getWord" and word.domain == "Education"
    assert word.param("lang").type_schema == {"type": "string", "enum": ["en", "fr", "de"]}
    assert word.param("lang").default == "en" and word.param("date").required is True
    assert [r.name for r in word.returns] == ["word", "meaning", "level"]
    care = docs["PlantCare.careAdvice"]
    assert care.param("pot").type_schema["properties"]["drainage"] == {"type": "boolean", "default": True}
    assert care.param("species").required is True and care.param("light").required is False


# ------------------------------------------------------------------ OpenAPI 3
def test_openapi_spec_gives_one_doc_per_operation() -> None:
    docs = {d.tool: d for d in load_docs(CORPUS / "petstore_openapi.json")}
    assert list(docs) == [
        "listPets",
        "createPet",
        "showPetById",
        "delete_pets_petId",
        "placeOrder",
        "getCategory",
    ]
    listing = docs["listPets"]
    assert listing.domain == "pets" and listing.description == "List the pets in the shop."
    assert [p.name for p in listing.parameters] == [
        "limit",
        "status",
        "X-Trace-Id",
    ]  # $ref parameter resolved
    limit = listing.param("limit")
    assert (limit.type, limit.default, limit.required) == ("int", 20, False)
    assert limit.type_schema == {"type": "integer", "format": "int32", "minimum": 1, "maximum": 100}
    assert listing.param("status").type_schema["items"]["enum"] == ["available", "pending", "sold"]
    (page,) = listing.returns
    assert page.type == "list[dict]" and page.type_schema["items"]["properties"]["species"]["enum"]
    create = docs["createPet"]
    assert create.description == "Add a pet to the shop.\n\nThe new pet starts as available."
    assert [(p.name, p.required) for p in create.parameters] == [
        ("name", True),
        ("species", False),
        ("tags", False),
    ]
    assert [p.name for p in docs["showPetById"].parameters] == ["petId"]  # from the path item
    assert docs["delete_pets_petId"].param("petId").required is True
    order = docs["placeOrder"]
    assert order.domain == "store"
    assert order.param("address").type_schema["properties"]["country"]["default"] == "US"
    assert [r.name for r in order.returns] == ["orderId", "status"]
    parent = next(r for r in docs["getCategory"].returns if r.name == "parent")
    assert parent.type_schema == {"type": "object", "title": "Category"}  # recursion cut
    for doc in docs.values():
        assert parse_openai(render_openai(doc)) == doc


def test_openapi_errors_name_the_place() -> None:
    with pytest.raises(DocParseError, match="convert the spec to OpenAPI 3"):
        parse_json({"swagger": "2.0", "paths": {}})
    spec = {
        "openapi": "3.0.0",
        "paths": {"/x": {"get": {"parameters": [{"$ref": "other.yaml#/p"}], "responses": {}}}},
    }
    with pytest.raises(
        DocParseError, match=r"paths\./x\.get\.parameters\[0\]: \$ref 'other.yaml#/p' points outside"
    ):
        parse_json(spec)
    with pytest.raises(DocParseError, match="no operations"):
        parse_json({"openapi": "3.1.0", "paths": {}})


# ------------------------------------------------------------------ text
def test_plain_text_is_a_description_and_empty_text_an_error(tmp_path: Path) -> None:
    doc = parse_text("Cancel a pending order.\nOnly orders not yet shipped.", tool="cancel_order")
    assert doc.description == "Cancel a pending order.\nOnly orders not yet shipped."
    with_sections = parse_text("Cancel an order.\n\nParameters:\n- name: order_id\n  type: str", tool="c")
    assert with_sections.description == "Cancel an order." and with_sections.param("order_id").type == "str"
    loose = parse_text("Cancel an order.\n\nReturns: nothing useful", tool="c")
    assert loose.description == "Cancel an order.\n\nReturns: nothing useful"
    with pytest.raises(DocParseError, match=r"notes\.txt: empty documentation text"):
        parse_text("  \n", tool="c", source="notes.txt")
    with pytest.raises(DocParseError, match="names no tool"):
        parse_text("Cancel an order.")
    (tmp_path / "cancel_order.txt").write_text("Cancel a pending order.\n")
    (doc,) = load_docs(tmp_path / "cancel_order.txt")
    assert (doc.tool, doc.description) == ("cancel_order", "Cancel a pending order.")
    (tmp_path / "empty.json").write_text("\n")
    with pytest.raises(DocParseError, match=r"empty\.json: the file is empty"):
        load_docs(tmp_path / "empty.json")
    (tmp_path / "none.json").write_text('{"tools": []}')
    with pytest.raises(DocParseError, match=r"none\.json: no tool documentation"):
        load_docs(tmp_path / "none.json")


# ------------------------------------------------------------------ export, end to end
def test_a_stored_doc_set_exports_its_source_schemas_exactly(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from core.cli.main import cli
    from core.warehouse import Warehouse

    docs = DocSet(load_docs(CORPUS / "bfcl_rows.json"))
    path = tmp_path / "wh.duckdb"
    wh = Warehouse(path)
    sid = wh.register_docset(docs, benchmark="bfcl-style", origin="import")
    sources = {fn["name"]: fn for fn in _bfcl_functions()}
    for fmt in ("openai", "mcp"):
        result = CliRunner().invoke(cli, ["export", sid, "--format", fmt, "--warehouse", str(path)])
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        tools = [t["function"] for t in data] if fmt == "openai" else data["tools"]
        assert len(tools) == len(docs)
        for tool in tools:
            name = tool["name"].replace("__", ".")
            schema = tool["parameters"] if fmt == "openai" else tool["inputSchema"]
            assert canon(schema) == canon(sources[name]["parameters"]), (fmt, name)


def test_openapi_specs_in_yaml_are_read_as_json_data(tmp_path: Path) -> None:
    docs = {d.tool: d for d in load_docs(CORPUS / "library_openapi.yaml")}
    assert list(docs) == ["searchBooks", "lendBook"]
    after = docs["searchBooks"].param("published_after")
    assert after.type_schema == {
        "type": "string",
        "format": "date",
        "example": "2001-09-09",
    }  # a YAML date as text
    assert docs["lendBook"].param("weeks").type_schema == {"type": "integer", "enum": [1, 2, 4]}
    assert docs["lendBook"].param("weeks").default == 2
    bad = tmp_path / "spec.yaml"
    bad.write_text("openapi: 3.0.0\npaths:\n  /x: [unclosed\n")
    with pytest.raises(DocParseError, match=r"spec\.yaml:4: invalid YAML"):
        load_docs(bad)


def test_prompt_text_shows_only_what_the_type_text_does_not_say() -> None:
    from core.docs import render_text

    docs = {d.tool: d for d in load_docs(CORPUS / "bfcl_rows.json")}
    text = render_text(docs["flights.book"])
    assert '  type: int\n  schema: {"minimum": 1, "maximum": 9}\n' in text
    assert '  schema: {"items": {"type": "string", "enum": ["vegan", "kosher", "none"]}}\n' in text
    assert 'Parameter schema: {"type": "dict"}' in text
    assert parse_text(text, tool="flights.book") == docs["flights.book"]


def test_a_bad_schema_line_in_text_names_its_line() -> None:
    with pytest.raises(DocParseError, match=r"x\.txt:4: schema must not hold \['description'\]"):
        parse_text('Tool name: x\nParameters:\n- name: a\n  schema: {"description": "d"}', source="x.txt")
    with pytest.raises(DocParseError, match=r"x\.txt:2: schema is not JSON"):
        parse_text("Tool name: x\nParameter schema: nope", source="x.txt")

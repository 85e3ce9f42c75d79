"""Schema sources survive parse -> ToolDoc -> render exactly (canonical JSON), and the
keywords the type text cannot hold (enums with types, nested objects, items, formats,
bounds) follow operations on purpose only."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.docs import DocSet, Param, ToolDoc, parse_mcp, parse_openai, parse_text, render_mcp, render_openai
from core.docs.render import render_text
from tests.test_docs_render import _round_trips, tool_docs

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


# ------------------------------------------------------------------ strategies
names = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)
words = st.text(st.sampled_from("abcdefghij klmnop.,-"), min_size=1, max_size=20).filter(lambda s: s.strip())
formats = st.sampled_from(["date", "date-time", "email", "uuid", "uri"])


@st.composite
def string_schema(draw) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "string"}
    if draw(st.booleans()):
        s["enum"] = draw(st.lists(words, min_size=1, max_size=4, unique=True))
    elif draw(st.booleans()):
        s["format"] = draw(formats)
    if draw(st.booleans()):
        s["minLength"] = draw(st.integers(0, 3))
        s["maxLength"] = draw(st.integers(4, 80))
    if draw(st.booleans()):
        s["pattern"] = draw(st.sampled_from(["^[A-Z]{3}$", "^#W[0-9]{7}$", "[a-z]+"]))
    return s


@st.composite
def number_schema(draw) -> dict[str, Any]:
    s: dict[str, Any] = {"type": draw(st.sampled_from(["integer", "number"]))}
    if draw(st.booleans()):
        s["enum"] = draw(st.lists(st.integers(-5, 50), min_size=1, max_size=4, unique=True))
    if draw(st.booleans()):
        s["minimum"] = draw(st.integers(-10, 0))
    if draw(st.booleans()):
        s["maximum"] = draw(st.integers(1, 1000))
    return s


scalars = st.one_of(
    string_schema(),
    number_schema(),
    st.just({"type": "boolean"}),
    st.lists(words, min_size=1, max_size=3, unique=True).map(lambda e: {"enum": e}),
)


def _annotated(schema: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """A schema with an optional description and default, as sources write them at any depth."""

    @st.composite
    def build(draw) -> dict[str, Any]:
        s = dict(draw(schema))
        if draw(st.booleans()):
            s["description"] = draw(words)
        if "enum" in s and draw(st.booleans()):
            s["default"] = s["enum"][0]
        return s

    return build()


@st.composite
def object_schema(draw, children: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    props = draw(st.dictionaries(names, children, min_size=1, max_size=3))
    s: dict[str, Any] = {"type": "object", "properties": props}
    if draw(st.booleans()):
        s["required"] = [n for n in props if draw(st.booleans())]
    if draw(st.booleans()):
        s["additionalProperties"] = draw(st.booleans())
    return s


@st.composite
def array_schema(draw, children: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "array", "items": draw(children)}
    if draw(st.booleans()):
        s["minItems"] = draw(st.integers(0, 2))
        s["maxItems"] = draw(st.integers(3, 9))
    return s


schemas = st.recursive(
    _annotated(scalars),
    lambda inner: _annotated(st.one_of(object_schema(inner), array_schema(inner))),
    max_leaves=6,
)


@st.composite
def parameter_schemas(draw) -> dict[str, Any]:
    props = draw(st.dictionaries(names, schemas, max_size=4))
    s: dict[str, Any] = {"type": "object", "properties": props}
    if draw(st.booleans()):
        required = [n for n in props if draw(st.booleans())]
        s["required"] = draw(st.permutations(required)) if draw(st.booleans()) else required
    if draw(st.booleans()):
        s["additionalProperties"] = False
    if draw(st.booleans()):
        s["description"] = draw(words)  # BFCL writes one at the top of some parameter schemas
    return s


@st.composite
def functions(draw) -> dict[str, Any]:
    fn: dict[str, Any] = {"name": draw(names)}
    if draw(st.booleans()):
        fn["description"] = draw(words)
    fn["parameters"] = draw(parameter_schemas())
    return fn


# ------------------------------------------------------------------ property tests
@SETTINGS
@given(functions())
def test_openai_schemas_render_back_exactly(fn: dict[str, Any]) -> None:
    source = {"type": "function", "function": fn}
    doc = parse_openai(json.loads(json.dumps(source)))
    assert canon(render_openai(doc)) == canon(source)
    stored = ToolDoc.from_json(json.loads(json.dumps(doc.to_json())))
    assert canon(render_openai(stored)) == canon(source)
    assert parse_text(render_text(doc), tool=doc.tool) == doc


# an MCP outputSchema: its properties are return entries, which have no default of their own
output_schemas = st.none() | object_schema(
    schemas.map(lambda s: {k: v for k, v in s.items() if k != "default"})
)


@SETTINGS
@given(functions(), output_schemas)
def test_mcp_schemas_render_back_exactly(fn: dict[str, Any], output: dict[str, Any] | None) -> None:
    source = {k: v for k, v in fn.items() if k != "parameters"} | {"inputSchema": fn["parameters"]}
    if output is not None:
        source["outputSchema"] = output
        assert parse_text(render_text(parse_mcp(source)), tool=fn["name"]) == parse_mcp(source)
    doc = parse_mcp(json.loads(json.dumps(source)))
    assert canon(render_mcp(doc)) == canon(source)
    assert parse_mcp(render_mcp(doc)) == doc
    # the same doc also renders to the other format with the same parameter schema
    assert canon(render_openai(doc)["function"]["parameters"]) == canon(fn["parameters"])


# ------------------------------------------------------------------ examples that used to lose keywords
CANCEL = {
    "type": "function",
    "function": {
        "name": "cancel_pending_order",
        "description": "Cancel a pending order.",
        "parameters": {
            "type": "object",
            "properties": {
                "order_id": {"type": "string", "description": "The order id, such as '#W0000000'."},
                "reason": {"type": "string", "enum": ["no longer needed", "ordered by mistake"]},
            },
            "required": ["order_id", "reason"],
        },
    },
}
NO_ARGS = {
    "name": "list_orders",
    "description": "All orders.",
    "inputSchema": {"type": "object", "required": []},
}


def test_enum_keeps_its_type_and_empty_required_is_kept_in_exports() -> None:
    from core.chisel.export import export_docset

    docs = DocSet([parse_openai(CANCEL), parse_mcp(NO_ARGS)])
    openai = {t["function"]["name"]: t for t in export_docset(docs, "openai")}
    assert canon(openai["cancel_pending_order"]) == canon(CANCEL)
    mcp = {t["name"]: t for t in export_docset(docs, "mcp")["tools"]}
    assert mcp["list_orders"]["inputSchema"] == {"type": "object", "required": []}
    assert canon(render_openai(parse_mcp(NO_ARGS))["function"]["parameters"]) == canon(NO_ARGS["inputSchema"])


def test_docs_that_lost_nothing_keep_their_canonical_form() -> None:
    doc = parse_openai(
        {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}
    )
    assert doc.parameters[0].type_schema is None and doc.schema_extra is None
    assert "type_schema" not in doc.canonical_json() and "schema_extra" not in doc.canonical_json()


def test_changing_the_type_on_purpose_replaces_only_type_keywords() -> None:
    p = Param(
        name="n",
        type="Literal[1, 2]",
        type_schema={"type": "integer", "enum": [1, 2], "minimum": 1, "title": "N"},
    )
    doc = ToolDoc(tool="t", parameters=(p,))
    refined = doc.refine("IPT", {"n": "int"})
    assert refined.parameters[0].type_schema == {"type": "integer", "minimum": 1, "title": "N"}
    assert render_openai(refined)["function"]["parameters"]["properties"]["n"] == {
        "type": "integer",
        "minimum": 1,
        "title": "N",
    }
    removed = doc.remove("IPT").parameters[0]
    assert removed.type is None and removed.type_schema == {"minimum": 1, "title": "N"}
    same = doc.add("IPD", {"n": "How many."})
    assert same.parameters[0].type_schema == p.type_schema


def test_response_schema_fills_the_return_fields() -> None:
    fn = {
        "name": "area",
        "parameters": {"type": "dict", "properties": {"base": {"type": "float"}}, "required": ["base"]},
        "response": {"type": "dict", "properties": {"value": {"type": "float", "description": "The area."}}},
    }
    doc = parse_openai(fn)
    assert [(r.name, r.type, r.description) for r in doc.returns] == [("value", "float", "The area.")]
    assert render_openai(doc)["function"]["parameters"] == fn["parameters"]
    back = parse_openai(render_openai(doc))
    assert back == doc


def test_a_reviewers_table_edit_keeps_the_schema_it_does_not_show() -> None:
    from core.ui import docedit

    doc = parse_openai(CANCEL)
    params = docedit.params_frame(doc)
    params.loc[params["name"] == "order_id", "description"] = "The order's id."
    edited = docedit.apply_edits(doc, params=params)
    assert edited.param("reason").type_schema == doc.param("reason").type_schema
    rendered = render_openai(edited)["function"]["parameters"]["properties"]
    assert rendered["reason"] == CANCEL["function"]["parameters"]["properties"]["reason"]
    params.loc[params["name"] == "reason", "type"] = "str"
    assert docedit.apply_edits(doc, params=params).param("reason").type_schema is None


# ------------------------------------------------------------------ any doc with stored schemas round-trips
extras = st.sampled_from(
    [
        None,
        {"additionalProperties": False},
        {"type": "dict"},
        {"type": None, "$comment": "x"},
        {"required": ["zz"]},
    ]
)


@st.composite
def docs_with_schemas(draw) -> ToolDoc:
    doc = draw(tool_docs())
    params = []
    for p in doc.parameters:
        schema = draw(
            st.none()
            | schemas.map(lambda s: {k: v for k, v in s.items() if k not in ("description", "default")})
        )
        params.append(Param.model_validate({**p.model_dump(), "type_schema": schema}))
    extra = draw(extras)
    if extra == {"required": ["zz"]} and doc.parameters:
        extra = None
    return ToolDoc.model_validate({**doc.model_dump(), "parameters": params, "schema_extra": extra})


@SETTINGS
@given(docs_with_schemas(), st.sampled_from([None, "tool_3"]))
def test_docs_with_stored_schemas_round_trip_through_every_rendering(doc: ToolDoc, alias: str | None) -> None:
    _round_trips(doc, alias)


def test_python_literal_annotations_render_as_enums() -> None:
    from typing import Literal

    from core.docs import parse_callable

    def pick(items: list[Literal["a", "b"]], mode: Literal["x", "y"] = "x") -> None:
        """Pick items."""

    props = render_openai(parse_callable(pick))["function"]["parameters"]["properties"]
    assert props["items"] == {"type": "array", "items": {"enum": ["a", "b"]}}
    assert props["mode"] == {"enum": ["x", "y"], "default": "x"}


def test_an_mcp_output_schema_follows_the_returns() -> None:
    source = {
        "name": "add_note",
        "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}},
        "outputSchema": {
            "type": "object",
            "title": "add_noteOutput",
            "properties": {"result": {"type": "integer", "title": "Result"}},
            "required": ["result"],
        },
    }
    doc = parse_mcp(source)
    assert canon(render_mcp(doc)) == canon(source)
    assert "Returns" not in (render_mcp(doc).get("description") or "")
    assert 'Return schema: {"title": "add_noteOutput", "required": ["result"]}' in render_text(doc)
    bare = doc.remove("RPN").remove("RPT")
    assert bare.returns == () and bare.output_schema is None and "outputSchema" not in render_mcp(bare)
    assert parse_text(render_text(bare), tool=bare.tool) == bare
    described = doc.add("RPD", ["The new note's id."])
    assert (
        render_mcp(described)["outputSchema"]["properties"]["result"]["description"] == "The new note's id."
    )


def test_a_shape_written_as_a_type_becomes_a_schema_the_grammar_enforces() -> None:
    """`list[{"name": "a" | "b", "value": str}]` (how Refine IPT states a structure) is a real schema."""
    from core.docs.types import type_to_schema
    from core.llm.grammar import tool_call_grammar

    shape = 'list[{"name": "blood_pressure" | "heart_rate", "value": str, "unit"?: str}]'
    schema = type_to_schema(shape)
    assert schema == {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "name": {"enum": ["blood_pressure", "heart_rate"]},
                "value": {"type": "string"},
                "unit": {"type": "string"},
            },
            "required": ["name", "value"],
        },
    }
    assert type_to_schema('{"a": int, "b": list[str]') is None  # unclosed: not a type
    assert type_to_schema("{'a': int}")["properties"] == {"a": {"type": "integer"}}
    tool = {
        "type": "function",
        "function": {
            "name": "rec",
            "parameters": {"type": "object", "properties": {"data": schema}, "required": ["data"]},
        },
    }
    grammar = tool_call_grammar([tool], "required")
    assert '"\\"blood_pressure\\""' in grammar and '"\\"value\\""' in grammar

"""Renderers: stable labelled text, OpenAI/MCP schemas, and exact parse -> render -> parse round-trips."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.docs.model import Param, Return, ToolDoc
from core.docs.parsers import DocParseError, load_docs, parse_mcp, parse_openai, parse_text
from core.docs.parsers.sections import LIST_LABELS, TOOL_LABEL_SET
from core.docs.render import (
    default_alias,
    openai_name,
    render_mcp,
    render_openai,
    render_text,
    tool_from_openai_name,
)

FIXTURES = Path(__file__).parent / "fixtures" / "docs"
OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

# ------------------------------------------------------------------ strategies
_chars = st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\n\t")
texts = st.text(_chars, min_size=1, max_size=40).filter(lambda s: s.strip() != "" and not s.endswith("\n"))
heading_like = st.sampled_from(
    [
        "Parameters:",
        "Returns:\n- name: x",
        "Description: y",
        "Tool name: z",
        "- name: q",
        "- parameter: q",
        "Examples:",
        "  indented",
    ]
)
rich_texts = st.one_of(texts, st.builds(lambda a, b: f"{a}\n{b}", texts, heading_like), heading_like)
types = st.one_of(
    st.sampled_from(
        [
            "str",
            "int",
            "float",
            "bool",
            "list",
            "dict",
            "list(str)",
            "list[str]",
            "Union[List[dict], dict]",
            "string",
            "Any",
            "json",
            'Literal["a", 1]',
            "str | None",
            "str (date)",
            "YYYY-MM-DD",
        ]
    ),
    texts,
)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
flags = st.none() | st.booleans()


@st.composite
def params(draw) -> Param:
    has_default = draw(st.booleans())
    return Param(
        name=draw(st.one_of(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True), texts)),
        description=draw(st.none() | rich_texts),
        type=draw(st.none() | types),
        has_default=has_default,
        default=draw(json_values) if has_default else None,
        required=draw(flags),
        optional=draw(flags),
    )


@st.composite
def returns(draw) -> Return:
    r = Return(
        name=draw(st.none() | texts), description=draw(st.none() | rich_texts), type=draw(st.none() | types)
    )
    return r if not r.is_empty() else Return(type="str")


@st.composite
def tool_docs(draw) -> ToolDoc:
    tool = draw(st.one_of(st.from_regex(r"[a-z]{1,6}(\.[a-z_]{1,8}){0,2}", fullmatch=True), texts))
    return ToolDoc(
        tool=tool,
        name=draw(st.one_of(st.none(), st.just(tool), texts)),
        description=draw(st.none() | rich_texts),
        domain=draw(st.none() | texts),
        parameters=tuple(draw(st.lists(params(), max_size=4, unique_by=lambda p: p.name))),
        returns=tuple(draw(st.lists(returns(), max_size=2))),
        code=draw(st.none() | rich_texts),
        examples=tuple(draw(st.lists(rich_texts, max_size=3))),
        response_template=draw(st.none() | rich_texts),
        guidance=draw(st.none() | rich_texts),
        constraints=draw(st.none() | texts),
    )


aliases = st.sampled_from([None, "tool_3"])
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _through_json(obj: dict) -> dict:
    return json.loads(json.dumps(obj))


def _round_trips(doc: ToolDoc, alias: str | None) -> None:
    text = render_text(doc, alias)
    assert parse_text(text, tool=doc.tool) == doc, text
    schema = _through_json(render_openai(doc, alias))
    assert OPENAI_NAME.match(schema["function"]["name"])
    assert parse_openai(schema, tool=doc.tool, alias=alias) == doc, schema
    mcp = _through_json(render_mcp(doc, alias))
    assert parse_mcp(mcp, tool=doc.tool, alias=alias) == doc, mcp


# ------------------------------------------------------------------ round trips
@SETTINGS
@given(tool_docs(), aliases)
def test_random_docs_round_trip(doc: ToolDoc, alias: str | None) -> None:
    _round_trips(doc, alias)


@pytest.fixture(scope="module")
def corpus(data_dir: Path) -> list[ToolDoc]:
    docs = load_docs(data_dir / "workbench" / "derived" / "tools.json")
    docs += load_docs(data_dir / "api-bank" / "derived" / "api_docs.json")
    docs += load_docs(FIXTURES)
    assert len(docs) == 27 + 75 + 8
    return docs


def test_real_corpus_round_trips(corpus: list[ToolDoc]) -> None:
    for doc in corpus:
        _round_trips(doc, None)
        _round_trips(doc, "tool_3")


def test_real_corpus_round_trips_with_each_field_removed(corpus: list[ToolDoc]) -> None:
    from core.fields import CODES

    for doc in corpus[::7]:
        for code in CODES:
            _round_trips(doc.remove(code), "tool_7")


# ------------------------------------------------------------------ the text form
def _assert_no_empty_heading(text: str) -> None:
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^([A-Za-z][A-Za-z ]*?):(?: (.*))?$", line)
        if not m or m.group(1) not in TOOL_LABEL_SET:
            continue
        inline = (m.group(2) or "").strip()
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if m.group(1) in LIST_LABELS:
            assert following.startswith("-"), f"empty list heading at line {i + 1}: {text!r}"
        else:
            # a value that starts with blank lines keeps them (exact round trip): its content is the
            # first indented continuation line after them
            rest = [ln for ln in lines[i + 1 :] if ln.strip()]
            continued = bool(rest) and rest[0].startswith("  ")
            assert inline or continued, f"empty heading at line {i + 1}: {text!r}"


@SETTINGS
@given(tool_docs(), aliases)
def test_render_text_never_emits_an_empty_heading(doc: ToolDoc, alias: str | None) -> None:
    _assert_no_empty_heading(render_text(doc, alias))


def test_absent_or_blank_fields_render_as_nothing() -> None:
    doc = ToolDoc(
        tool="t",
        name="t",
        description="",
        domain="   ",
        examples=("", " \n "),
        guidance=None,
        returns=(Return(description="  "),),
    )
    text = render_text(doc)
    assert text == "Tool name: t"
    _assert_no_empty_heading(text)


def test_text_layout_is_stable(corpus: list[ToolDoc]) -> None:
    doc = next(d for d in corpus if d.tool == "company_directory.find_email_address")
    assert render_text(doc) == "\n".join(
        [
            "Tool name: company_directory.find_email_address",
            "Description: Finds the email address of an employee by their name.",
            "Domain: company_directory",
            "Parameters:",
            "- parameter: name",
            "  description: Name of the person.",
            "  type: str",
            '  default: ""',
            "  optional: yes",
            "Returns:",
            "- name: email_address",
            "  description: Email addresses of the person.",
            "  type: str",
            "Examples:",
            '- >>> directory.find_email_address("John")',
            '  "john.smith@example.com"',
        ]
    )


def test_missing_tool_name_is_shown_under_the_alias() -> None:
    doc = ToolDoc(tool="calendar.search_events", description="Find events.")
    assert render_text(doc, alias="tool_3").split("\n")[0] == "Tool id: tool_3"
    assert render_text(doc).split("\n")[0] == f"Tool id: {default_alias('calendar.search_events')}"
    assert "calendar" not in render_text(doc) and "calendar" not in json.dumps(render_openai(doc))
    assert render_openai(doc, alias="tool_3")["function"]["name"] == "tool_3"
    back = parse_text(render_text(doc, alias="tool_3"))
    assert back.name is None and back.tool == "tool_3"


def test_a_parameter_called_name_reads_as_a_parameter_not_as_an_argument() -> None:
    """`- name: account` beside `optional: no` read to models as "pass {"name": ...}"."""
    doc = ToolDoc(tool="t", name="t", parameters=(Param(name="name", type="str", optional=False),))
    desc = render_openai(doc)["function"]["description"]
    assert desc == "Parameters:\n- parameter: name\n  optional: no"
    assert parse_openai(render_openai(doc)) == doc and parse_text(render_text(doc)) == doc


def test_text_rendered_with_the_older_name_key_still_parses() -> None:
    legacy = parse_text("Tool name: t\nParameters:\n- name: a\n  type: str\n  optional: no")
    assert legacy.parameters == (Param(name="a", type="str", optional=False),)
    fn = {"name": "t", "description": "Parameters:\n- name: a\n  optional: no", "parameters": {}}
    fn["parameters"] = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert parse_openai(fn).param("a").optional is False
    with pytest.raises(DocParseError, match='both "parameter" and "name"'):
        parse_text("Tool name: t\nParameters:\n- parameter: a\n  name: b")


def test_parse_text_errors_name_the_line() -> None:
    with pytest.raises(DocParseError, match=r"^<text>:2: expected a heading"):
        parse_text("Tool name: x\nBogus: y")
    with pytest.raises(DocParseError, match=r"^<text>:4: default is not a JSON value"):
        parse_text("Tool name: x\nParameters:\n- name: a\n  default: nope")


# ------------------------------------------------------------------ OpenAI specifics
def test_openai_native_slots_and_description_sections(corpus: list[ToolDoc]) -> None:
    doc = next(d for d in corpus if d.tool == "calendar.search_events")
    fn = render_openai(doc)["function"]
    assert fn["name"] == "calendar__search_events"
    assert fn["parameters"]["properties"]["query"] == {
        "type": "string",
        "description": "Query to search for. Terms will be matched in the event_name and participant_email fields.",
        "default": "",
    }
    assert "required" not in fn["parameters"]  # WorkBench docs carry no required flags
    desc = fn["description"]
    assert desc.startswith(
        "Returns the events for a given query.\n\nDomain: calendar\nParameters:\n- parameter: query\n  optional: yes"
    )
    assert "\nReturns:\n- name: events\n" in desc and "\nExamples:\n- >>> calendar.search_events" in desc
    mcp = render_mcp(doc)
    assert mcp["name"] == "calendar.search_events" and mcp["inputSchema"] == fn["parameters"]


def test_openai_required_and_inexact_types() -> None:
    doc = ToolDoc(
        tool="t",
        name="t",
        parameters=(
            Param(name="a", type="list(str)", required=True),
            Param(name="b", type="int", required=False),
            Param(name="c", type="YYYY-MM-DD"),
        ),
    )
    fn = render_openai(doc)["function"]
    props = fn["parameters"]["properties"]
    assert fn["parameters"]["required"] == ["a"]
    assert props["a"] == {"type": "array", "items": {"type": "string"}} and props["b"] == {"type": "integer"}
    assert props["c"] == {}
    assert fn["description"] == (
        "Parameters:\n- parameter: a\n  type: list(str)\n- parameter: c\n  type: YYYY-MM-DD\n  required: unspecified"
    )
    assert parse_openai(render_openai(doc)) == doc


def test_foreign_descriptions_that_look_like_sections_stay_fd() -> None:
    desc = "Search.\n\nReturns:\n    list of events"
    doc = parse_openai({"name": "s", "description": desc, "parameters": {"type": "object", "properties": {}}})
    assert doc.description == desc and doc.returns == ()


def test_openai_names() -> None:
    assert openai_name("calendar.search_events") == "calendar__search_events"
    assert openai_name("plain_name") == "plain_name"
    for odd in ["/movie/{movie_id}/keywords", "a__b", "x" * 80, "naïve tool", "."]:
        name = openai_name(odd)
        assert OPENAI_NAME.match(name), name
        assert tool_from_openai_name(name, ["other", odd]) == odd
    tools = ["calendar.search_events", "email.send_email"]
    assert tool_from_openai_name("email__send_email", tools) == "email.send_email"
    assert tool_from_openai_name("email.send_email", tools) == "email.send_email"
    with pytest.raises(KeyError):
        tool_from_openai_name("nope", tools)
    doc = ToolDoc(tool="/movie/{movie_id}/keywords", name="/movie/{movie_id}/keywords")
    assert render_openai(doc)["function"]["description"] == "Tool name: /movie/{movie_id}/keywords"

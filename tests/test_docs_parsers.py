"""Doc parsers: the real benchmark corpora, hand-made fixtures of every format, and errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.docs.parsers import (
    DocParseError,
    detect_format,
    load_docs,
    parse_callable,
    parse_docstring,
    parse_json,
)
from core.docs.types import canonical, schema_to_type, type_to_schema

FIXTURES = Path(__file__).parent / "fixtures" / "docs"


@pytest.fixture(scope="module")
def workbench(data_dir: Path):
    return {d.tool: d for d in load_docs(data_dir / "workbench" / "derived" / "tools.json")}


@pytest.fixture(scope="module")
def api_bank(data_dir: Path):
    return load_docs(data_dir / "api-bank" / "derived" / "api_docs.json")


# ------------------------------------------------------------------ WorkBench
def test_workbench_all_27_tools_parse(workbench):
    assert len(workbench) == 27
    assert {d.domain for d in workbench.values()} == {
        "calendar",
        "email",
        "analytics",
        "project_management",
        "customer_relationship_manager",
        "company_directory",
    }
    assert all(d.tool == d.name for d in workbench.values())
    assert all(d.present()[:2] == ("TN", "FD") for d in workbench.values())


def test_workbench_field_values(workbench):
    d = workbench["calendar.search_events"]
    assert d.description == "Returns the events for a given query."
    assert [p.name for p in d.parameters] == ["query", "time_min", "time_max"]
    query = d.param("query")
    assert query.type == "str" and query.optional is True and query.required is None
    assert query.has_default and query.default == ""
    assert query.description.startswith("Query to search for. Terms will be matched")
    assert d.param("time_min").default is None and d.param("time_min").has_default
    assert d.returns[0].model_dump() == {
        "name": "events",
        "type": "list",
        "description": "List of events matching the query. Returns at most 5 events.",
    }
    assert d.examples[0].startswith('>>> calendar.search_events("Sam")\n[{"event_id": "00000000"')
    assert "{{" not in d.examples[0] and "}}" not in d.examples[0]


def test_workbench_details(workbench):
    three = workbench["calendar.get_event_information_by_id"].examples
    assert three == (
        '>>> calendar.get_event_information_by_id("00000000", "event_name")\n{"event_name": "Meeting with Sam"}',
        '>>> calendar.get_event_information_by_id("00000000", "event_start")\n{"event_start": "2021-06-01 13:00:00"}',
        '>>> calendar.get_event_information_by_id("00000000", "duration")\n{"duration": "60"}',
    )
    emails = workbench["email.search_emails"].description
    assert emails == (
        "Searches for emails matching the given query across subject, body, or sender fields.\n"
        "The function matches an email if all words in the query appear in any of these fields."
    )
    task = workbench["project_management.create_task"].param("task_name")
    assert task.type == "str" and task.optional is None  # no "optional" mark in its docstring
    notes = workbench["customer_relationship_manager.add_customer"].param("notes")
    assert notes.type == "str" and notes.optional is True  # "str, optional, optional"
    plot = workbench["analytics.create_plot"].returns[0]
    assert (
        plot.description
        == "Path to the plot file. Filename is {time_min}_{time_max}_{value_to_plot}_{plot_type}.png."
    )


# ------------------------------------------------------------------ API-Bank
def test_api_bank_all_75_apis_parse(api_bank):
    assert len(api_bank) == 75
    tools = [d.tool for d in api_bank]
    assert len(set(tools)) == 75
    assert {
        "AddMeeting@level-3",
        "Calculator@level-3",
        "QueryMeeting@level-3",
        "ToolSearcher@level-3",
    } <= set(tools)
    assert sum(1 for d in api_bank if d.name == "Calculator") == 2


def test_api_bank_field_values(api_bank):
    by_tool = {d.tool: d for d in api_bank}
    d = by_tool["AddAgenda"]
    assert d.name == "AddAgenda" and d.domain == "schedule management"
    assert d.description == "The API for adding a agenda item includes content, time and location."
    assert [(p.name, p.type) for p in d.parameters] == [
        ("token", "str"),
        ("content", "str"),
        ("time", "str"),
        ("location", "str"),
    ]
    assert d.param("time").description == "The time for agenda. Format: %Y-%m-%d %H:%M:%S"
    assert d.returns[0].model_dump() == {"name": "status", "type": "str", "description": "success or failed"}
    assert not by_tool["GetToday"].parameters
    assert by_tool["ToolSearcher"].returns[0].type == "Union[List[dict], dict]"
    assert by_tool["Calculator@level-3"].domain is None


# ------------------------------------------------------------------ fixtures of other formats
def test_easytool_one_doc_per_api():
    docs = {d.tool: d for d in load_docs(FIXTURES / "easytool_tools.json")}
    assert set(docs) == {"Weather.current", "Weather.forecast"}
    cur = docs["Weather.current"]
    assert cur.name == "current" and cur.description == "Current weather for a city."
    assert cur.guidance.startswith("'Weather' can report the weather.")
    city, units = cur.parameters
    assert (city.required, city.optional, city.default, city.type) == (True, None, "Paris", "STRING")
    assert (units.required, units.optional, units.has_default, units.description) == (None, True, False, None)
    assert cur.examples == ('Scenario: if you want the weather in Rome\nParameters: {"city": "Rome"}',)
    assert docs["Weather.forecast"].description is None
    assert docs["Weather.forecast"].param("days").optional is True


def test_draft_list_with_category_and_user_query():
    (doc,) = load_docs(FIXTURES / "draft_tools.json")
    assert doc.tool == "Currency.convert" and doc.domain == "Finance"
    assert doc.examples == (
        'User Query: How much is 10 USD in EUR?\nParameters: {"from": "USD", "amount": 10}',
    )
    assert doc.param("amount").has_default is False


def test_mcp_definition():
    (doc,) = load_docs(FIXTURES / "mcp_tools.json")
    assert doc.tool == doc.name == "get_weather"
    assert doc.param("location").required is True and doc.param("units").required is False
    assert (
        doc.param("units").type == 'Literal["metric", "imperial"]' and doc.param("units").default == "metric"
    )
    assert [(r.name, r.type) for r in doc.returns] == [("temperature", "float"), ("conditions", "str")]
    assert doc.guidance == "Title: Weather. Behaviour hints: read-only, open world."


def test_openai_request_tools():
    search, ping = load_docs(FIXTURES / "openai_tools.json")
    assert search.name == "search_flights" and search.description == "Search flights between two airports."
    assert [(p.name, p.type, p.required) for p in search.parameters] == [
        ("origin", "str", True),
        ("max_stops", "int", False),
        ("cabins", "list[str]", False),
        ("date", "str (date)", True),
    ]
    assert search.param("max_stops").has_default and search.param("max_stops").default == 1
    assert ping.parameters == () and ping.param("x") is None
    assert all(p.required is None for p in ping.parameters)


def test_jsonl_mixed_formats_and_folder():
    a, b = load_docs(FIXTURES / "tooldocs.jsonl")
    assert a.param("x").required is True
    assert b.name == "b.two"  # "__" in an OpenAI name reads back as a dot
    assert len(load_docs(FIXTURES)) == 2 + 1 + 1 + 2 + 2


def test_detect_format():
    assert detect_format({"type": "function", "function": {"name": "x"}}) == "openai"
    assert detect_format({"name": "x", "parameters": {}}) == "openai"
    assert detect_format({"name": "x", "inputSchema": {}}) == "mcp"
    assert detect_format({"tool": "x", "name": "x"}) == "tooldoc"
    assert detect_format({"name": "x", "input_parameters": {}}) == "api-bank"
    assert detect_format({"hello": 1}) is None


# ------------------------------------------------------------------ Python callables and docstrings
def numpy_tool(query: str, limit: int = 5, *args, flag=None, **kwargs) -> list[dict]:
    """Search the index.

    Parameters
    ----------
    query : str
        What to look for.
    limit : int, optional
        Maximum hits.

    Returns
    -------
    hits : list of dict
        The matching records.

    Notes
    -----
    Case-insensitive.

    Examples
    --------
    >>> numpy_tool("a")
    []
    """
    return []


def google_tool(city, days: int = 3):
    """Forecast for a city.

    Args:
        city (str): City name.
        days (int, optional): How many days.
            At most 7.

    Returns:
        dict: The forecast.

    Example:
        >>> google_tool("Rome")
        {}
    """


def rest_tool(a: float, b: float = 1.0) -> float:
    """Divide two numbers.

    :param a: numerator
    :param b: denominator
    :type b: float, optional
    :returns: the quotient
    :rtype: float
    """
    return a / b


def test_parse_callable_numpy():
    d = parse_callable(numpy_tool)
    assert d.tool == d.name == "numpy_tool"
    assert d.description == "Search the index.\n\nNotes\n-----\nCase-insensitive."
    assert [p.name for p in d.parameters] == ["query", "limit", "flag"]
    q, lim, flag = d.parameters
    assert (q.type, q.required, q.has_default, q.description) == ("str", True, False, "What to look for.")
    assert (lim.type, lim.required, lim.optional, lim.default) == ("int", False, True, 5)
    assert flag.has_default and flag.default is None and flag.required is False
    assert d.returns[0].model_dump() == {
        "name": "hits",
        "type": "list of dict",
        "description": "The matching records.",
    }
    assert d.examples == ('>>> numpy_tool("a")\n[]',)


def test_parse_callable_google_and_rest():
    g = parse_callable(google_tool, domain="weather")
    assert g.domain == "weather" and g.description == "Forecast for a city."
    assert g.param("city").type == "str" and g.param("city").required is True
    assert g.param("days").description == "How many days.\nAt most 7." and g.param("days").optional is True
    assert g.returns[0].type == "dict" and g.returns[0].description == "The forecast."
    assert g.examples == ('>>> google_tool("Rome")\n{}',)
    r = parse_callable(rest_tool)
    assert r.description == "Divide two numbers."
    assert r.param("a").description == "numerator" and r.param("a").type == "float"
    assert r.param("b").optional is True and r.param("b").default == 1.0
    assert r.returns[0].model_dump() == {"name": None, "type": "float", "description": "the quotient"}


def test_docstring_plain_text_and_doctests():
    p = parse_docstring("Just prose.\n\n>>> f(1)\n2\n")
    assert p.description == "Just prose." and p.examples == [">>> f(1)\n2"] and p.style == "plain"


def test_type_mapping_round_trip():
    for text in [
        "str",
        "int",
        "float",
        "bool",
        "list",
        "dict",
        "list[str]",
        "str | None",
        'Literal["a", 2]',
        "str (date)",
    ]:
        assert canonical(text) == text, text
    assert type_to_schema("list(str)") == {"type": "array", "items": {"type": "string"}}
    assert type_to_schema("YYYY-MM-DD") is None
    assert schema_to_type({"type": ["string", "null"]}) == "str | None"
    assert schema_to_type({"description": "no type"}) is None


# ------------------------------------------------------------------ errors name the file, line and key
def _error(path: Path) -> str:
    with pytest.raises(DocParseError) as info:
        load_docs(path)
    return str(info.value)


def test_error_bad_json_names_file_and_line():
    msg = _error(FIXTURES / "malformed" / "bad_json.json")
    assert re.search(r"bad_json\.json:3: invalid JSON at column \d+", msg), msg


def test_error_missing_name_names_the_key():
    msg = _error(FIXTURES / "malformed" / "missing_name.json")
    assert msg.endswith('missing_name.json: tools[3].parameters[1]: missing "name"'), msg


def test_error_wrong_type_of_parameters():
    msg = _error(FIXTURES / "malformed" / "params_not_list.json")
    assert msg.endswith("params_not_list.json: [0].parameters: expected a list, got a string"), msg
    with pytest.raises(DocParseError, match=r"function\.parameters: expected an object, got a list"):
        parse_json({"type": "function", "function": {"name": "x", "parameters": []}})
    with pytest.raises(DocParseError, match=r"input_parameters: expected an object, got a list"):
        parse_json({"name": "X", "input_parameters": []})


def test_error_unknown_format():
    msg = _error(FIXTURES / "malformed" / "unknown_format.json")
    assert "unknown_format.json: [0]: unknown documentation format (keys: body, title)" in msg
    assert "OpenAI tool schema" in msg


def test_error_jsonl_names_the_line():
    assert _error(FIXTURES / "malformed" / "bad_line.jsonl").endswith(
        'bad_line.jsonl:2: function: missing "name"'
    )
    assert re.search(
        r"broken_line\.jsonl:3: invalid JSON", _error(FIXTURES / "malformed" / "broken_line.jsonl")
    )


def test_error_native_and_missing_path(tmp_path: Path):
    with pytest.raises(DocParseError, match=r'parameters\[0\]: missing "name"'):
        parse_json({"tool": "x", "parameters": [{"type": "str"}]})
    with pytest.raises(DocParseError, match="no such file"):
        load_docs(tmp_path / "nope.json")
    with pytest.raises(DocParseError, match="no .json, .jsonl or .yaml"):
        load_docs(tmp_path)
    with pytest.raises(DocParseError, match=r"tool_guidelines\.a: expected an object"):
        parse_json({"tool_name": "T", "tool_guidelines": {"a": 3}})


def test_own_json_single_list_and_docset(tmp_path: Path, workbench):
    from core.docs import DocSet
    from core.docs.parsers import load_workbench_tools

    docs = list(workbench.values())
    single = tmp_path / "one.json"
    single.write_text(json.dumps(docs[0].to_json()))
    assert load_docs(single) == [docs[0]]
    many = tmp_path / "many.json"
    many.write_text(json.dumps([d.to_json() for d in docs]))
    assert load_docs(many) == docs
    ds = DocSet(docs, name="wb")
    setfile = tmp_path / "set.json"
    setfile.write_text(json.dumps(ds.to_json()))
    assert DocSet(load_docs(setfile), name="wb").docset_id == ds.docset_id
    lines = tmp_path / "docs.jsonl"
    lines.write_text("\n".join(json.dumps(d.to_json()) for d in docs))
    assert load_docs(lines) == docs
    assert load_workbench_tools(tmp_path / "many.json") == docs

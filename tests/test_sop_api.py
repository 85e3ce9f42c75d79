"""The output helpers SOP code and the miner share read every observation format the benchmarks print."""

from __future__ import annotations

from core.sop import sopapi


def test_parse_reads_json_python_literals_numpy_prints_and_text() -> None:
    assert sopapi.parse('{"a": 1}') == {"a": 1}
    assert sopapi.parse("[{'event_id': '00000013', 'duration': '60'}]") == [
        {"event_id": "00000013", "duration": "60"}
    ]
    assert sopapi.parse("['ann.lee@atlas.com' 'anna.b@atlas.com']") == [
        "ann.lee@atlas.com",
        "anna.b@atlas.com",
    ]
    assert sopapi.parse("{'total_visits': np.int64(5)}") == {"total_visits": 5}
    assert sopapi.parse("Email sent successfully.") == "Email sent successfully."


def test_pick_finds_the_first_value_of_a_key_at_any_depth() -> None:
    out = "[{'email_id': '00000479', 'sender': 'nadia@atlas.com'}, {'email_id': '00000012'}]"
    assert sopapi.pick(out, "email_id") == "00000479"
    assert sopapi.pick_all(out, "email_id") == ["00000479", "00000012"]
    assert sopapi.pick("['kofi.mensah@atlas.com']") == "kofi.mensah@atlas.com"
    assert sopapi.pick(out, "missing") is None


def test_empty_results_and_rejections_are_recognised() -> None:
    assert sopapi.is_empty("No emails found.") and sopapi.is_empty("[]") and sopapi.is_empty("")
    assert not sopapi.is_empty("[{'a': 1}]")
    assert sopapi.looks_like_error("Event ID not provided.") and sopapi.looks_like_error("Error: boom")
    assert not sopapi.looks_like_error("Event deleted successfully.")

"""API-Bank APIs over the init databases: behaviour, verbatim messages, the call layer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.benchmarks.apibank import REGISTRY, CallLayerError, Session


@pytest.fixture(scope="module")
def db_dir(data_dir: Path) -> Path:
    path = data_dir / "api-bank" / "api-bank" / "init_database"
    if not path.is_dir():
        pytest.skip(f"API-Bank init databases not found at {path}")
    return path


@pytest.fixture
def s(db_dir: Path) -> Session:
    return Session(db_dir)


def out(session: Session, api: str, **args):
    record = session.call(api, args)
    return record.get("output"), record.get("exception")


# --------------------------------------------------------------------------- account and tokens


def test_get_user_token_and_errors(s: Session) -> None:
    assert out(s, "GetUserToken", username="JohnDoe", password="pass123") == (
        {"token": "a9s8d7f6g5h4j3k2l1"},
        None,
    )
    assert out(s, "GetUserToken", username="johndoe", password="pass123") == (
        None,
        "The username does not exist.",
    )
    assert out(s, "GetUserToken", username="JohnDoe", password="x") == (None, "The password is incorrect.")


def test_check_token_has_no_api_name(s: Session) -> None:
    record = s.call("CheckToken", {"token": "a9s8d7f6g5h4j3k2l1"})
    assert "api_name" not in record and record["output"] == {"username": "JohnDoe"}
    assert out(s, "CheckToken", token="nope") == (None, "The token is invalid.")


def test_query_balance_token_is_exact_but_check_trims(s: Session) -> None:
    assert out(s, "QueryBalance", token="a9s8d7f6g5h4j3k2l1") == (2739.25, None)
    assert out(s, "QueryBalance", token=" a9s8d7f6g5h4j3k2l1") == (None, "The token is incorrect.")
    gold = s.call("QueryBalance", {"token": "a9s8d7f6g5h4j3k2l1"})
    padded = dict(gold, input={"token": "a9s8d7f6g5h4j3k2l1 "})
    assert REGISTRY["QueryBalance"].check(padded, gold)  # tokens trimmed in the check


def test_open_bank_account_is_per_session(s: Session, db_dir: Path) -> None:
    assert out(s, "OpenBankAccount", account="test", password="p", name="n") == ("failed", None)
    assert out(s, "OpenBankAccount", account="acc1", password="p", name="n") == ("success", None)
    assert out(s, "OpenBankAccount", account="acc1", password="p", name="n") == ("failed", None)
    assert out(Session(db_dir), "OpenBankAccount", account="acc1", password="p", name="n") == (
        "success",
        None,
    )


# --------------------------------------------------------------------------- finance and health


def test_query_stock(s: Session) -> None:
    assert out(s, "QueryStock", stock_code=" aapl ", date="2022-1-1") == (180.5, None)
    assert out(s, "QueryStock", stock_code="  ", date="2022-01-01") == (
        None,
        "The stock code cannot be empty.",
    )
    assert out(s, "QueryStock", stock_code="XYZ", date="2022-01-01") == (
        None,
        "The stock code does not exist.",
    )
    assert out(s, "QueryStock", stock_code="AAPL", date="2030-01-01") == (
        None,
        "The stock price of this date is not maintained.",
    )
    assert out(s, "QueryStock", stock_code="AAPL", date="2022/01/03") == (
        None,
        "time data '2022/01/03' does not match format '%Y-%m-%d'",
    )


def test_health_data_record_then_query(s: Session) -> None:
    data = "[{'name': 'blood_pressure', 'value': '120/80'}, {'name': 'heart_rate', 'value': '80'}]"
    assert out(s, "RecordHealthData", user_id="a12345", time="2023-03-16 09:00:00", health_data=data) == (
        "success",
        None,
    )
    result, exc = out(
        s,
        "QueryHealthData",
        user_id="A12345",
        start_time="2023-03-16 00:00:00",
        end_time="2023-03-17 00:00:00",
    )
    assert exc is None and result == [
        {"time": "2023-03-16 09:00:00", "blood_pressure": "120/80", "heart_rate": "80"}
    ]


def test_health_data_messages(s: Session) -> None:
    q = dict(user_id="A12345", start_time="2023-03-16 00:00:00", end_time="2023-03-15 00:00:00")
    assert out(s, "QueryHealthData", **q)[1] == "The start time cannot be later than the end time."
    both_bad = out(s, "QueryHealthData", user_id="A12345", start_time="x", end_time="y")[1]
    assert both_bad == "time data 'x' does not match format '%Y-%m-%d %H:%M:%S'; " + (
        "time data 'y' does not match format '%Y-%m-%d %H:%M:%S'"
    )
    assert (
        out(
            s,
            "QueryHealthData",
            user_id="Z1",
            start_time="2023-01-01 00:00:00",
            end_time="2023-12-31 00:00:00",
        )[1]
        == "The user id does not exist."
    )
    record = s.call("RecordHealthData", {"user_id": "A1", "time": "2023-01-01 00:00:00"})
    assert (
        record["input"]["health_data"] is None and record["exception"] == "The health data cannot be empty."
    )
    t = "2023-01-01 00:00:00"
    assert (
        out(s, "RecordHealthData", user_id="A1", time=t, health_data="oops")[1]
        == "The health data has invalid format."
    )
    dup = [{"name": "w", "value": 1}, {"name": "w", "value": 2}]
    assert out(s, "RecordHealthData", user_id="A1", time=t, health_data=dup)[1] == (
        "The health data cannot contain duplicate items."
    )
    assert out(s, "RecordHealthData", user_id="A1", time=t, health_data=[{"name": "w"}])[1] == "'value'"


def test_symptoms_and_emergency_quirk(s: Session) -> None:
    result, exc = out(s, "SymptomSearch", symptom=" Headache ")
    assert exc is None and result[0]["name"] == "Migraine" and set(result[0]) == {"name", "description"}
    assert out(s, "SymptomSearch", symptom="hiccups") == (None, "The symptom does not exist.")
    assert out(s, "SymptomSearch", symptom=" ") == (None, "The symptom cannot be empty.")
    assert out(s, "EmergencyKnowledge", symptom="") == (None, "'Exception' object has no attribute 'lower'")


def test_appointments_lifecycle(s: Session) -> None:
    new_id, exc = out(
        s, "AppointmentRegistration", patient_name="Mary", date="2023-11-15", doctor_name="Dr. Lee"
    )
    assert exc is None and len(new_id) == 8 and new_id.isdigit()
    again = dict(patient_name="Mary", date="2023-11-15")
    assert out(s, "AppointmentRegistration", doctor_name="Dr. Lee", **again)[1] == (
        "This appointment has already been registered."
    )
    assert out(s, "AppointmentRegistration", doctor_name="Dr. Kim", **again)[1] == (
        "This patient has already been registered in this day."
    )
    assert out(s, "QueryRegistration", **again)[0] == {
        new_id: {"patient_name": "Mary", "date": "2023-11-15", "doctor_name": "Dr. Lee"}
    }
    assert out(s, "ModifyRegistration", appointment_id=new_id)[1] == "Fail because no modification is made."
    assert out(s, "ModifyRegistration", appointment_id=new_id, new_appointment_doctor="Dr. Lee")[1] == (
        "Fail because doctor is not changed."
    )
    assert out(s, "ModifyRegistration", appointment_id=new_id, new_appointment_doctor=" ")[1] == (
        "Fail because the doctor name is empty."
    )
    assert out(s, "ModifyRegistration", appointment_id=new_id, new_appointment_date="2023-11-16") == (
        "success",
        None,
    )
    assert out(s, "CancelRegistration", appointment_id=f" {new_id} ") == ("success", None)
    assert out(s, "CancelRegistration", appointment_id=new_id) == (None, "The appointment ID is incorrect.")
    assert out(s, "ModifyRegistration", appointment_id=new_id)[1] == "The appointment ID does not exist."
    assert out(s, "QueryRegistration", **again) == (None, "No appointments found.")


# --------------------------------------------------------------------------- information


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("(1 + 2) * 3", (9.0, None)),
        ("(23+7)*3-42/6", (83.0, None)),
        ("((1+2)*3)", (None, "')' is not in list")),
        ("1/0", (None, "float division by zero")),
        ("2**3", (None, "can't multiply sequence by non-int of type 'float'")),
        ("-1+2", (None, "invalid formula")),  # upstream hangs here (B7)
        ("1.5+1", (None, "invalid formula")),
        ("1+", (None, "invalid formula")),
        ("12", (None, "invalid formula")),
    ],
)
def test_calculator(s: Session, formula: str, expected: tuple) -> None:
    assert out(s, "Calculator", formula=formula) == expected


def test_send_email_rules(s: Session) -> None:
    ok = dict(subject="Hi", content="Body")
    assert out(s, "SendEmail", receiver=" john@example.com ", **ok) == ("success", None)
    for bad in ("John@example.com", "a.b.c@x.com", "x@y.co.uk", "j@x.info"):
        assert out(s, "SendEmail", receiver=bad, **ok)[1] == "Email address of the receiver is invalid."
    assert out(s, "SendEmail", receiver="jo@x.com", subject=" ", content="b")[1] == "Subject cannot be empty."
    assert out(s, "SendEmail", receiver="jo@x.com", subject="s", content="")[1] == "Content cannot be empty."


def test_lookup_apis(s: Session) -> None:
    assert out(s, "DocumentQA", url="https://www.example.com/article-1.txt", question="Who wrote it?") == (
        "The question is too difficult to answer.",  # upstream bug B4, reproduced
        None,
    )
    assert (
        out(s, "DocumentQA", url="https://nowhere", question="q")[1]
        == "The document of this url failed to be processed."
    )
    assert out(s, "DocumentQA", url="u", question=" ")[1] == "The question is empty."
    assert out(s, "ImageCaption", url="http://x/y.gif")[1] == "The url should end with .jpg, .jpeg or .png."
    assert (
        out(s, "SpeechRecognition", url="https://example.com/voice1.wav")[0]
        == "Hello, how are you doing today?"
    )
    assert (
        out(s, "SpeechRecognition", url="https://example.com/voice1.mp3")[1]
        == "The url should end with .wav."
    )
    wiki, _ = out(s, "Wiki", keyword=" Artificial_Intelligence ")
    assert set(wiki) == {"url", "summary"}
    assert out(s, "Wiki", keyword="zzz")[1] == "Keyword not found."
    history, _ = out(s, "QueryHistoryToday", date="2023-04-21")
    assert history[0].startswith("Title: First Game of the New York Yankees, Date: 1903-04-21, Description: ")
    assert (
        out(s, "QueryHistoryToday", date="April 21")[1]
        == "time data 'April 21' does not match format '%m-%d'"
    )
    assert out(s, "QueryHistoryToday", date="01-01")[1] == "The date is not in the database."


def test_search_engine_top_two(s: Session) -> None:
    result, exc = out(s, "SearchEngine", keyword="the sustainable development")
    assert exc is None
    assert {d["url"] for d in result} == {
        "https://sdgs.un.org/goals",
        "https://en.unesco.org/themes/education-sustainable-development-goals",
    }


# --------------------------------------------------------------------------- smart home


def test_scenes(s: Session) -> None:
    devices = [{"name": " Zeta ", "description": " z "}, {"name": "Alpha", "description": "a"}]
    record = s.call("AddScene", {"name": "Party", "devices": devices})
    assert record["output"] == "success"
    assert record["input"]["devices"] == [
        {"name": "alpha", "description": "a"},
        {"name": "zeta", "description": "z"},
    ]
    assert out(s, "AddScene", name="party", devices=[])[1] == "Scene name already exists."
    assert out(s, "AddScene", name="x", devices="[oops")[1] == "Invalid device format."
    assert out(s, "QueryScene", name=" PARTY ")[0] == record["input"]["devices"]
    assert out(s, "QueryScene", name="nope")[1] == "Scene not found."
    assert out(s, "ModifyScene", name="nope", devices=[])[1] == "The scene does not exist."
    assert out(s, "DeleteScene", name="party") == ("success", None)
    assert out(s, "DeleteScene", name="party")[1] == "The scene does not exist."
    assert out(s, "DeleteScene", name=" ")[1] == "Scene name cannot be empty."


def test_timed_switch(s: Session) -> None:
    record = s.call("TimedSwitch", {"name": "Light", "time": "2023-03-15 18:30:00", "on": "False"})
    assert record["output"] == "success" and record["input"]["on"] is False
    assert s.db("TimeSwitch")["light"] == [{"time": "2023-03-15 18:30:00", "on": False}]
    assert out(s, "CancelTimedSwitch", name="light", time="2023-03-15 18:30:00") == ("success", None)
    assert out(s, "CancelTimedSwitch", name="light", time="2023-03-15 18:30:00")[1] == "time does not exist."
    assert (
        out(s, "CancelTimedSwitch", name="lamp", time="2023-03-15 18:30:00")[1]
        == "device name does not exist."
    )
    assert out(s, "CancelTimedSwitch", name="", time="x")[1] == "name cannot be empty."
    assert out(s, "TimedSwitch", name="", time="x", on="True")[1] == "Name cannot be empty."


def test_sessions_do_not_leak_state(db_dir: Path) -> None:
    first = Session(db_dir)
    first.call("DeleteScene", {"name": "relaxing time"})
    assert "relaxing time" in Session(db_dir).db("Scenes")


# --------------------------------------------------------------------------- call layer


def test_call_layer_errors(s: Session) -> None:
    with pytest.raises(CallLayerError, match=r"^invalid tool name\.$"):
        s.call("NoSuchApi", {})
    with pytest.raises(CallLayerError, match=r"^invalid parameter name\. parameter: device_id$"):
        s.call("TimedSwitch", {"device_id": "1", "time": "2023-01-01 00:00:00", "on": "True"})
    with pytest.raises(CallLayerError) as one:
        s.call("QueryStock", {"stock_code": "AAPL"})
    assert str(one.value) == "QueryStock.call() missing 1 required positional argument: 'date'"
    with pytest.raises(CallLayerError) as two:
        s.call("QueryStock", {})
    assert (
        str(two.value) == "QueryStock.call() missing 2 required positional arguments: 'stock_code' and 'date'"
    )


def test_conversions(s: Session) -> None:
    # a real boolean stays true (B3 extension); numbers for text parameters become text
    assert (
        s.call("TimedSwitch", {"name": "tv", "time": "2023-01-01 00:00:00", "on": True})["input"]["on"]
        is True
    )
    assert s.call("CancelRegistration", {"appointment_id": 12345678})["output"] == "success"


def test_registry_matches_descriptors(data_dir: Path) -> None:
    """Parameter names and declared types agree with the upstream descriptors."""
    docs = json.loads((data_dir / "api-bank" / "derived" / "api_docs.json").read_text())
    by_name = {d["name"]: d for d in docs if d["used_in"] != "level-3"}
    for name, api in REGISTRY.items():
        declared = {k: v["type"] for k, v in by_name[name]["input_parameters"].items()}
        assert declared == {p.name: p.type for p in api.params}, name


def test_caller_arguments_are_not_mutated(s: Session) -> None:
    devices = [{"name": " Lamp ", "description": "d"}]
    s.call("AddScene", {"name": "study", "devices": devices})
    assert devices == [{"name": " Lamp ", "description": "d"}]

"""Usage examples from ground truth: a request and a call of the same task, with formats for task data."""

from __future__ import annotations

import re

from core.benchmarks.base import Call
from core.chisel.engines.examples import example_text, request_for, value_pattern

RETAIL = (
    "You are Yusuf. You want to exchange the lamp in order #W5199551 for a brighter one. "
    "Then you want to cancel order #W8665881 because you ordered it by mistake."
)


def test_the_request_quoted_is_the_passage_that_holds_the_calls_values() -> None:
    cancel = Call("cancel_pending_order", {"order_id": "#W8665881", "reason": "ordered by mistake"})
    request = request_for(RETAIL, cancel, {"ordered by mistake", "no longer needed"})
    assert request is not None and "#W8665881" in request and "#W5199551" not in request
    text = example_text("cancel_pending_order", cancel, request, {}, {"reason": {"ordered by mistake"}})
    assert text == (  # a record's id is never shown, in the request or the call: its format is
        'Request: "Then you want to cancel order <order_id> because you ordered it by mistake." -> '
        'cancel_pending_order(order_id=<order_id>, reason="ordered by mistake")'
    )


def test_values_the_request_does_not_hold_are_shown_as_formats() -> None:
    call = Call("get_order", {"item": "desk lamp", "user_id": "yusuf_rossi_9620", "date": "2024-05-01"})
    formats = {"date": "YYYY-MM-DD"}
    text = example_text("get_order", call, "Where is the desk lamp I ordered?", formats, {})
    assert 'item="desk lamp"' in text  # the request holds it: the reader sees where it came from
    assert "user_id=<user_id>" in text and "date=<date: YYYY-MM-DD>" in text
    assert "yusuf" not in text and "2024-05-01" not in text  # no other task data to copy


def test_a_record_id_is_never_shown_even_when_the_request_holds_it() -> None:
    """An agent shown `order_id="#W1234567"` beside a request pastes that id into other users' calls."""
    formats = {"order_id": value_pattern(["#W1234567", "#W7654321"], None) or ""}
    assert formats["order_id"] == '"#W" + 7 digits'
    call = Call("get_order", {"order_id": "#W1234567", "item": "desk lamp"})
    text = example_text("get_order", call, "Where is the desk lamp of order #w1234567?", formats, {})
    assert text == (
        'Request: "Where is the desk lamp of order <order_id>?" -> '
        'get_order(order_id=<order_id: "#W" + 7 digits>, item="desk lamp")'
    )
    # a recurring id is a record's, not an allowed value; a number id inside a longer number is kept
    change = Call("ModifyRegistration", {"appointment_id": 90123456, "new_doctor": "Dr. Lee"})
    line = example_text(
        "ModifyRegistration",
        change,
        "It's 90123456, not 901234567, to Dr. Lee.",
        {},
        {"appointment_id": {"90123456"}},
    )
    assert line == (
        'Request: "It\'s <appointment_id>, not 901234567, to Dr. Lee." -> '
        'ModifyRegistration(appointment_id=<appointment_id>, new_doctor="Dr. Lee")'
    )


def test_no_request_when_no_passage_holds_the_values() -> None:
    call = Call("cancel_pending_order", {"order_id": "#W0000001", "reason": "ordered by mistake"})
    assert request_for(RETAIL, call, {"ordered by mistake"}) is None
    text = example_text("cancel_pending_order", call, None, {"order_id": '"#W" + 7 digits'}, {})
    assert text == 'cancel_pending_order(order_id=<order_id: "#W" + 7 digits>, reason=<reason>)'


def test_the_evidence_engine_examples_are_internally_consistent(warehouse) -> None:
    from core.chisel.engines.synth import Synth
    from core.chisel.memory import DomainMemory
    from tests.shopctx import shop_order_context

    ctx = shop_order_context(warehouse)
    bench = ctx.benchmark
    examples = Synth(ctx, [], DomainMemory("shop"))("Add", "UE")
    assert examples
    by_query = {t.query: t for t in bench.tasks()}
    for line in examples:
        m = re.fullmatch(r'Request: "(.*)" -> shop\.order\((.*)\)', line)
        assert m, line
        task = by_query[m.group(1)]  # the request is one task's query ...
        item = task.gold[0].args["item"]
        assert f'item="{item}"' in m.group(2)  # ... and the call is that task's call
        assert "date=<date: YYYY-MM-DD>" in m.group(2)  # a value the request does not hold: its format


def test_the_request_quoted_asks_for_something_and_keeps_a_title_with_its_name() -> None:
    """A bare reply ("Yes, please.") says nothing about when the tool applies; "Dr. Lee" is one name."""
    from core.chisel.engines.examples import passages

    dialogue = (
        "User: Can you cancel my appointment with Dr. Davis on April 10?\nAI: Sure.\nUser: Yes, please."
    )
    assert passages(dialogue)[0] == "Can you cancel my appointment with Dr. Davis on April 10?"
    call = Call("CancelRegistration", {"appointment_id": "56789012"})
    # the id recurs across tasks (a constant): no passage must hold it, and the one that asks is quoted
    assert request_for(dialogue, call, {"56789012"}) == passages(dialogue)[0]
    ids = "User: I want to change my appointment to Dr. Lee.\nAI: Its id?\nUser: It's 90123456, change it to Dr. Lee."
    change = Call("ModifyRegistration", {"appointment_id": "90123456", "new_appointment_doctor": "Dr. Lee"})
    assert request_for(ids, change, set()) == "It's 90123456, change it to Dr. Lee."  # holds both values


def test_a_reply_that_only_gives_an_id_is_quoted_after_the_turn_that_asked() -> None:
    """Masked, "It's <appointment_id>." says nothing about when the tool applies; the turn that asked does."""
    from core.chisel.engines.examples import MAX_REQUEST, only_ids

    ask = "Can you help me reschedule my appointment with Dr. Smith on April 12th, 2023?"
    dialogue = (
        f"User: Can you tell me about fatigue?\nAI: Sure.\nUser: {ask}\nAI: Its ID?\nUser: It's 12345678."
    )
    change = Call("ModifyRegistration", {"appointment_id": "12345678", "new_appointment_date": "2023-04-15"})
    request = request_for(dialogue, change, set())
    assert request == f"{ask} … It's 12345678."  # the nearest earlier turn that asks, not the first
    line = example_text("ModifyRegistration", change, request, {}, {})
    assert line.startswith(f'Request: "{ask} … It\'s <appointment_id>." -> ModifyRegistration(')
    # "The appointment ID is …" has four words but still only names the id
    cancel = Call("CancelRegistration", {"appointment_id": "90123456"})
    assert only_ids("The appointment ID is 90123456.", cancel)
    assert not only_ids("My ID is 90123456, cancel it.", cancel)  # says what to do
    assert not only_ids("The appointment ID is 5.", cancel)  # not this call's id
    said = "User: I need to cancel an appointment.\nAI: Which one?\nUser: The appointment ID is 90123456."
    assert (
        request_for(said, cancel, set())
        == "I need to cancel an appointment. … The appointment ID is 90123456."
    )
    # a reply that says what is wanted is quoted alone; a long ask is shortened so the reply stays whole
    alone = "User: Hello there, how are you today?\nUser: My ID is 90123456, cancel it please."
    assert request_for(alone, cancel, set()) == "My ID is 90123456, cancel it please."
    long = "User: " + "Please could you cancel " * 10 + "my appointment?\nUser: It's 90123456."
    quoted = request_for(long, cancel, set())
    assert quoted is not None and len(quoted) <= MAX_REQUEST and quoted.endswith("… It's 90123456.")
    assert quoted.startswith("Please could you cancel") and "… …" not in quoted


def test_an_id_with_letters_or_a_list_of_ids_is_recognised_as_only_an_id() -> None:
    from core.chisel.engines.examples import only_ids

    assert only_ids("It's yusuf_rossi_9620.", Call("get_user", {"user_id": "yusuf_rossi_9620"}))
    assert only_ids(
        "The event ids are 00000012 and 00000013.", Call("d", {"event_ids": ["00000012", "00000013"]})
    )
    assert not only_ids("Delete 00000012 please.", Call("d", {"event_ids": ["00000012"]}))


def test_an_id_used_by_many_tasks_is_quoted_with_the_turn_that_asked() -> None:
    """When every value of the call recurs across tasks, the last turn that asks or gives the id is quoted."""
    ask = "Can you modify my appointment with Dr. Smith on October 10th to October 15th with Dr. Johnson?"
    dialogue = (
        f"User: Can you help me find out about shortness of breath?\nAI: Sure.\nUser: Yes, please.\n"
        f"User: Thank you for your help. {ask}\nAI: The ID?\nUser: It's 90123456.\nAI: Confirm?\nUser: Yes."
    )
    change = Call(
        "ModifyRegistration", {"appointment_id": "90123456", "new_appointment_doctor": "Dr. Johnson"}
    )
    assert request_for(dialogue, change, {"90123456", "Dr. Johnson"}) == f"{ask} … It's 90123456."
    # no id given in the dialogue: the last turn that asks, alone
    plain = "User: Can you cancel my appointment with Dr. Davis on April 10?\nAI: Sure.\nUser: Yes, please."
    cancel = Call("CancelRegistration", {"appointment_id": "56789012"})
    assert (
        request_for(plain, cancel, {"56789012"})
        == "Can you cancel my appointment with Dr. Davis on April 10?"
    )


def test_recurring_user_data_is_shown_only_where_the_quoted_request_holds_it() -> None:
    """Dialogues that reuse one user's token, name or day are not an enumeration: a value the requests
    state is shown where the request quoted states it, as a whole word, and as its format elsewhere."""
    from core.chisel.engines.synth import usage_examples
    from core.chisel.engines.values import allowed_values, value_format
    from core.docs import ToolDoc

    token = "p9o8i7u6y5t4k3e2w1q"
    queries = {
        f"t{i}": (
            f"User: Check my balance.\nAPI-Request: [GetUserToken(username='user3', password='user3pass')]"
            f"->{{'token': '{token}'}}\nUser: My username is user3 and password is user3pass."
        )
        for i in range(3)
    }
    gold = [(tid, Call("QueryBalance", {"token": token})) for tid in queries]
    assert allowed_values("token", [(queries[t], c.args["token"]) for t, c in gold]) == []
    doc = ToolDoc(tool="QueryBalance", name="QueryBalance")
    lines = usage_examples(doc, gold, queries.get, 3, "s")
    assert lines == ["QueryBalance(token=<token>)"]  # no user turn holds it, so no request is quoted

    # a day the requests state in words, month first: never a bare "12-10" to misread, but "04-21" beside
    # "April 21st" shows the conversion
    days = {"a": ("December 10th", "12-10"), "b": ("December 10th", "12-10"), "c": ("April 21st", "04-21")}
    days |= {"d": ("April 21st", "04-21")}
    asks = {t: f"User: What happened on {words} in history?" for t, (words, _) in days.items()}
    gold = [(t, Call("QueryHistoryToday", {"date": value})) for t, (_, value) in days.items()]
    assert value_format([v for _, v in days.values()]) == "MM-DD"
    assert value_format(["21-04", "12-10"]) is None  # day first is not claimed as month first
    lines = usage_examples(
        ToolDoc(tool="QueryHistoryToday", name="QueryHistoryToday"), gold, asks.get, 3, "s"
    )
    assert set(lines) == {
        'Request: "What happened on December 10th in history?" -> QueryHistoryToday(date=<date: MM-DD>)',
        'Request: "What happened on April 21st in history?" -> QueryHistoryToday(date="04-21")',
    }
    # an enumeration no request states stays an allowed value, shown as it is
    units = [(f"User: How did it go, {w}?", "day") for w in ("Ann", "Bo")] + [("User: And Cy?", "week")] * 2
    assert allowed_values("unit", units) == ["day", "week"]


def test_a_value_is_traced_to_the_request_only_as_a_whole_word() -> None:
    call = Call("OpenBankAccount", {"account": "user4", "password": "user4pass", "name": "John"})
    text = example_text("OpenBankAccount", call, "My password is user4pass.", {}, {})
    assert text == (
        'Request: "My password is user4pass." -> '
        'OpenBankAccount(account=<account>, password="user4pass", name=<name>)'
    )
    symptom = Call("SymptomSearch", {"symptom": "nausea"})
    assert "<symptom>" in example_text("SymptomSearch", symptom, "I feel nauseous today.", {}, {})
    assert 'symptom="nausea"' in example_text("SymptomSearch", symptom, "I have nausea.", {}, {})


def test_a_month_day_that_reads_either_way_round_is_shown_as_its_format() -> None:
    """An agent shown date="12-10" beside "12-10" wrote April 21st as "21-04"; 04-21 cannot be misread."""
    call = Call("QueryHistoryToday", {"date": "12-10"})
    text = example_text("QueryHistoryToday", call, "Today's date, 12-10, please.", {"date": "MM-DD"}, {})
    assert text.endswith("QueryHistoryToday(date=<date: MM-DD>)")
    clear = Call("QueryHistoryToday", {"date": "04-21"})
    text = example_text("QueryHistoryToday", clear, "Today's date, 04-21, please.", {"date": "MM-DD"}, {})
    assert text.endswith('QueryHistoryToday(date="04-21")')


def test_a_structure_is_shown_where_the_request_holds_every_value_inside_it() -> None:
    """An agent given `health_data=<list[{"name": ..., "value": str}]>` wrote [110, 70, 90] for
    "blood pressure is 110/70 and heart rate is 90": the example shows the records the request maps to,
    when the request quoted holds every value in them and the names are the structure's vocabulary."""
    from core.chisel.engines.synth import usage_examples
    from core.chisel.engines.values import allowed_leaves
    from core.docs import ToolDoc

    readings = {"a": ("120/80", "80"), "b": ("110/70", "90"), "c": ("130/85", "72")}
    queries = {
        t: f"User: Please record my health data.\nUser: My blood pressure is {bp} and my heart rate is {hr}."
        for t, (bp, hr) in readings.items()
    }
    gold = [
        (
            t,
            Call(
                "RecordHealthData",
                {
                    "user_id": "12345",
                    "health_data": [
                        {"name": "blood_pressure", "value": bp},
                        {"name": "heart_rate", "value": hr},
                    ],
                },
            ),
        )
        for t, (bp, hr) in readings.items()
    ]
    pairs = [(queries[t], c.args["health_data"]) for t, c in gold]
    assert allowed_leaves(pairs) == {"blood_pressure", "heart_rate"}  # the readings are the user's data
    lines = usage_examples(
        ToolDoc(tool="RecordHealthData", name="RecordHealthData"), gold, queries.get, 3, "s"
    )
    assert len(lines) == 3
    for line in lines:
        bp, hr = next(r for r in readings.values() if r[0] in line)
        assert line == (
            f'Request: "My blood pressure is {bp} and my heart rate is {hr}." -> RecordHealthData(user_id=<user_id: an integer>, '
            f'health_data=[{{"name": "blood_pressure", "value": "{bp}"}}, {{"name": "heart_rate", "value": "{hr}"}}])'
        )
    # a reading the request does not hold keeps the whole structure a format
    other = Call("RecordHealthData", {"health_data": [{"name": "heart_rate", "value": "66"}]})
    shape = {"health_data": 'list[{"name": "heart_rate", "value": str}]'}
    text = example_text(
        "RecordHealthData", other, "My heart rate is 90.", shape, {"health_data": {"heart_rate"}}
    )
    assert text.endswith(
        'RecordHealthData(health_data=<health_data: list[{"name": "heart_rate", "value": str}]>)'
    )
    # a reading inside another ("80" in "120/80") is not where the value came from
    heart = Call("RecordHealthData", {"health_data": [{"name": "heart_rate", "value": "80"}]})
    text = example_text("RecordHealthData", heart, "It was 120/80.", shape, {"health_data": {"heart_rate"}})
    assert text.endswith('<health_data: list[{"name": "heart_rate", "value": str}]>)')
    # a record id inside a structure is never shown, even when the request holds it
    ids = Call("CancelOrders", {"orders": [{"order_id": "W123", "reason": "late"}]})
    assert "W123" not in example_text("CancelOrders", ids, "Cancel W123, it is late.", {}, {})


def test_a_date_the_request_states_in_words_is_shown_converted() -> None:
    """Beside "from March 1st", the format alone left the agent writing "2023-03-01" where the tool takes
    "2023-03-01 00:00:00": the example shows the converted value, wherever the request states it."""
    call = Call("QueryHealthData", {"start_time": "2023-03-01 00:00:00", "end_time": "2023-03-31 23:59:59"})
    fmt = {"start_time": "YYYY-MM-DD HH:MM:SS", "end_time": "YYYY-MM-DD HH:MM:SS"}
    text = example_text(
        "QueryHealthData", call, "My data from March 1st, 2023 to March 31st, please.", fmt, {}
    )
    assert text.endswith('QueryHealthData(start_time="2023-03-01 00:00:00", end_time="2023-03-31 23:59:59")')
    # a call whose year the request contradicts (benchmark data has such) would teach a wrong conversion
    wrong = example_text(
        "QueryHealthData", call, "My data from March 1st, 2022 to March 31st, 2022.", fmt, {}
    )
    assert "2023" not in wrong
    iso = example_text("QueryHealthData", call, "From 2023-03-01 to 2023-03-31.", fmt, {})
    assert iso.endswith('(start_time="2023-03-01 00:00:00", end_time="2023-03-31 23:59:59")')
    # a time of day is shown only where the request states it
    at = Call("ModifyRegistration", {"new_appointment_date": "2023-10-12 14:30:00"})
    fmt = {"new_appointment_date": "YYYY-MM-DD HH:MM:SS"}
    for request in ("Move it to October 12th at 2:30 pm.", "Move it to October 12th, 14:30."):
        assert example_text("M", at, request, fmt, {}).endswith(
            'M(new_appointment_date="2023-10-12 14:30:00")'
        )
    for request in ("Move it to October 12th.", "Move it to October 12th at 2:30 am.", "On Oct 13th, 14:30."):
        assert example_text("M", at, request, fmt, {}).endswith(
            "M(new_appointment_date=<new_appointment_date: YYYY-MM-DD HH:MM:SS>)"
        )
    # a month-day only where its day cannot be read as a month
    day = Call("QueryHistoryToday", {"date": "04-21"})
    assert example_text("Q", day, "What happened on April 21st?", {}, {}) == (
        'Request: "What happened on April 21st?" -> Q(date="04-21")'
    )
    assert example_text("Q", Call("Q", {"date": "12-10"}), "On December 10th?", {}, {}).endswith(
        "Q(date=<date>)"
    )

"""The LLM engine's repair rules for usage examples: an example must be a call of its own tool."""

from __future__ import annotations

from core.benchmarks.base import Call
from core.chisel.engines.checks import content_problems, example_problems
from core.docs import ToolDoc
from core.docs.model import Param


def _doc(tool: str, name: str | None, *params: str) -> ToolDoc:
    return ToolDoc(tool=tool, name=name, parameters=tuple(Param(name=p) for p in params))


CANCEL = _doc("CancelRegistration", "CancelRegistration", "appointment_id")


def test_a_sentence_is_not_an_example() -> None:
    """The measured fault: Qwen 1.5B wrote CancelRegistration's example as a sentence about a date."""
    (problem,) = example_problems(["The date, formatted YYYY-MM-DD."], CANCEL)
    assert "example 1" in problem and "not a call of CancelRegistration" in problem
    assert "CancelRegistration(parameter=value" in problem


def test_calls_of_the_tool_pass_with_a_request_placeholders_or_output() -> None:
    fine = [
        'CancelRegistration(appointment_id="<8 digits>")',
        'Request: "Please cancel my appointment (id 1)" -> CancelRegistration(appointment_id=<appointment_id>)',
        'CancelRegistration(appointment_id="a=b, date=c")\n{"status": "success"}',  # '=' inside a value
    ]
    assert example_problems(fine, CANCEL) == []
    crm = _doc("customer_relationship_manager.delete_customer", None, "customer_id")
    assert example_problems('>>> crm.delete_customer("00000001")', crm) == []  # alias, positional


def test_a_parameter_the_tool_does_not_take_is_named() -> None:
    (problem,) = example_problems(['CancelRegistration(appointment_id="1", date="2023-01-01")'], CANCEL)
    assert "passes date" in problem and "its parameters are appointment_id" in problem
    (problem,) = example_problems(["Ping(host='x')"], _doc("Ping", "Ping"))
    assert "takes no parameters" in problem
    # a parameter the doc lacks but the tool's calls use is the tool's
    assert example_problems(["Ping(host='x')"], _doc("Ping", "Ping"), {"host"}) == []


def test_another_tools_call_is_not_this_tools_example() -> None:
    (problem,) = example_problems(['ModifyRegistration(appointment_id="1")'], CANCEL)
    assert "not a call of CancelRegistration" in problem
    # a name that merely ends like the tool's is another tool
    (problem,) = example_problems(['UndoCancelRegistration(appointment_id="1")'], CANCEL)
    assert "not a call" in problem


def test_content_problems_reports_example_faults_with_the_operation() -> None:
    gold = [("t1", Call("CancelRegistration", {"appointment_id": "12345678"}))]
    found = {("Add", "UE"): ["The date, formatted YYYY-MM-DD."], ("Refine", "FD"): "Cancels an appointment."}
    (problem,) = content_problems(found, gold, CANCEL)
    assert problem.startswith("Add UE: example 1")

"""Health APIs (SPEC.md 3.3): health data, symptoms and hospital appointments.

The four registration APIs share the `Appointments` table within a session;
AppointmentRegistration draws a random 8-digit id, which its check does not
compare (and which replay pins to the recorded id, SPEC 5).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from core.benchmarks.apibank.common import (
    DATE,
    DATETIME,
    ApiDef,
    ApiError,
    ParamSpec,
    arg,
    as_date,
    as_datetime,
    check_inputs,
    norm_time,
    out_exc,
    same,
    trim,
    upper_trim,
)

# --------------------------------------------------------------------------- health data


def _user_id(user_id: Any) -> str:
    uid = user_id.strip().upper()
    if not uid:
        raise ApiError("The user id cannot be empty.")
    return uid


def query_health_data(session: Any, user_id: Any, start_time: Any, end_time: Any) -> list[dict]:
    uid = _user_id(user_id)
    errors: list[str] = []
    times: list[str] = []
    for value in (start_time, end_time):
        try:
            times.append(norm_time(value, DATETIME))
        except ValueError as exc:
            errors.append(str(exc))
    if errors:
        raise ApiError("; ".join(errors))
    start, end = (datetime.strptime(t, DATETIME) for t in times)
    if start > end:
        raise ApiError("The start time cannot be later than the end time.")
    data = session.db("HealthData")
    if uid not in data:
        raise ApiError("The user id does not exist.")
    found = [r for r in data[uid] if start <= datetime.strptime(r["time"], DATETIME) <= end]
    if not found:
        raise ApiError("There is no health data in the given time span.")
    return copy.deepcopy(found)


def record_health_data(session: Any, user_id: Any, time: Any, health_data: Any = None) -> str:
    uid = _user_id(user_id)
    when = norm_time(time, DATETIME)
    if not health_data:
        raise ApiError("The health data cannot be empty.")
    # A list passed as text is iterated character by character and fails here (B1).
    for item in health_data:
        if "name" not in item:
            raise ApiError("The health data has invalid format.")
    names = [item["name"] for item in health_data]
    if len(set(names)) != len(names):
        raise ApiError("The health data cannot contain duplicate items.")
    values = {item["name"]: item["value"] for item in health_data}  # KeyError 'value' -> "'value'"
    records = session.db("HealthData").setdefault(uid, [])
    for rec in records:
        if rec.get("time") == when:
            rec.update(values)
            break
    else:
        records.append({"time": when, **values})
    return "success"


def _check_record_health(pred: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
    """User ids and times compared normalised; `health_data` itself is not compared."""
    return (
        upper_trim(arg(pred, "user_id")) == upper_trim(arg(gold, "user_id"))
        and as_datetime(arg(pred, "time")) == as_datetime(arg(gold, "time"))
        and out_exc(pred, gold)
    )


# --------------------------------------------------------------------------- symptoms


def _symptom_key(symptom: Any) -> str:
    key = symptom.strip().lower()
    if not key:
        raise ApiError("The symptom cannot be empty.")
    return key


def symptom_search(session: Any, symptom: Any) -> list[dict]:
    key = _symptom_key(symptom)
    table = session.db("Symptom")
    if key not in table:
        raise ApiError("The symptom does not exist.")
    return [{"name": d["name"], "description": d["description"]} for d in table[key]]


def emergency_knowledge(session: Any, symptom: Any) -> list[dict]:
    key = symptom.strip().lower()
    if not key:
        # Upstream bug B6, reproduced: the empty case reports this odd message.
        raise ApiError("'Exception' object has no attribute 'lower'")
    table = session.db("Symptom")
    if key not in table:
        raise ApiError("The symptom does not exist.")
    return [{"name": d["name"], "aid": d["aid"]} for d in table[key]]


def _symptom_norm(value: Any) -> str:
    key = str(value).strip().lower()
    if not key:
        # Upstream's check crashes on an empty symptom; here it scores incorrect.
        raise ValueError("empty symptom in check")
    return key


# --------------------------------------------------------------------------- appointments


def appointment_registration(session: Any, patient_name: Any, date: Any, doctor_name: Any) -> str:
    patient, doctor = patient_name.strip(), doctor_name.strip()
    if not patient or not doctor:
        raise ApiError("Patient name or doctor name cannot be empty.")
    day = norm_time(date, DATE)
    table = session.db("Appointments")
    for appt in table.values():
        if appt["patient_name"] == patient and appt["date"] == day:
            if appt["doctor_name"] == doctor:
                raise ApiError("This appointment has already been registered.")
            raise ApiError("This patient has already been registered in this day.")
    new_id = str(session.rng.randint(10_000_000, 99_999_999))
    while new_id in table:
        new_id = str(session.rng.randint(10_000_000, 99_999_999))
    table[new_id] = {"patient_name": patient, "date": day, "doctor_name": doctor}
    return new_id


def _check_appointment_registration(pred: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
    """Inputs normalised; the random id is not compared, only whether it is missing."""
    if trim(arg(pred, "patient_name")) != trim(arg(gold, "patient_name")):
        return False
    if as_date(arg(pred, "date")) != as_date(arg(gold, "date")):
        return False
    if trim(arg(pred, "doctor_name")) != trim(arg(gold, "doctor_name")):
        return False
    if gold.get("output") is None and pred.get("output") is not None:
        return False
    return same(pred, gold, "exception")


def cancel_registration(session: Any, appointment_id: Any) -> str:
    key = appointment_id.strip()
    table = session.db("Appointments")
    if key not in table:
        raise ApiError("The appointment ID is incorrect.")
    del table[key]
    return "success"


def modify_registration(
    session: Any, appointment_id: Any, new_appointment_date: Any = None, new_appointment_doctor: Any = None
) -> str:
    key = appointment_id.strip()
    table = session.db("Appointments")
    if key not in table:
        raise ApiError("The appointment ID does not exist.")
    date_error = None
    day = doctor = None
    if new_appointment_date is not None:
        try:
            day = norm_time(new_appointment_date, DATE)
        except ValueError as exc:
            date_error = str(exc)
    if new_appointment_doctor is not None:
        doctor = new_appointment_doctor.strip()
        if not doctor:
            raise ApiError("Fail because the doctor name is empty.")
    if date_error is not None:
        raise ApiError(date_error)
    appt = table[key]
    if day is None and doctor is None:
        raise ApiError("Fail because no modification is made.")
    if day is None:
        if doctor == appt["doctor_name"]:
            raise ApiError("Fail because doctor is not changed.")
        appt["doctor_name"] = doctor
    elif doctor is None:
        if day == appt["date"]:
            raise ApiError("Fail because date is not changed.")
        appt["date"] = day
    else:
        if day == appt["date"] and doctor == appt["doctor_name"]:
            raise ApiError("Fail because no modification is made.")
        if day == appt["date"]:
            raise ApiError("Fail because date is not changed.")
        if doctor == appt["doctor_name"]:
            raise ApiError("Fail because doctor is not changed.")
        appt["date"], appt["doctor_name"] = day, doctor
    return "success"


def _optional(norm: Any) -> Any:
    return lambda v: None if v is None else norm(v)


def query_registration(session: Any, patient_name: Any, date: Any) -> dict[str, dict]:
    patient = patient_name.strip()
    day = norm_time(date, DATE)
    found = {
        k: dict(v)
        for k, v in session.db("Appointments").items()
        if v["patient_name"] == patient and v["date"] == day
    }
    if not found:
        raise ApiError("No appointments found.")
    return found


S = ParamSpec
APIS: tuple[ApiDef, ...] = (
    ApiDef(
        "QueryHealthData",
        "health",
        (S("user_id"), S("start_time"), S("end_time")),
        query_health_data,
        check_inputs(("user_id", upper_trim), ("start_time", as_datetime), ("end_time", as_datetime)),
    ),
    ApiDef(
        "RecordHealthData",
        "health",
        (S("user_id"), S("time"), S("health_data", "list", required=False)),
        record_health_data,
        _check_record_health,
        echo_missing=("health_data",),
    ),
    ApiDef(
        "SymptomSearch", "health", (S("symptom"),), symptom_search, check_inputs(("symptom", _symptom_norm))
    ),
    ApiDef(
        "EmergencyKnowledge",
        "health",
        (S("symptom"),),
        emergency_knowledge,
        check_inputs(("symptom", _symptom_norm)),
    ),
    ApiDef(
        "AppointmentRegistration",
        "health",
        (S("patient_name"), S("date"), S("doctor_name")),
        appointment_registration,
        _check_appointment_registration,
    ),
    ApiDef(
        "CancelRegistration",
        "health",
        (S("appointment_id"),),
        cancel_registration,
        check_inputs(("appointment_id", trim)),
    ),
    ApiDef(
        "ModifyRegistration",
        "health",
        (
            S("appointment_id"),
            S("new_appointment_date", required=False),
            S("new_appointment_doctor", required=False),
        ),
        modify_registration,
        check_inputs(
            ("appointment_id", trim),
            ("new_appointment_date", _optional(as_date)),
            ("new_appointment_doctor", _optional(trim)),
        ),
        echo_missing=("new_appointment_date", "new_appointment_doctor"),
    ),
    ApiDef(
        "QueryRegistration",
        "health",
        (S("patient_name"), S("date")),
        query_registration,
        check_inputs(("patient_name", trim), ("date", as_date)),
    ),
)

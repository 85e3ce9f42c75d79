"""Calendar tools (SPEC 3.1). Timestamp-range filters parse every start time, like upstream."""

from __future__ import annotations

from typing import Any

import pandas as pd

from core.benchmarks.workbench.tables import Tables, append_row, drop_where, has_id, max_id, set_where


def get_event_information_by_id(t: Tables, /, event_id: Any = None, field: Any = None) -> Any:
    if not event_id:
        return "Event ID not provided."
    if not field:
        return "Field not provided."
    df = t.calendar
    if not has_id(df, "event_id", event_id):
        return "Event not found."
    if field not in df.columns:
        return "Field not found."
    return {field: df.loc[df["event_id"] == event_id, field].values[0]}


def search_events(t: Tables, /, query: Any = "", time_min: Any = None, time_max: Any = None) -> Any:
    df = t.calendar
    mask = df["event_name"].str.contains(query, case=False, na=False) | df["participant_email"].str.contains(
        query, case=False, na=False
    )
    found = df[mask]
    # Row-wise filters on the rows still matching, in this order: a bound is parsed only
    # when some row is left to compare (the recorded runs show "No events found." for an
    # unparsable `24:00:00` bound once nothing matched), and so is each start time.
    if time_min:
        found = _by_start(found, time_min, lambda start, bound: start >= bound)
    if time_max:
        found = _by_start(found, time_max, lambda start, bound: start <= bound)
    if found.empty:
        return "No events found."
    return found.head(5).to_dict(orient="records")


def _by_start(rows: pd.DataFrame, bound: Any, keep: Any) -> pd.DataFrame:
    if rows.empty:
        return rows
    starts = rows["event_start"].map(pd.Timestamp)
    limit = pd.Timestamp(bound)
    return rows[[bool(keep(s, limit)) for s in starts]]


def create_event(
    t: Tables,
    /,
    event_name: Any = None,
    participant_email: Any = None,
    event_start: Any = None,
    duration: Any = None,
) -> Any:
    if not event_name:
        return "Event name not provided."
    if not participant_email:
        return "Participant email not provided."
    if not event_start:
        return "Event start not provided."
    if not duration:
        return "Event duration not provided."
    participant_email = participant_email.lower()
    df = t.calendar
    event_id = str(max_id(df, "event_id") + 1).zfill(8)
    values = {
        "event_id": event_id,
        "event_name": event_name,
        "participant_email": participant_email,
        "event_start": event_start,
        "duration": duration,
    }
    # Appended with its own label 0 (labels may repeat), SPEC 1.5.
    t.set("calendar", append_row(df, [values.get(c) for c in df.columns], 0))
    return event_id


def delete_event(t: Tables, /, event_id: Any = None) -> Any:
    if not event_id:
        return "Event ID not provided."
    df = t.calendar
    if not has_id(df, "event_id", event_id):
        return "Event not found."
    t.set("calendar", drop_where(df, "event_id", event_id))
    return "Event deleted successfully."


def update_event(t: Tables, /, event_id: Any = None, field: Any = None, new_value: Any = None) -> Any:
    if not event_id or not field or not new_value:
        return "Event ID, field, or new value not provided."
    df = t.calendar
    if not has_id(df, "event_id", event_id):
        return "Event not found."
    if field == "participant_email":
        new_value = new_value.lower()
    # No field validation: an unknown name becomes a new column (Q9).
    t.set("calendar", set_where(df, "event_id", event_id, field, new_value))
    return "Event updated successfully."

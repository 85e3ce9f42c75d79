"""Email tools (SPEC 3.2).

The sent time comes from the fixed clock. Upstream stores it as a timestamp
object in a text column (quirk Q1), which makes a later search over a mix of
original and sent emails raise; `Tables.compat_timestamps` chooses between that
and storing the text form (the default, which cannot crash).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from core.benchmarks.workbench.tables import Tables, append_row, clone, drop_where, has_id, max_id

NOW_TEXT = "2023-11-30 00:00:00"


def _now(t: Tables) -> Any:
    return pd.Timestamp(NOW_TEXT) if t.compat_timestamps else NOW_TEXT


def get_email_information_by_id(t: Tables, /, email_id: Any = None, field: Any = None) -> Any:
    if not email_id:
        return "Email ID not provided."
    if not field:
        return "Field not provided."
    df = t.emails
    if not has_id(df, "email_id", email_id):
        return "Email not found."
    if field not in df.columns:
        return "Field not found."
    return {field: df.loc[df["email_id"] == email_id, field].values[0]}


def search_emails(t: Tables, /, query: Any = "", date_min: Any = None, date_max: Any = None) -> Any:
    words = query.lower().split()  # a None query raises here, as upstream
    df = t.emails
    text = (df["subject"] + " " + df["body"] + " " + df["sender/recipient"]).str.lower()
    mask = text.map(lambda s: isinstance(s, str) and all(w in s for w in words)).astype(bool)
    # Sorting the mixed str/Timestamp column raises in compat mode (Q1), before any date filter.
    found = df[mask].sort_values("sent_datetime", ascending=False, kind="stable")
    if date_min or date_max:
        dates = found["sent_datetime"].map(lambda v: pd.Timestamp(v).date())
        keep = pd.Series(True, index=found.index)
        if date_min:
            keep &= dates >= pd.Timestamp(date_min).date()
        if date_max:
            keep &= dates <= pd.Timestamp(date_max).date()
        found = found[keep]
    if found.empty:
        return "No emails found."
    return found.head(5).to_dict(orient="records")


def send_email(t: Tables, /, recipient: Any = None, subject: Any = None, body: Any = None) -> Any:
    if not recipient or not subject or not body:
        return "Recipient, subject, or body not provided."
    if "@" not in recipient or "." not in recipient:
        return "Invalid recipient email address."
    recipient = recipient.lower()
    df = t.emails
    email_id = str(max_id(df, "email_id") + 1)  # not zero-padded (Q11)
    values = [email_id, "outbox", recipient, subject, _now(t), body]
    # Label = current row count: appends, or overwrites that label after a delete (Q2).
    label = len(df)
    if label in df.index:
        df = clone(df)
        df.loc[label] = values
    else:
        df = append_row(df, values, label)
    t.set("emails", df)
    return "Email sent successfully."


def delete_email(t: Tables, /, email_id: Any = None) -> Any:
    if not email_id:
        return "Email ID not provided."
    df = t.emails
    if not has_id(df, "email_id", email_id):
        return "Email not found."
    t.set("emails", drop_where(df, "email_id", email_id))
    return "Email deleted successfully."


def forward_email(t: Tables, /, email_id: Any = None, recipient: Any = None) -> Any:
    if not email_id or not recipient:
        return "Email ID or recipient not provided."
    df = t.emails
    if not has_id(df, "email_id", email_id):
        return "Email not found."
    if "@" not in recipient or "." not in recipient:
        return "Invalid recipient email address."
    row = df[df["email_id"] == email_id].iloc[0]
    result = send_email(t, recipient.lower(), "FW: " + row["subject"], row["body"])
    return "Email forwarded successfully." if result == "Email sent successfully." else result


def reply_email(t: Tables, /, email_id: Any = None, body: Any = None) -> Any:
    if not email_id or not body:
        return "Email ID or body not provided."
    df = t.emails
    if not has_id(df, "email_id", email_id):
        return "Email not found."
    row = df[df["email_id"] == email_id].iloc[0]
    result = send_email(t, row["sender/recipient"], row["subject"], body)
    return "Email replied successfully." if result == "Email sent successfully." else result

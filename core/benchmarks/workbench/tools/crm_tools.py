"""Customer-relationship-manager tools (SPEC 3.5).

`add_customer` validates nothing but the three required fields, while
`update_customer` checks status and product interest (quirk Q10).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from core.benchmarks.workbench.tables import Tables, append_row, drop_where, has_id, max_id, set_where

STATUSES = ("Qualified", "Won", "Lost", "Lead", "Proposal")
INTERESTS = ("Software", "Hardware", "Services", "Consulting", "Training")
STATUS_ERROR = "Status not valid. Please choose from: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'"
INTEREST_ERROR = "Product interest not valid. Please choose from: 'Software', 'Hardware', 'Services', 'Consulting', 'Training'"
FIELD_ERROR = (
    "Field not valid. Please choose from: 'customer_name', 'assigned_to_email', 'customer_email', "
    "'customer_phone', 'last_contact_date', 'product_interest', 'status', 'notes', 'follow_up_by'"
)
TEXT_FILTERS = ("customer_name", "customer_email", "product_interest", "status", "assigned_to_email")


def search_customers(
    t: Tables,
    /,
    customer_name: Any = None,
    customer_email: Any = None,
    product_interest: Any = None,
    status: Any = None,
    assigned_to_email: Any = None,
    last_contact_date_min: Any = None,
    last_contact_date_max: Any = None,
    follow_up_by_min: Any = None,
    follow_up_by_max: Any = None,
) -> Any:
    text = dict(
        zip(
            TEXT_FILTERS,
            (customer_name, customer_email, product_interest, status, assigned_to_email),
            strict=True,
        )
    )
    ranges = (
        ("last_contact_date", last_contact_date_min, last_contact_date_max),
        ("follow_up_by", follow_up_by_min, follow_up_by_max),
    )
    if not any(text.values()) and not any(lo or hi for _, lo, hi in ranges):
        return "No search parameters provided. Please provide at least one parameter."
    df = t.crm
    mask = pd.Series(True, index=df.index)
    for column, value in text.items():
        if value:
            mask &= df[column].str.contains(value, case=False, na=False)
    for column, lo, hi in ranges:
        # Plain string range, inclusive (SPEC 1.4).
        if lo:
            mask &= df[column] >= lo
        if hi:
            mask &= df[column] <= hi
    return df[mask].head(5).to_dict(orient="records")


def update_customer(t: Tables, /, customer_id: Any = None, field: Any = None, new_value: Any = None) -> Any:
    if not customer_id or not field or not new_value:
        return "Customer ID, field, or new value not provided."
    if field == "status" and new_value not in STATUSES:
        return STATUS_ERROR
    if field == "product_interest" and new_value not in INTERESTS:
        return INTEREST_ERROR
    if field in ("customer_email", "assigned_to_email"):
        new_value = new_value.lower()
    df = t.crm
    if not has_id(df, "customer_id", customer_id):
        return "Customer not found."
    if field not in df.columns:
        return FIELD_ERROR
    t.set("crm", set_where(df, "customer_id", customer_id, field, new_value))
    return "Customer updated successfully."


def add_customer(
    t: Tables,
    /,
    customer_name: Any = None,
    assigned_to_email: Any = None,
    status: Any = None,
    customer_email: Any = None,
    customer_phone: Any = None,
    last_contact_date: Any = None,
    product_interest: Any = None,
    notes: Any = "",
    follow_up_by: Any = None,
) -> Any:
    if not customer_name or not assigned_to_email or not status:
        return "Please provide all required fields: customer_name, assigned_to_email, status."
    assigned_to_email = assigned_to_email.lower()
    if customer_email:
        customer_email = customer_email.lower()
    df = t.crm
    customer_id = str(max_id(df, "customer_id") + 1).zfill(8)
    values = {
        "customer_id": customer_id,
        "assigned_to_email": assigned_to_email,
        "customer_name": customer_name,
        "customer_email": customer_email,
        "customer_phone": customer_phone,
        "last_contact_date": last_contact_date,
        "product_interest": product_interest,
        "status": status,
        "follow_up_by": follow_up_by,
        "notes": notes,
    }
    # Append in column order, then relabel every row 0..n-1 (SPEC 1.5).
    t.set("crm", append_row(df, [values.get(c) for c in df.columns], len(df)).reset_index(drop=True))
    return customer_id


def delete_customer(t: Tables, /, customer_id: Any = None) -> Any:
    if not customer_id:
        return "Customer ID not provided."
    df = t.crm
    if not has_id(df, "customer_id", customer_id):
        return "Customer not found."
    t.set("crm", drop_where(df, "customer_id", customer_id))
    return "Customer deleted successfully."

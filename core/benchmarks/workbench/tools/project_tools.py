"""Project-management tools (SPEC 3.4). Searches use case-insensitive regex containment."""

from __future__ import annotations

from typing import Any

import pandas as pd

from core.benchmarks.workbench.tables import Tables, append_row, drop_where, has_id, max_id, set_where

LISTS = ("Backlog", "In Progress", "In Review", "Completed")
BOARDS = ("Back end", "Front end", "Design")
LIST_ERROR = "List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'."
BOARD_ERROR = "Board not valid. Please choose from: 'Back end', 'Front end', 'Design'."
ASSIGNEE_ERROR = "Assignee email not valid. Please choose from the list of team members."
FIELDS = ("task_id", "task_name", "assigned_to_email", "list_name", "due_date", "board")


def _assignees(df: pd.DataFrame) -> set[str]:
    """Only people who already have tasks qualify (not the whole directory)."""
    return {v.lower() for v in df["assigned_to_email"].to_numpy() if isinstance(v, str)}


def get_task_information_by_id(t: Tables, /, task_id: Any = None, field: Any = None) -> Any:
    if not task_id:
        return "Task ID not provided."
    if not field:
        return "Field not provided."
    df = t.tasks
    if not has_id(df, "task_id", task_id):
        return "Task not found."
    if field not in df.columns:
        return "Field not found."
    return {field: df.loc[df["task_id"] == task_id, field].values[0]}


def search_tasks(
    t: Tables,
    /,
    task_name: Any = None,
    assigned_to_email: Any = None,
    list_name: Any = None,
    due_date: Any = None,
    board: Any = None,
) -> Any:
    filters = {
        "task_name": task_name,
        "assigned_to_email": assigned_to_email,
        "list_name": list_name,
        "due_date": due_date,
        "board": board,
    }
    if not any(filters.values()):
        return "No search parameters provided."
    df = t.tasks
    mask = pd.Series(True, index=df.index)
    for column, value in filters.items():
        if value:
            mask &= df[column].str.contains(value, case=False, na=False)
    return df[mask].to_dict(orient="records")


def create_task(
    t: Tables,
    /,
    task_name: Any = None,
    assigned_to_email: Any = None,
    list_name: Any = None,
    due_date: Any = None,
    board: Any = None,
) -> Any:
    if not task_name or not assigned_to_email or not list_name or not due_date or not board:
        return "Missing task details."
    df = t.tasks
    assigned_to_email = assigned_to_email.lower()
    if assigned_to_email not in _assignees(df):
        return ASSIGNEE_ERROR
    if list_name not in LISTS:
        return LIST_ERROR
    if board not in BOARDS:
        return BOARD_ERROR
    task_id = str(max_id(df, "task_id") + 1).zfill(8)
    values = {
        "task_id": task_id,
        "task_name": task_name,
        "assigned_to_email": assigned_to_email,
        "list_name": list_name,
        "due_date": due_date,
        "board": board,
    }
    # Append, then relabel every row 0..n-1 (SPEC 1.5).
    t.set("tasks", append_row(df, [values.get(c) for c in df.columns], len(df)).reset_index(drop=True))
    return task_id


def delete_task(t: Tables, /, task_id: Any = None) -> Any:
    if not task_id:
        return "Task ID not provided."
    df = t.tasks
    if not has_id(df, "task_id", task_id):
        return "Task not found."
    t.set("tasks", drop_where(df, "task_id", task_id))
    return "Task deleted successfully."


def update_task(t: Tables, /, task_id: Any = None, field: Any = None, new_value: Any = None) -> Any:
    if not task_id or not field or not new_value:
        return "Task ID, field, or new value not provided."
    df = t.tasks
    if field == "assigned_to_email":
        new_value = new_value.lower()
    # Value checks come before the existence check, as upstream.
    if field == "board" and new_value not in BOARDS:
        return BOARD_ERROR
    if field == "list_name" and new_value not in LISTS:
        return LIST_ERROR
    if field == "assigned_to_email" and new_value not in _assignees(df):
        return ASSIGNEE_ERROR
    if not has_id(df, "task_id", task_id):
        return "Task not found."
    if field not in df.columns:
        return "Field not valid."
    t.set("tasks", set_where(df, "task_id", task_id, field, new_value))
    return "Task updated successfully."

"""The tool table: public names, domains, signatures, write/read class and prompt order.

Prompt order and the write/read split come from SPEC 3.7. `render_observation`
turns a raw return value into the text the agent saw (Python `str()`), which is
what LangChain put in the scratchpad.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.benchmarks.workbench.tools import (
    analytics_tools,
    calendar_tools,
    crm_tools,
    directory_tools,
    email_tools,
    project_tools,
)

# Domain -> (module, function names in prompt order: write tools first, then reads).
_DOMAINS: dict[str, tuple[Any, tuple[str, ...]]] = {
    "email": (
        email_tools,
        (
            "send_email",
            "delete_email",
            "forward_email",
            "reply_email",
            "get_email_information_by_id",
            "search_emails",
        ),
    ),
    "calendar": (
        calendar_tools,
        ("create_event", "delete_event", "update_event", "get_event_information_by_id", "search_events"),
    ),
    "analytics": (
        analytics_tools,
        (
            "create_plot",
            "engaged_users_count",
            "get_visitor_information_by_id",
            "traffic_source_count",
            "total_visits_count",
            "get_average_session_duration",
        ),
    ),
    "project_management": (
        project_tools,
        ("create_task", "delete_task", "update_task", "get_task_information_by_id", "search_tasks"),
    ),
    "customer_relationship_manager": (
        crm_tools,
        ("update_customer", "add_customer", "delete_customer", "search_customers"),
    ),
    "company_directory": (directory_tools, ("find_email_address",)),
}

WRITE_TOOLS: frozenset[str] = frozenset(
    {
        "calendar.create_event",
        "calendar.delete_event",
        "calendar.update_event",
        "email.send_email",
        "email.delete_email",
        "email.forward_email",
        "email.reply_email",
        "analytics.create_plot",
        "project_management.create_task",
        "project_management.delete_task",
        "project_management.update_task",
        "customer_relationship_manager.update_customer",
        "customer_relationship_manager.add_customer",
        "customer_relationship_manager.delete_customer",
    }
)


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its public dotted name, the function and its keyword parameters with defaults."""

    name: str
    domain: str
    function: str
    fn: Callable[..., Any]
    params: tuple[tuple[str, Any], ...]

    @property
    def write(self) -> bool:
        return self.name in WRITE_TOOLS

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.params)


def _spec(domain: str, module: Any, function: str) -> ToolSpec:
    fn = getattr(module, function)
    params = tuple(
        (p.name, p.default)
        for p in inspect.signature(fn).parameters.values()
        if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    )
    return ToolSpec(f"{domain}.{function}", domain, function, fn, params)


TOOLS: dict[str, ToolSpec] = {
    s.name: s for d, (m, names) in _DOMAINS.items() for s in (_spec(d, m, n) for n in names)
}
PROMPT_ORDER: tuple[str, ...] = tuple(TOOLS)
TOOL_DOMAINS: tuple[str, ...] = tuple(_DOMAINS)

# Validation messages a tool returns (not raises) when it rejects a call. Search
# outcomes such as `No events found.` are results, not errors, and are not listed.
ERROR_MESSAGES: frozenset[str] = frozenset(
    {
        "Event ID not provided.",
        "Field not provided.",
        "Event not found.",
        "Field not found.",
        "Event name not provided.",
        "Participant email not provided.",
        "Event start not provided.",
        "Event duration not provided.",
        "Event ID, field, or new value not provided.",
        "Email ID not provided.",
        "Email not found.",
        "Recipient, subject, or body not provided.",
        "Invalid recipient email address.",
        "Email ID or recipient not provided.",
        "Email ID or body not provided.",
        "Visitor ID not provided.",
        "Visitor not found.",
        "Start date not provided.",
        "End date not provided.",
        analytics_tools.VALUE_ERROR,
        analytics_tools.TYPE_ERROR,
        "Task ID not provided.",
        "Task not found.",
        "No search parameters provided.",
        "Missing task details.",
        project_tools.ASSIGNEE_ERROR,
        project_tools.LIST_ERROR,
        project_tools.BOARD_ERROR,
        "Task ID, field, or new value not provided.",
        "Field not valid.",
        "No search parameters provided. Please provide at least one parameter.",
        "Customer ID, field, or new value not provided.",
        crm_tools.STATUS_ERROR,
        crm_tools.INTEREST_ERROR,
        "Customer not found.",
        crm_tools.FIELD_ERROR,
        "Please provide all required fields: customer_name, assigned_to_email, status.",
        "Customer ID not provided.",
        "Name not provided.",
    }
)


def render_observation(value: Any) -> str:
    """The agent-visible text: Python `str()` of the raw value (numpy arrays print numpy-style)."""
    return value if isinstance(value, str) else str(value)

"""What a benchmark's implementation says about one tool: domain, parameters, source code.

Optimizers, baselines and the field study read tool metadata through the
Benchmark protocol's optional hooks (`tool_signature`, `tool_source`,
`tool_domain`), never through a benchmark's internals, so a user's benchmark
gets the same treatment by implementing the hooks.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

# Readable names of benchmark domains (the Task Domain field's content).
DOMAIN_LABELS: dict[str, str] = {
    "analytics": "Data analysis",
    "calendar": "Calendar management",
    "email": "Email management",
    "project_management": "Project management",
    "customer_relationship_manager": "Customer relationship management (CRM)",
    "company_directory": "Company directory (employee lookup)",
    "finance": "Finance management",
    "health": "Health management",
    "information": "Information query and processing",
    "smart_home": "Smart home control",
    "account": "Account management",
}


@dataclass(frozen=True)
class ParamMeta:
    name: str
    type: str | None = None
    has_default: bool = False
    default: Any = None
    required: bool | None = None  # None: the signature does not say (e.g. every default is None)


@dataclass(frozen=True)
class ToolMeta:
    """What introspection of the implementation tells about one tool."""

    tool: str
    domain: str | None
    params: tuple[ParamMeta, ...] = ()
    source: str | None = None

    @property
    def domain_label(self) -> str | None:
        return DOMAIN_LABELS.get(self.domain or "", self.domain)


def source_text(fn: Any, max_lines: int = 40) -> str | None:
    """A function's source, cut to `max_lines` (None when it has none)."""
    try:
        lines = inspect.getsource(fn).rstrip().split("\n")
    except (OSError, TypeError):
        return None
    if len(lines) > max_lines:
        lines = lines[:max_lines] + ["    ..."]
    return "\n".join(lines)


def tool_meta(bench: Any, tool: str, max_source_lines: int = 40) -> ToolMeta:
    """Signature, domain and source of `tool`, from whichever hooks the benchmark implements."""

    def hook(name: str) -> Any:
        fn = getattr(bench, name, None)
        return fn(tool) if callable(fn) else None

    params = tuple(
        ParamMeta(
            p["name"],
            type=p.get("type"),
            has_default=bool(p.get("has_default", p.get("required") is False)),
            default=p.get("default"),
            required=p.get("required"),
        )
        for p in hook("tool_signature") or ()
    )
    fn = getattr(bench, "tool_source", None)
    source = fn(tool, max_source_lines) if callable(fn) else None
    return ToolMeta(tool, hook("tool_domain"), params, source)


def read_only_tools(benchmark: Any) -> frozenset[str]:
    """Tools the benchmark says only read (its `tool_writes(tool) -> bool | None` hook; unknown: not read-only)."""
    hook = getattr(benchmark, "tool_writes", None)
    if not callable(hook):
        return frozenset()
    return frozenset(t for t in benchmark.tool_names() if hook(t) is False)

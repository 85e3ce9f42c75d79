"""The 27 WorkBench tools, re-implemented from SPEC.md section 3.

Each tool is a plain function `fn(tables, /, **params)` whose keyword
parameters and defaults are exactly the upstream signature (checked against
`derived/tools.json` by the tests). The functions follow upstream semantics on
purpose, including its quirks: validation failures are *returned* as English
messages, while malformed inputs (an invalid regex, an unparsable date, a list
where an id is expected) raise, because the upstream harness aborted the
episode at exactly those points.
"""

from core.benchmarks.workbench.tools.registry import (
    ERROR_MESSAGES,
    PROMPT_ORDER,
    TOOL_DOMAINS,
    TOOLS,
    WRITE_TOOLS,
    ToolSpec,
    render_observation,
)

__all__ = [
    "ERROR_MESSAGES",
    "PROMPT_ORDER",
    "TOOLS",
    "TOOL_DOMAINS",
    "WRITE_TOOLS",
    "ToolSpec",
    "render_observation",
]

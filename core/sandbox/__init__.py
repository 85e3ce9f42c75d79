"""Worker processes for code we do not trust: users' tools.py, generated tool code.

`Worker` imports one module in a child process and calls its functions there,
one call at a time, with a wall-clock timeout per call and per import, memory,
file-size and CPU limits, and an environment without secrets; `Pool` shares a
few workers among concurrent callers. See core/sandbox/worker.py for what the
isolation does and does not protect against.
"""

from core.sandbox.worker import (
    FunctionInfo,
    ImportFailure,
    Limits,
    ModuleInfo,
    ParamInfo,
    Pool,
    Reply,
    ToolFailure,
    ToolRaised,
    Worker,
    WorkerError,
    WorkerUnavailable,
    with_limits,
    worker_env,
)

__all__ = [
    "FunctionInfo",
    "ImportFailure",
    "Limits",
    "ModuleInfo",
    "ParamInfo",
    "Pool",
    "Reply",
    "ToolFailure",
    "ToolRaised",
    "Worker",
    "WorkerError",
    "WorkerUnavailable",
    "with_limits",
    "worker_env",
]

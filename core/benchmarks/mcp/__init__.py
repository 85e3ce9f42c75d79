"""An MCP server as a benchmark: `mcp:<command>` or `mcp+http://...` plus a tasks file.

    from core.benchmarks.mcp import load_mcp_benchmark, check
    bench = load_mcp_benchmark("mcp:python notes_server.py", "notes/tasks.jsonl")
    check(bench)   # replays every task's gold calls on fresh servers

Format, isolation and scoring: docs/user-benchmarks.md ("MCP servers").
"""

from core.benchmarks.mcp.benchmark import McpBenchmark, McpSandbox, same_answer
from core.benchmarks.mcp.check import check
from core.benchmarks.mcp.loader import is_mcp_folder, is_mcp_spec, load_mcp_benchmark

__all__ = [
    "McpBenchmark",
    "McpSandbox",
    "check",
    "is_mcp_folder",
    "is_mcp_spec",
    "load_mcp_benchmark",
    "same_answer",
]

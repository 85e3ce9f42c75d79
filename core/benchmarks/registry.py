"""Benchmarks by name: `workbench`, `workbench-all`, `api-bank`, a path to a user folder, an MCP server,
or a name a plugin registered (`register_benchmark`).

An MCP server is `mcp:<stdio command>` or `mcp+http://host:port/mcp` with a
tasks file (`tasks=` option, the CLI's `--tasks`), or a folder whose
benchmark.json names its `server`. `mcp_benchmark_name(server, tasks)` gives
the one-string name that carries both, for configs that store a name.

The registry also gives each configured benchmark a `key` — its name plus the
options that change what the agent sees — which goes into episode identities,
so the "all tools" and "domain tools" variants never share episodes.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.benchmarks.base import BUILTIN, Benchmark, Task


class UnknownBenchmarkError(KeyError):
    """A benchmark name that is neither built in nor a folder (a user error, reported in one line)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown benchmark"


# name -> factory(data_dir, **options), added by plugins ($DOCSCHISEL_PLUGINS, core/cli/main.py)
_REGISTERED: dict[str, Callable[..., Benchmark]] = {}


def register_benchmark(name: str, factory: Callable[..., Benchmark]) -> None:
    """Make `factory(data_dir, **options)` the benchmark called `name` in this process.

    A plugin module does this when it is imported; every `docschisel` command,
    and so every job the dashboard starts, imports the modules $DOCSCHISEL_PLUGINS
    lists first, so a job can run a benchmark the registry does not ship.
    """
    _REGISTERED[name] = factory


def benchmark_key(bench: Benchmark) -> str:
    """Identity of a configured benchmark (name + options that change behaviour)."""
    return getattr(bench, "key", None) or bench.name


def mcp_benchmark_name(server: str, tasks: str | os.PathLike) -> str:
    """The name of an MCP benchmark that carries its tasks file: `mcp:{"server": ..., "tasks": ...}`."""
    return "mcp:" + json.dumps({"server": server, "tasks": str(Path(tasks).expanduser().resolve())})


@dataclass(frozen=True)
class BenchmarkSource:
    """How to build a benchmark again in another process: its registry name, data dir and options.

    Why: a Ray worker loads the benchmark itself (a benchmark may hold tool
    processes or server sessions that cannot travel), and only this small
    recipe crosses the network. A user folder's name is its absolute path.
    """

    name: str
    data_dir: str | None = None
    options: tuple[tuple[str, Any], ...] = ()

    def load(self) -> Benchmark:
        return get_benchmark(self.name, self.data_dir, **dict(self.options))


def get_benchmark(name: str, data_dir: str | os.PathLike | None = None, **options: Any) -> Benchmark:
    """Build a benchmark by registry name, user-folder path or MCP server (its `source` rebuilds it)."""
    bench = _build(name, data_dir, **options)
    path = Path(name).expanduser()
    where = str(path.resolve()) if path.is_dir() else name
    with contextlib.suppress(AttributeError):  # a benchmark that takes no attributes cannot be rebuilt
        bench.source = BenchmarkSource(  # type: ignore[attr-defined]
            where, None if data_dir is None else str(data_dir), tuple(sorted(options.items()))
        )
    return bench


def _build(name: str, data_dir: str | os.PathLike | None = None, **options: Any) -> Benchmark:
    from core.benchmarks.mcp.loader import is_mcp_folder, is_mcp_spec, load_mcp_benchmark

    if is_mcp_spec(name):
        tasks = options.pop("tasks", None)
        body = name[4:].strip() if name.startswith("mcp:") else ""
        if body.startswith("{"):
            try:
                carried = json.loads(body)
                server, tasks = carried["server"], carried["tasks"]
            except (ValueError, KeyError, TypeError):
                raise UnknownBenchmarkError(f"unreadable MCP benchmark name {name!r}") from None
            return load_mcp_benchmark(server, tasks)
        if not tasks:
            raise UnknownBenchmarkError(
                f"{name!r} is an MCP server: give its tasks file too (--tasks PATH, docs/user-benchmarks.md)"
            )
        return load_mcp_benchmark(name, tasks)
    if name in _REGISTERED:
        return _REGISTERED[name](data_dir, **options)
    if name in ("workbench", "workbench-all"):
        from core.benchmarks.workbench import WorkBench

        variant = "all" if name == "workbench-all" else options.pop("variant", "domains")
        bench = WorkBench(data_dir, variant=variant, **options)
        bench.key = f"workbench/{variant}"
        return bench
    if name in ("api-bank", "api-bank-upstream", "apibank"):
        from core.benchmarks.apibank import ApiBank

        tool_set = "upstream" if name == "api-bank-upstream" else options.pop("tool_set", "domain")
        bench = ApiBank(data_dir, tool_set=tool_set, **options)
        bench.key = f"api-bank/{tool_set}"
        return bench
    path = Path(name).expanduser()
    if path.is_dir() and is_mcp_folder(path):
        return load_mcp_benchmark(None, path)
    if path.is_dir():
        from core.benchmarks.userfolder import load_user_benchmark

        return load_user_benchmark(path)
    known = ", ".join(BUILTIN)
    hint = " (no such folder)" if ("/" in name or name.startswith(".")) else ""
    raise UnknownBenchmarkError(
        f"unknown benchmark {name!r}{hint}: use one of {known}, the path of a benchmark folder, "
        "or an MCP server (mcp:<command> or mcp+http://...)"
    )


def select_tasks(
    bench: Benchmark,
    tasks: Sequence[Task] | None = None,
    *,
    domains: Sequence[str] | None = None,
    tools: Sequence[str] | None = None,
) -> list[Task]:
    """Tasks filtered by domain and/or by the tools their ground truth uses."""
    out = list(tasks if tasks is not None else bench.tasks())
    if domains:
        known = set(bench.domains())
        unknown = sorted(set(domains) - known - {t.domain for t in out})
        if unknown:
            raise KeyError(f"unknown domain(s) {unknown} for {bench.name}; domains are {sorted(known)}")
        out = [t for t in out if t.domain in set(domains)]
    if tools:
        wanted = set(tools)
        out = [t for t in out if wanted & set(t.tools)]
    return out

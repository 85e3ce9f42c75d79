"""The manifest of an MCP benchmark: `benchmark.json` beside its tasks file (optional).

Keys (all optional; an unknown key is an error, so typos are caught):

| key | meaning |
|---|---|
| `name`, `description`, `system_prompt`, `domains`, `offer`, `scoring` | as for a user benchmark folder (docs/user-benchmarks.md) |
| `server` | the server when the benchmark is given as this folder: a command line, an argv list, or a URL |
| `cwd` | working folder of a stdio server (relative to the manifest's folder) |
| `env` | extra environment of a stdio server; `{tmp}` in a value is a fresh temporary folder per server process |
| `reset_tool` | a tool that restores the server's initial state: one server is then shared by all episodes (one at a time) and reset before each; needed for an HTTP server that keeps state |
| `setup` | calls run at the start of every episode, before the agent (seeding state); not the agent's calls |
| `stateless` | `true`: the server keeps no state, so an HTTP server needs no reset tool |
| `call_timeout_s`, `start_timeout_s` | seconds a call / the server's start may take (default 30 / 60) |
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.benchmarks.base import Call
from core.benchmarks.userfolder.errors import Problems
from core.benchmarks.userfolder.files import parse_json, read_text
from core.benchmarks.userfolder.manifest import DEFAULT_PROMPT, OFFER_MODES, _domains

MANIFEST = "benchmark.json"
SCORING_MODES = ("auto", "state", "calls")
KEYS = (
    "name",
    "description",
    "system_prompt",
    "domains",
    "offer",
    "scoring",
    "server",
    "cwd",
    "env",
    "reset_tool",
    "setup",
    "stateless",
    "call_timeout_s",
    "start_timeout_s",
)


@dataclass(frozen=True)
class McpManifest:
    """Settings of an MCP benchmark with their defaults filled in."""

    name: str
    description: str = ""
    system_prompt: str = DEFAULT_PROMPT
    domains: tuple[str, ...] = ()
    domain_tools: dict[str, tuple[str, ...]] = field(default_factory=dict)
    offer: str = "all"
    scoring: str = "auto"
    server: str | list[str] | None = None
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    reset_tool: str | None = None
    setup: tuple[Call, ...] = ()
    stateless: bool = False
    call_timeout_s: float = 30.0
    start_timeout_s: float = 60.0


def read_manifest(folder: Path, default_name: str, problems: Problems) -> McpManifest:
    """The manifest of `folder` (defaults when there is none); defects go to `problems`."""
    default = McpManifest(name=default_name)
    if not (folder / MANIFEST).is_file():
        return default
    text = read_text(folder, MANIFEST, problems)
    if text is None:
        return default
    ok, data = parse_json(text, MANIFEST, problems)
    if not ok:
        return default
    if not isinstance(data, dict):
        problems.add(MANIFEST, "the manifest must be a JSON object with keys " + ", ".join(KEYS))
        return default
    before = len(problems.items)
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        problems.add(MANIFEST, f"unknown key(s) {', '.join(unknown)}; allowed keys: {', '.join(KEYS)}")
    out: dict[str, Any] = {}
    for key in ("name", "description", "system_prompt", "reset_tool", "cwd"):
        if key in data:
            value = data[key]
            if not isinstance(value, str) or (key != "description" and not value.strip()):
                problems.add(MANIFEST, f'"{key}" must be a non-empty string')
            else:
                out[key] = value
    for key, allowed in (("scoring", SCORING_MODES), ("offer", OFFER_MODES)):
        if key in data:
            if data[key] not in allowed:
                problems.add(MANIFEST, f'"{key}" must be one of {", ".join(allowed)}, not {data[key]!r}')
            else:
                out[key] = data[key]
    if "domains" in data:
        out.update(_domains(data["domains"], problems))
    if "server" in data:
        server = data["server"]
        if isinstance(server, str) and server.strip():
            out["server"] = server
        elif isinstance(server, list) and server and all(isinstance(a, str) for a in server):
            out["server"] = list(server)
        else:
            problems.add(MANIFEST, '"server" must be a command line, a list of arguments or a URL')
    if "env" in data:
        env = data["env"]
        if isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            out["env"] = dict(env)
        else:
            problems.add(MANIFEST, '"env" must map variable names to strings')
    if "stateless" in data:
        if isinstance(data["stateless"], bool):
            out["stateless"] = data["stateless"]
        else:
            problems.add(MANIFEST, '"stateless" must be true or false')
    for key in ("call_timeout_s", "start_timeout_s"):
        if key in data:
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                problems.add(MANIFEST, f'"{key}" must be a positive number of seconds')
            else:
                out[key] = float(value)
    if "setup" in data:
        out["setup"] = _setup(data["setup"], problems)
    if len(problems.items) > before:
        return default
    return McpManifest(**{**default.__dict__, **out})


def _setup(value: Any, problems: Problems) -> tuple[Call, ...]:
    if not isinstance(value, list):
        problems.add(MANIFEST, '"setup" must be a list of calls {"tool": ..., "args": {...}}')
        return ()
    calls = []
    for i, item in enumerate(value):
        if not (
            isinstance(item, dict) and isinstance(item.get("tool"), str) and set(item) <= {"tool", "args"}
        ):
            problems.add(MANIFEST, f'setup[{i}]: a call is {{"tool": ..., "args": {{...}}}}')
            continue
        args = item.get("args", {})
        if not isinstance(args, dict):
            problems.add(MANIFEST, f'setup[{i}]: "args" must be an object')
            continue
        calls.append(Call(item["tool"], dict(args)))
    return tuple(calls)

"""`benchmark.json`: the optional manifest of a user's benchmark folder.

Every key is optional; an absent manifest means "name = folder name, every tool
offered on every task, scoring decided per task". Unknown keys are errors, so a
typo (`"scoirng"`) is reported instead of silently ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.benchmarks.userfolder.errors import Problems
from core.benchmarks.userfolder.files import parse_json, read_text

MANIFEST = "benchmark.json"
SCORING_MODES = ("auto", "state", "calls")
OFFER_MODES = ("all", "domain")
DEFAULT_PROMPT = (
    "You can use the tools described below to complete the user's request. "
    "Take argument values from the request; when the request is done, answer briefly."
)
KEYS = ("name", "description", "domains", "offer", "scoring", "task_scoring", "system_prompt", "state_param")


@dataclass(frozen=True)
class Manifest:
    """The manifest's settings with their defaults filled in."""

    name: str
    description: str = ""
    domains: tuple[str, ...] = ()
    domain_tools: dict[str, tuple[str, ...]] = field(default_factory=dict)  # empty: no mapping given
    offer: str = "all"
    scoring: str = "auto"
    # defaults of every task's scoring options (core.benchmarks.userfolder.scoring); validated
    # against the tools when the folder loads, overridden key by key by a task's own `scoring`
    task_scoring: dict[str, Any] = field(default_factory=dict)
    system_prompt: str = DEFAULT_PROMPT
    state_param: str = "state"


def read_manifest(folder: Path, problems: Problems) -> Manifest:
    """The folder's manifest (defaults when there is none); defects go to `problems`."""
    default = Manifest(name=folder.resolve().name)
    path = folder / MANIFEST
    if not path.exists():
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
    for key in ("name", "description", "system_prompt", "state_param"):
        if key in data:
            value = data[key]
            if not isinstance(value, str) or (key != "description" and not value.strip()):
                problems.add(MANIFEST, f'"{key}" must be a non-empty string')
            else:
                out[key] = value.strip() if key in ("name", "state_param") else value
    if "state_param" in out and not out["state_param"].isidentifier():
        problems.add(MANIFEST, f'"state_param" must be a Python parameter name, not {out["state_param"]!r}')
    for key, allowed in (("scoring", SCORING_MODES), ("offer", OFFER_MODES)):
        if key in data:
            if data[key] not in allowed:
                problems.add(MANIFEST, f'"{key}" must be one of {", ".join(allowed)}, not {data[key]!r}')
            else:
                out[key] = data[key]
    if "task_scoring" in data:
        value = data["task_scoring"]
        if not isinstance(value, dict):
            problems.add(
                MANIFEST, '"task_scoring" must be an object of scoring options, e.g. {"reads": "allowed"}'
            )
        elif "mode" in value:
            problems.add(
                MANIFEST, '"task_scoring" cannot set "mode": the manifest\'s "scoring" is the default mode'
            )
        else:
            out["task_scoring"] = value
    if "domains" in data:
        out.update(_domains(data["domains"], problems))
    if out.get("offer") == "domain" and not out.get("domain_tools"):
        problems.add(
            MANIFEST, '"offer": "domain" needs "domains" as an object mapping each domain to its tools'
        )
    if "name" in out:
        _check_name(out["name"], problems)
    if len(problems.items) > before:
        return default
    return Manifest(**{**default.__dict__, **out})


def _domains(value: Any, problems: Problems) -> dict[str, Any]:
    """`domains` as a list of names, or an object {domain: [tool, ...]}."""
    if isinstance(value, list) and all(isinstance(d, str) and d for d in value):
        return {"domains": tuple(value)}
    if isinstance(value, dict) and all(
        isinstance(tools, list) and all(isinstance(t, str) for t in tools) for tools in value.values()
    ):
        mapping = {str(d): tuple(tools) for d, tools in value.items()}
        return {"domains": tuple(mapping), "domain_tools": mapping}
    problems.add(
        MANIFEST, '"domains" must be a list of names or an object mapping each domain to a list of tools'
    )
    return {}


def _check_name(name: str, problems: Problems) -> None:
    from core.benchmarks.base import BUILTIN

    if name in BUILTIN or name == "apibank":
        problems.add(MANIFEST, f'"name" {name!r} is a built-in benchmark; choose another name')

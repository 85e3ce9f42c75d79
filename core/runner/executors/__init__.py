"""Executors for the runner: `local` (threads, the default) and `ray` (a Ray cluster).

Like the LLM gateway, the executor is chosen at a command's entry
(`--executor`, $DOCSCHISEL_EXECUTOR) and installed for the process with
`use()`; every run below — an evaluation, each step of an optimization, a
study's variants — picks it up through `current()` without each layer
passing it on. See docs/scale-out.md.
"""

from __future__ import annotations

import os

from core.runner.executors.base import (
    EpisodeResult,
    EpisodeWork,
    Executor,
    LocalExecutor,
    Session,
    default_agent_factory,
    execute,
)

NAMES = ("local", "ray")
ENV_EXECUTOR = "DOCSCHISEL_EXECUTOR"
ENV_RAY_ADDRESS = "DOCSCHISEL_RAY_ADDRESS"

_current: Executor = LocalExecutor()


def current() -> Executor:
    """The installed executor (local until an entry point installs another)."""
    return _current


def use(executor: Executor) -> Executor:
    """Install `executor` for this process's runs; returns the previous one."""
    global _current
    previous, _current = _current, executor
    return previous


def make_executor(name: str | None = None, address: str | None = None) -> Executor:
    """The executor called `name` (default $DOCSCHISEL_EXECUTOR, else local).

    `address` is the Ray cluster (`auto`, `ray://host:10001`, `host:6379`);
    None starts a local Ray instance unless $RAY_ADDRESS names one.
    """
    name = (name or os.environ.get(ENV_EXECUTOR) or "local").strip().lower()
    if name == "local":
        return LocalExecutor()
    if name == "ray":
        from core.runner.executors.on_ray import RayExecutor

        return RayExecutor(address or os.environ.get(ENV_RAY_ADDRESS) or None)
    raise ValueError(f"unknown executor {name!r}: choose one of {', '.join(NAMES)}")


__all__ = [
    "ENV_EXECUTOR",
    "NAMES",
    "EpisodeResult",
    "EpisodeWork",
    "Executor",
    "LocalExecutor",
    "Session",
    "current",
    "default_agent_factory",
    "execute",
    "make_executor",
    "use",
]

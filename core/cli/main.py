"""The `docschisel` command line: one click group, one module per command family.

Each family lives in its own module (`core/cli/<family>.py`) exposing a click
command or group named `command`; modules are imported lazily so `--help` and
light commands stay fast and never load the model runtime.
"""

from __future__ import annotations

import importlib
import os

import click

PLUGINS_ENV = "DOCSCHISEL_PLUGINS"

# family name -> module under core.cli (exposes `command`)
FAMILIES: dict[str, str] = {
    "fields": "fields",
    "bench": "bench",
    "import": "importer",
    "eval": "evaluate",
    "optimize": "optimize",
    "export": "export",
    "study": "study",
    "baseline": "baseline",
    "compare": "compare",
    "expand": "expand",
    "retrieval": "retrieval",
    "demo": "demo",
    "warehouse": "warehouse",
    "results": "results",
    "rescore": "rescore",
    "sop": "sop",
    "mcp": "mcp",
    "export-traces": "traces",
    "app": "app",
}


class LazyGroup(click.Group):
    """A group whose sub-commands are imported only when used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(n for n in FAMILIES if self._load(n) is not None)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return self._load(name)

    @staticmethod
    def _load(name: str) -> click.Command | None:
        module = FAMILIES.get(name)
        if module is None:
            return None
        try:
            mod = importlib.import_module(f"core.cli.{module}")
        except ModuleNotFoundError as exc:
            if exc.name == f"core.cli.{module}":
                return None
            raise
        cmd = mod.command
        cmd.name = name
        return cmd


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="docschisel")
def cli() -> None:
    """DocsChisel Studio: diagnose tool-use failures down to documentation fields and fix the docs."""
    load_plugins()


def load_plugins(environ: dict[str, str] | None = None) -> list[str]:
    """Import the modules $DOCSCHISEL_PLUGINS lists (comma-separated) before any command runs.

    A plugin registers what the command line does not ship, e.g. a benchmark by
    name (`core.benchmarks.registry.register_benchmark`) or a scripted model;
    jobs inherit the variable, so a job started from the dashboard loads them too.
    """
    names = [
        n.strip()
        for n in (os.environ if environ is None else environ).get(PLUGINS_ENV, "").split(",")
        if n.strip()
    ]
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise click.ClickException(
                f"${PLUGINS_ENV} names {name!r}, which cannot be imported: {exc}"
            ) from exc
    return names


def main() -> None:
    """Console entry point; user-facing errors print one clear line, not a traceback."""
    from core.cli.errors import run_with_friendly_errors

    run_with_friendly_errors(cli)


if __name__ == "__main__":
    main()

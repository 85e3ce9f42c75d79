"""The command line keeps the promises its README and help make."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
from click.testing import CliRunner

from core.cli.main import cli

NOTES = Path(__file__).parent / "fixtures" / "userbench" / "notes"


def _leaves(
    cmd: click.Command, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    if isinstance(cmd, click.Group):
        ctx = click.Context(cmd)
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            assert sub is not None, name
            yield from _leaves(sub, (*path, name))
    else:
        yield path, cmd


def test_every_command_accepts_warehouse_or_says_why_not() -> None:
    leaves = list(_leaves(cli))
    assert len(leaves) > 20 and ("rescore",) in [p for p, _ in leaves]
    for path, cmd in leaves:
        option = next((p for p in cmd.params if "--warehouse" in getattr(p, "opts", ())), None)
        assert option is not None, f"docschisel {' '.join(path)} does not accept --warehouse"
        if not option.expose_value:  # accepted but unused: the help must say why
            assert "never touches a warehouse" in (option.help or ""), path


def test_commands_without_a_warehouse_accept_the_option() -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["fields", "list", "--warehouse", "x.duckdb", "--format", "csv"])
    assert out.exit_code == 0 and out.output.startswith("code,field")
    out = runner.invoke(cli, ["bench", "check", "--help"])
    assert "never touches a warehouse" in out.output


def test_fields_coverage_reads_a_user_folders_tools() -> None:
    out = CliRunner().invoke(cli, ["fields", "coverage", str(NOTES), "--format", "json"])
    assert out.exit_code == 0, out.output
    assert '"notes-example"' in out.output and '"tools": 4' in out.output

"""bench/experiments.py stays in sync with the command line: every command it would run parses."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = runpy.run_path(str(ROOT / "bench" / "experiments.py"), run_name="experiments")


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("step", list(EXPERIMENTS["STEPS"]))
def test_every_command_of_a_step_parses(step: str, workers: int) -> None:
    from core.cli.main import cli

    for argv in EXPERIMENTS["commands"](step, workers):
        if argv[1:3] == ["-m", "core.cli.main"]:
            # options are parsed before the eager --help runs: an unknown or malformed option fails here
            out = CliRunner().invoke(cli, [*argv[3:], "--help"])
            assert out.exit_code == 0, f"{' '.join(argv[3:])}: {out.output}"
        else:
            assert argv[0] == sys.executable and (ROOT / argv[1]).is_file(), argv


def test_workers_spread_the_episodes_of_the_commands_that_can_over_ray() -> None:
    one, two = (
        EXPERIMENTS["commands"]("compare-api-bank-10"),
        EXPERIMENTS["commands"]("compare-api-bank-10", 2),
    )
    assert two == [[*argv, "--executor", "ray", "-j", "2"] for argv in one]
    assert EXPERIMENTS["warehouse_of"](two[0]) == EXPERIMENTS["warehouse_of"](one[0])
    study = EXPERIMENTS["commands"]("attribute-api-bank", 2)  # `study attribute` has no executor option
    assert study and all("--executor" not in argv for argv in study)


def test_unknown_step_is_refused(capsys) -> None:
    with pytest.raises(SystemExit):
        EXPERIMENTS["main"](["nonsense"])
    assert "unknown step" in capsys.readouterr().err


@pytest.mark.parametrize("step", list(EXPERIMENTS["STEPS"]))
def test_every_command_names_the_warehouse_it_archives(step: str) -> None:
    """A step keeps its runs in docs/results/runs/<warehouse>/: each command must say which file it writes."""
    for argv in EXPERIMENTS["commands"](step):
        wh = EXPERIMENTS["warehouse_of"](argv)
        assert wh and wh.startswith("data/") and wh.endswith(".duckdb"), argv


def test_a_gepa_command_is_its_og_and_dc_command_with_gepa_added() -> None:
    """GEPA beside an agents-table comparison must reuse that comparison's OG and DC runs: the same
    settings, one method more; a command without OG and DC alone is refused rather than rewritten."""
    with_gepa, table = EXPERIMENTS["_with_gepa"], EXPERIMENTS["AGENTS_TABLE"]
    command = with_gepa(table[2])
    assert command.split() == [w if w != "og,dc" else "og,dc,gepa" for w in table[2].split()]
    with pytest.raises(ValueError, match="not an OG-and-DC comparison"):
        with_gepa(command)

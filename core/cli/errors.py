"""Turn expected user errors into one readable line and a non-zero exit code."""

from __future__ import annotations

import sys

import click

from core.config import DataDirError
from core.docs.model import DocError
from core.redaction import redact


def user_error_types() -> tuple[type[BaseException], ...]:
    """Exceptions that describe a problem with the user's input, not a bug."""
    types: list[type[BaseException]] = [DataDirError, DocError]
    try:
        from core.docs.parsers import DocParseError

        types.append(DocParseError)
    except ImportError:
        pass
    try:
        from core.benchmarks.userfolder import BenchmarkFolderError

        types.append(BenchmarkFolderError)
    except ImportError:
        pass
    from core.benchmarks.registry import UnknownBenchmarkError
    from core.runner.infra import RunAborted
    from core.safeio import InputError

    types.extend((UnknownBenchmarkError, RunAborted, InputError))
    return tuple(types)


def run_with_friendly_errors(cli: click.Group) -> None:
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except user_error_types() as exc:
        click.secho(f"error: {redact(str(exc))}", fg="red", err=True)
        sys.exit(2)

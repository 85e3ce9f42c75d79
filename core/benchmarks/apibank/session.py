"""Sessions and the call layer (SPEC.md 1.3 and 1.4).

A session is one fresh copy of the init databases. All APIs naming the same
database share one in-memory object within the session, and per-API state
(OpenBankAccount's table) lives in `session.state`. The call layer checks the
API and parameter names, converts arguments by declared type and builds the
response record; errors it raises produce no record (CallLayerError).

Argument conversion follows the spec with the two recommended repairs (4.5):
list-typed text is parsed as a Python literal or JSON (fixing B1), and a real
boolean true stays true (B3 extension). Numbers and booleans given for a `str`
parameter become their text form, which is what the upstream text parser
produces for bare values (e.g. `appointment_id=123`), so agents using native
JSON tool calls are judged like agents writing call text.
"""

from __future__ import annotations

import ast
import copy
import json
import random
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.benchmarks.apibank import apis_finance, apis_health, apis_home, apis_info
from core.benchmarks.apibank.common import ApiDef, ApiError, Record

REGISTRY: dict[str, ApiDef] = {
    api.name: api for mod in (apis_finance, apis_health, apis_info, apis_home) for api in mod.APIS
}

# Databases the in-scope APIs may change; the others are shared read-only.
MUTABLE_DBS = frozenset({"Account", "Bank", "HealthData", "Appointments", "Scenes", "TimeSwitch"})


class CallLayerError(Exception):
    """Raised before the API runs (unknown name, bad parameter, missing argument); no record."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind  # INVALID_TOOL_NAME, INVALID_INPUT_PARAMETER or MISS_INPUT_ARGUMENT


@lru_cache(maxsize=64)
def _load_db(path: str) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


_DERIVED: dict[tuple[str, str], Any] = {}


class Session:
    """One fresh tool manager over the init databases in `db_dir`."""

    def __init__(self, db_dir: Path, seed: int = 0, *, upstream_types: bool = False) -> None:
        self.db_dir = Path(db_dir)
        self.upstream_types = upstream_types  # reproduce B1/B3 conversion exactly
        self.state: dict[str, Any] = {}
        self.rng = random.Random(seed)
        self._dbs: dict[str, Any] = {}

    # ------------------------------------------------------------------ databases
    def db(self, name: str) -> Any:
        """The session's object for a database (a private copy when APIs may change it)."""
        if name not in self._dbs:
            data = _load_db(str(self.db_dir / f"{name}.json"))
            self._dbs[name] = copy.deepcopy(data) if name in MUTABLE_DBS else data
        return self._dbs[name]

    def shared(self, name: str, build: Callable[[Any], Any]) -> Any:
        """A read-only index built once per process from a read-only database."""
        key = (str(self.db_dir / f"{name}.json"), build.__qualname__)
        if key not in _DERIVED:
            _DERIVED[key] = build(self.db(name))
        return _DERIVED[key]

    def user_of_token(self, token: Any) -> str | None:
        """CheckToken's lookup: the user whose token equals `token` exactly (no trimming)."""
        for user, info in self.db("Account").items():
            if info.get("token") == token:
                return user
        return None

    # ------------------------------------------------------------------ call layer
    def call(self, api_name: str, args: Mapping[str, Any]) -> Record:
        """Run one call through the call layer and return its response record."""
        api = REGISTRY.get(api_name)
        if api is None:
            raise CallLayerError("invalid tool name.", "INVALID_TOOL_NAME")
        converted: dict[str, Any] = {}
        for name, value in args.items():
            spec = api.param(name)
            if spec is None:
                raise CallLayerError(f"invalid parameter name. parameter: {name}", "INVALID_INPUT_PARAMETER")
            # a private copy: some APIs normalise their arguments in place (AddScene)
            converted[name] = convert(spec.type, copy.deepcopy(value), upstream=self.upstream_types)
        missing = [p for p in api.required if p not in converted]
        if missing:
            raise CallLayerError(_missing_message(api.name, missing), "MISS_INPUT_ARGUMENT")
        record: Record = {"api_name": api.name} if api.has_api_name else {}
        echoed = dict(converted)
        for name in api.echo_missing:
            echoed.setdefault(name, None)
        record["input"] = echoed
        try:
            record["output"] = api.run(self, converted)
            record["exception"] = None
        except ApiError as exc:
            record["output"], record["exception"] = None, str(exc)
        except Exception as exc:  # noqa: BLE001 - upstream reports any API failure in the record
            record["output"], record["exception"] = None, _python_message(exc)
        return record


def _python_message(exc: Exception) -> str:
    """The text upstream's `str(e)` gives, e.g. `'value'` for a missing key."""
    return str(exc)


def _missing_message(api: str, missing: list[str]) -> str:
    """Python 3.10+ wording of a call missing required positional arguments."""
    quoted = [f"'{m}'" for m in missing]
    if len(quoted) == 1:
        names = quoted[0]
    elif len(quoted) == 2:
        names = f"{quoted[0]} and {quoted[1]}"
    else:
        names = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    plural = "argument" if len(missing) == 1 else "arguments"
    return f"{api}.call() missing {len(missing)} required positional {plural}: {names}"


def parse_list_text(value: str) -> Any:
    """A list/dict written as text: Python literal first, then JSON; unchanged if neither."""
    try:
        return ast.literal_eval(value.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    try:
        return json.loads(value)
    except ValueError:
        return value


def convert(declared: str, value: Any, *, upstream: bool = False) -> Any:
    """Convert one argument by its declared type (SPEC 1.4 with the 4.5 repairs).

    `upstream=True` reproduces the upstream layer exactly: list texts stay text
    (B1), only the text `True` is true (B3), other values pass unchanged.
    """
    if declared == "int":
        if isinstance(value, str):
            if not value.isdigit():
                raise CallLayerError(f"invalid parameter type. parameter: {value}", "INVALID_INPUT_PARAMETER")
            return int(value)
        return value
    if declared == "float":
        if isinstance(value, str):
            if not value.replace(".", "", 1).isdigit():
                raise CallLayerError("invalid parameter type.", "INVALID_INPUT_PARAMETER")
            return float(value)
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if declared == "bool":
        return value == "True" if upstream else (value is True or value == "True")
    if upstream:
        return value
    if declared in ("list", "list(str)", "dict"):
        return parse_list_text(value) if isinstance(value, str) else value
    # str
    if isinstance(value, bool | int | float):
        return str(value)
    return value

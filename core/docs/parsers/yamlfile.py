"""YAML documentation files (OpenAPI specs are mostly published as YAML).

Read with `yaml.safe_load`, which builds plain data and never constructs
objects or runs code. YAML's own types that JSON lacks (dates, timestamps) are
turned into their text, so what comes out is exactly what a JSON file could
hold and every schema keyword renders back as JSON.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import yaml

from core.docs.parsers.errors import Where

YAML_SUFFIXES = (".yaml", ".yml")


def load_yaml(text: str, name: str) -> Any:
    """The data of a YAML document; a syntax error names the file and its line."""
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise Where(file=name, line=line).error(f"invalid YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise Where(file=name).error(f"invalid YAML: {exc}") from None
    return json.loads(json.dumps(data, default=_as_text))


def _as_text(value: Any) -> str:
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    return str(value)

"""Shared fixtures: a temporary warehouse and the benchmark data directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def llm_gateway():
    """Every test calls models through its own gateway: empty cache and ledger, default settings."""
    from core.llm import Gateway, use

    gateway = Gateway()
    previous = use(gateway)
    yield gateway
    use(previous)


@pytest.fixture
def warehouse(tmp_path: Path):
    from core.warehouse import Warehouse

    return Warehouse(tmp_path / "wh.duckdb")


@pytest.fixture(scope="session")
def data_dir() -> Path:
    from core.config import DataDirError, data_dir

    try:
        return data_dir()
    except DataDirError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"benchmark data not available: {exc}")

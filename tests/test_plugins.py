"""$DOCSCHISEL_PLUGINS: modules every command imports first, e.g. the sample's benchmark and model by name."""

from __future__ import annotations

import click
import pytest

from core.benchmarks.registry import get_benchmark
from core.cli.main import PLUGINS_ENV, load_plugins
from core.llm.scripted import SCRIPTED


def test_the_sample_plugin_names_its_benchmark_and_model() -> None:
    assert load_plugins({PLUGINS_ENV: " core.sample.plugin, "}) == ["core.sample.plugin"]
    bench = get_benchmark("sample-shop")
    assert bench.key == "sample-shop/v1" and len(bench.tasks()) > 10
    assert get_benchmark("sample-shop").source.name == "sample-shop"  # a recipe other processes can load
    assert {"sample-doc-reader", "sample-baseline-writer"} <= set(SCRIPTED.scripts)


def test_a_plugin_that_cannot_be_imported_is_one_clear_error() -> None:
    assert load_plugins({}) == []
    with pytest.raises(click.ClickException, match="DOCSCHISEL_PLUGINS names 'no_such_plugin'"):
        load_plugins({PLUGINS_ENV: "no_such_plugin"})

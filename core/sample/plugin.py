"""The sample as a plugin: `DOCSCHISEL_PLUGINS=core.sample.plugin` makes every `docschisel` command know
the benchmark `sample-shop` and the sample's scripted models by name.

Why: the dashboard starts evaluations as separate processes (core/jobs.py),
where neither the sample benchmark nor an in-process scripted model exists. With
this plugin a re-evaluation started from the page on a sample warehouse runs the
real `docschisel eval` on the same benchmark with the same doc-reading model.
"""

from __future__ import annotations

from core.benchmarks.registry import register_benchmark
from core.llm import script
from core.sample.bench import SampleShop
from core.sample.build import READER, WRITER
from core.sample.model import baseline_replies, doc_reader


def _sample_shop(data_dir: object = None, **options: object) -> SampleShop:
    return SampleShop(**options)  # type: ignore[arg-type]


register_benchmark(SampleShop.name, _sample_shop)
script(doc_reader, name=READER)
script(baseline_replies, name=WRITER)

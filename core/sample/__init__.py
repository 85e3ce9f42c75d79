"""A sample warehouse made by the real producers, for the dashboard's tests, demos and benchmarks.

`build_sample(path)` runs the real runner, optimizer, field study, comparison,
review actions and a background job on `SampleShop` (a two-domain benchmark of
five tools whose deficient docs a doc-reading scripted model stumbles over),
so every row has exactly the shape production writes. `seeded_copy(dest)`
builds it once per process and copies it.
"""

from core.sample.bench import SampleShop
from core.sample.build import build_sample, seeded_copy
from core.sample.model import baseline_replies, doc_reader, fake_embedder

__all__ = ["SampleShop", "baseline_replies", "build_sample", "doc_reader", "fake_embedder", "seeded_copy"]

"""Production traces in and out: OpenInference / OTLP JSON, Phoenix span exports, Langfuse exports.

from core.traces import import_traces, export_openinference
import_traces(warehouse, "spans.json")        # every trace an immutable episode (source: its format)
export_openinference(warehouse, run_id)        # OTLP JSON, OpenInference conventions
"""

from core.traces.episodes import ImportedCall, ImportedTrace, group_traces
from core.traces.export import export_openinference
from core.traces.importer import import_traces
from core.traces.spans import FORMATS, Span, TraceFileError, read_spans

__all__ = [
    "FORMATS",
    "ImportedCall",
    "ImportedTrace",
    "Span",
    "TraceFileError",
    "export_openinference",
    "group_traces",
    "import_traces",
    "read_spans",
]

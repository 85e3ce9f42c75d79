"""Documentation-optimisation baselines: EasyTool and DRAFT over the LLM gateway, and GEPA (the gepa package)."""

from core.baselines.bleu import sentence_bleu
from core.baselines.draft import DraftConfig, convergence, draft_tool, run_draft, should_stop, too_similar
from core.baselines.easytool import BaselineResult, EasyToolConfig, easytool_toolkit, run_easytool
from core.baselines.gepa_run import GepaConfig, generate_gepa, run_gepa
from core.baselines.service import BaselineRun, generate_baseline, load_docset

__all__ = [
    "BaselineResult",
    "BaselineRun",
    "DraftConfig",
    "EasyToolConfig",
    "GepaConfig",
    "convergence",
    "draft_tool",
    "easytool_toolkit",
    "generate_baseline",
    "generate_gepa",
    "load_docset",
    "run_draft",
    "run_easytool",
    "run_gepa",
    "sentence_bleu",
    "should_stop",
    "too_similar",
]

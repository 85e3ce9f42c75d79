"""Tool-REX: query-agnostic, grounded expansion of tool docs, its judge, and its retrieval ablation.

    from core.expansion import expand_tool, apply_profile, ToolProfile
    exp = expand_tool(doc, model="local/smollm2-135m", judge_model="local/smollm2-135m")
    exp.profile, exp.expanded, [v for a in exp.attempts for v in a.verdicts if not v.accepted]

Warehouse-level entry points: `core.expansion.run.run_expansion` (the `expand`
command) and `core.expansion.experiment.retrieval_eval` (`retrieval eval`).
"""

from core.expansion.expand import Attempt, ExpansionResult, ToolExpansion, expand_docset, expand_tool
from core.expansion.judge import FieldVerdict, rule_check
from core.expansion.profile import FIELD_MAP, PROFILE_FIELDS, ToolProfile, apply_profile

__all__ = [
    "FIELD_MAP",
    "PROFILE_FIELDS",
    "Attempt",
    "ExpansionResult",
    "FieldVerdict",
    "ToolExpansion",
    "ToolProfile",
    "apply_profile",
    "expand_docset",
    "expand_tool",
    "rule_check",
]

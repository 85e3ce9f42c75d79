"""The experiments behind docs/RESULTS.md, with the sizes they were run at, as `docschisel` commands.

    python bench/experiments.py --list                 # the steps and their commands
    python bench/experiments.py retrieval compare-api-bank   # run some steps (each resumable)
    python bench/experiments.py all                    # everything, then `make results`

Every step is a sequence of `docschisel` commands writing one warehouse file
under data/; every command is resumable (episodes, baseline runs, optimizer
tools and expansions are content-hashed), so re-running a step after a crash
or Ctrl-C finishes only what is missing. Steps can run side by side in two
shells (one core each: the local model runs one llama.cpp thread per process).

Sizes are planned for this 2-core machine: per step, the planned episode
count and the expected hours (one local-model process per core, one llama.cpp
thread each; measured seconds per episode from the backbone table in
docs/RESULTS.md: SmolLM2 ~3 s, Qwen 0.5B ~7 s, Qwen 1.5B ~12 s per API-Bank
episode; WorkBench episodes take up to four calls). API-Bank is evaluated as
upstream does, on the first API call of each dialogue, hence `--max-steps 1`
there; WorkBench tasks need a lookup before the action, hence `--max-steps 4`.
Steps without a model name use the project default (Qwen2.5-Coder-0.5B as the
target agent, 1.5B as the optimizer model).

Warehouses under data/ are not versioned. After every command, a step keeps its
warehouse's runs and episode outcomes (no traces) in docs/results/runs/<name>/
(`docschisel warehouse archive`), and before it starts, restores them into a
missing or older warehouse, so a step resumes in a fresh checkout where the last
session stopped (commit the folder). `--archive` / `--restore` do just that for
every experiment warehouse.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS_ARCHIVE = ROOT / "docs" / "results" / "runs"

API_BANK_DOMAINS = "finance,health,information,smart_home"
Q05, Q15, SMOL = "local/qwen2.5-coder-0.5b", "local/qwen2.5-coder-1.5b", "local/smollm2-135m"


def _study(model: str, cell: str, limit: int, repeats: int) -> str:
    steps = 1 if cell.startswith("api-bank") else 4
    return (
        f"python bench/field_study.py --agent react --model {model} --cells {cell} --max-steps {steps} "
        f"--limit {limit} --repeats {repeats} --warehouse data/study-backbones.duckdb"
    )


API_BANK_GROUPS = ("health", "finance,information")


# The split the stored runs were made on: every stage before the grouped one ran on the task-level split
# (`core.benchmarks.splits`); `--split-grouping task` keeps those stages resuming the same comparisons.
LEGACY_SPLIT = " --split-grouping task"


def _compare(domains: str, methods: str, optimizers: str, opt_runs: int, grouping: str = "task") -> str:
    """One API-Bank comparison stage of a domain group (see the compare-api-bank steps)."""
    extra = "" if "curve" in optimizers else " --curve-eval-runs 0 --no-memory-ablation"
    return (
        f"compare --benchmark api-bank --domain {domains} --methods {methods} {optimizers} --opt-runs {opt_runs} "
        f"--eval-runs 3 --limit 0 --max-steps 1{extra} --split-grouping {grouping}"
    )


SOP_DOMAINS = "email,calendar"


# the acceptance experiment's domains: the multi-step ones
SOP_ABLATION_DOMAINS = "email,calendar,multi_domain"


def _sop(sub: str, extra: str, domains: str = SOP_DOMAINS) -> str:
    """An EvoSOP command on WorkBench (look-up-then-act routines), Qwen 0.5B ReAct agent."""
    return (
        f"sop {sub} --benchmark workbench --domain {domains} --agent react --max-steps 4 --temperature 0.7 "
        f"--constructor composer --reviewer evidence {extra}{LEGACY_SPLIT}"
    )


# step -> (planned episodes, expected hours on 2 cores, commands)
# stage 5's command; stages 9, 10, 12, 13 and 15 run it again under later DocsChisel revisions (the comparison id
# is the same)
HEALTH_MISUSE = _compare(
    "health", "og,dc", "--optimizer-model evidence --max-traces 3 --misuse-tasks 4", 3, grouping="gold"
)
# the same settings on API-Bank's other two domains (their test tasks are disjoint from health's)
FININFO_MISUSE = _compare(
    "finance,information",
    "og,dc",
    "--optimizer-model evidence --max-traces 3 --misuse-tasks 4",
    3,
    grouping="gold",
)

# the comparisons behind the "newest revision across target agents" table, in the order a new DocsChisel
# revision re-runs them: text-mode finance + information, health for the 0.5B text, 0.5B native and 1.5B
# native agents, finance + information native
AGENTS_TABLE = [
    FININFO_MISUSE + " --doc-mode text",
    HEALTH_MISUSE + " --doc-mode text",
    HEALTH_MISUSE,
    _compare(
        "health",
        "og,dc",
        f"--optimizer-model evidence --max-traces 3 --misuse-tasks 4 --model {Q15}",
        3,
        grouping="gold",
    ),
    FININFO_MISUSE,
]


# the original docs evaluated on as many samples per task as DC's 3 optimization x 3 evaluation runs
OG_MATCHED = " --og-eval-runs 9"


def _with_gepa(command: str) -> str:
    """An OG-and-DC comparison command with GEPA added: the same OG and DC runs (content-hashed, so
    reused), GEPA's runs and evaluation new."""
    if " --methods og,dc " not in command:
        raise ValueError(f"not an OG-and-DC comparison: {command}")
    return command.replace(" --methods og,dc ", " --methods og,dc,gepa ", 1)


PLAN: dict[str, tuple[int, float, list[str]]] = {
    # speed and memory of every installed local model on a quiet machine (1 and 2 threads; ~35 min,
    # nothing else running), then API-Bank level-1 accuracy (195 samples each) beside other work: measured
    # with one other model process running, Qwen 0.5B took 47 min, SmolLM2 18 min, Qwen 1.5B ~2.5 h
    "backbones": (
        585,
        3.8,
        [
            "python bench/local_model.py --no-apibank --style-probe 0 --also-threads 2 "
            "--warehouse data/bench-local.duckdb",
            "python bench/local_model.py --no-speed --style-probe 0 --warehouse data/bench-local.duckdb",
        ],
    ),
    # the original-docs baseline table: every domain, both paradigms, the default backbone
    # (API-Bank: the whole test split, 78 tasks; WorkBench: 20 tasks per domain). Measured with two
    # processes sharing the sweep (`--shard 0/2` and `--shard 1/2`, one per core): WorkBench ReAct
    # 6-51 s and multi-agent 25-94 s per episode (analytics the slowest: its observations are long),
    # ~4.5 h of one core for the 12 WorkBench jobs; API-Bank ~1 h.
    "baseline": (
        396,
        5.5,
        ["python bench/baseline_local.py --limit-workbench 20 --warehouse data/baseline.duckdb"],
    ),
    # field impact by backbone (Fig. 1's backbone panel): ReAct, 12 test tasks x 3 repeats per cell,
    # 17 doc sets (original + one variant per applicable field) -> 612 episodes per cell. Measured on
    # this 2-core machine, two one-thread processes side by side, with the state cache holding the
    # earlier repeat's prompts: API-Bank finance SmolLM2 2,317 s and Qwen 0.5B 2,438 s (with a test
    # run beside them part of the time), Qwen 1.5B ~120 s per doc set (~1.7 h); WorkBench analytics (up
    # to 4 calls per episode) SmolLM2 ~250 s per doc set (~3.5 h), Qwen 0.5B ~330-480 s per doc set
    # (~5-6 h; the upper end with a test run or a page benchmark beside the two processes). Episode ids cover the docs' rendering and per-task seeding, so every cell
    # measured before those changed runs again once. Cells resume across sessions (and machines) from
    # docs/results/runs/study-backbones/.
    "study-backbones": (
        3060,
        12.0,
        [
            _study(Q05, "api-bank:finance", 12, 3),
            _study(SMOL, "api-bank:finance", 12, 3),
            _study(Q15, "api-bank:finance", 12, 3),
            _study(SMOL, "workbench:analytics", 12, 3),
            _study(Q05, "workbench:analytics", 12, 3),
        ],
    ),
    # Tool-REX expansion (rules-only judge, then the local LLM judge) and retrieval with the ablation
    "retrieval": (
        0,
        1.0,
        [
            "expand --benchmark api-bank --judge-model none -q",
            "expand --benchmark workbench --judge-model none -q",
            "retrieval eval --benchmark api-bank,workbench --docs original",
            "retrieval eval --benchmark api-bank,workbench --docs expanded --ablation",
            f"expand --benchmark api-bank --judge-model {Q15} -q",
            f"expand --benchmark workbench --judge-model {Q15} -q",
            "retrieval eval --benchmark api-bank,workbench --docs expanded --ablation",
        ],
    ),
    # OG / EasyTool / DRAFT / GEPA / DocsChisel (evidence engine, and the LLM engine with Qwen 1.5B) on
    # API-Bank level-1, ReAct with Qwen 0.5B at T = 0.7, every tool whose profiled TS⁰ (3 samples per
    # opt/val task) lies in the headroom band (or below it with call-level partial credit in it), the
    # test tasks of those tools; one comparison per domain group (one process each, one per core), pooled
    # into one paired test in the results. Measured costs on 2 cores with two processes: ~12 s per
    # episode, ~1-2 min per Qwen 1.5B call. Stages reuse everything the earlier ones stored.
    #  Re-running a stage after DocsChisel's algorithm revision changed re-optimizes only DC (OG and ET
    #  episodes are reused) and is reported as a comparison of its own; a new local runtime (llama.cpp
    #  build, grammar revision) re-runs everything.
    #  1: OG, EasyTool, DC-evidence; 1 optimization x 3 evaluation runs. Profile (279 + 60 episodes),
    #     DC ~5 tools x <= 5 iterations x (4 val + ~7 opt) x 3 samples, evaluations 3 x (~30 tasks) x 3,
    #     and the regression guard: per group <= 12 test tasks of the tools left out x 3 methods x 3 runs
    #     (~220 episodes; API-Bank has no task whose right outcome is no call, so no validation guard).
    "compare-api-bank-1": (
        2620,
        4.4,
        [_compare(d, "og,et,dc", "--optimizer-model evidence", 1) for d in API_BANK_GROUPS],
    ),
    #  1b: the same with 3 independent optimization runs (seeds differ for the agent's sampling and the
    #     example choices): ~3 x the DC and ET optimization episodes of stage 1 plus 3 x 3 evaluations;
    #     resumable per episode. finance + information took ~130 new episodes on top of stage 1's.
    "compare-api-bank-1b": (
        6000,
        10.0,
        [_compare(d, "og,et,dc", "--optimizer-model evidence", 3) for d in API_BANK_GROUPS],
    ),
    #  the LLM engine (the paper's method) offline, on one tool before stage 2 spends hours on it:
    #  Qwen 1.5B diagnoses, plans and writes for CancelRegistration, 1 iteration, <= 2 traces. Measured:
    #  6.7 min (6 optimizer calls, 3,892 tokens in / 397 out, ~190 s of them; 48 agent episodes), the
    #  acceptance rule passed (val TS 0.33 -> 0.67 on 1 val task x 3 samples, opt 0.67 -> 0.86), and the
    #  edit it wrote is one sentence of task domain ("The task domain is healthcare.") - a noisy accept
    #  of a near-empty change, which is what Table IV's 1.5B row will measure at scale.
    "dcllm-smoke": (
        50,
        0.15,
        [
            "optimize --benchmark api-bank --domain health --tools CancelRegistration --engine llm "
            f"--optimizer-model {Q15} --iterations 1 --max-traces 2 --repeats 3 --temperature 0.7 --max-steps 1 -j 1"
            + LEGACY_SPLIT
        ],
    ),
    #  2: + GEPA (budget: the episodes the DC-evidence run spent) and DC-LLM with Qwen 1.5B and with
    #     Qwen 0.5B as the optimizer model (<= 3 traces diagnosed per iteration: ~8 model calls per
    #     iteration): Table IV's three optimizers (evidence engine, 0.5B, 1.5B) for the same target agent.
    #     The 0.5B optimizer's DC run adds ~600 episodes (its optimization and 3 evaluations), ~1.5 h.
    #     Measured on finance + information (5 information tools in band), LLM engine v1: with Qwen 1.5B
    #     as optimizer, 33.1 min, 1 of 5 tools changed; 19 of its 25 iterations rebuilt the original doc
    #     (the model wrote edits of unplanned fields - Add IPD for a planned Add UE, Refine TD for Add TD -
    #     which were dropped, and at T = 0 repeated them every iteration). With Qwen 0.5B, 0.9 min: it
    #     judged all 13 diagnosed failures not documentation-related, so no candidate was generated.
    #     LLM engine v2 sends a reply that leaves a planned field empty back with the error, takes a
    #     swapped verb, and asks again when a candidate repeats one already measured; its runs get new ids
    #     (`llm_engine` in the run key), so re-running this step measures it beside v1. A first check,
    #     ImageCaption alone (`optimize ... --tools ImageCaption --engine llm --optimizer-model Q15
    #     --iterations 2 --pool-domain-val`, 2.3 min): v2's first reply adds a usage example, where v1
    #     rebuilt the original in 5 of 5 iterations; val TS 0.33 -> 0.44 on 3 tasks x 3 samples (noise).
    #     Re-run with v2 (Qwen 1.5B, 33.9 min, 3 of 5 tools changed): TS 63.6 % (= OG), TC 66.7 %
    #     (OG 63.6), 31,405 optimizer tokens and 6.8 min per tool. Every first-iteration plan was "Add TD"
    #     (the taxonomy's first code, reason "...") whatever fields the diagnosis implicated (IPD, UE), so
    #     the edits were a sentence of task domain. v3 lets a plan name only the implicated fields (in the
    #     JSON schema the local model decodes under) and sends a placeholder reason back; stage 3a runs it.
    "compare-api-bank-2": (
        3200,
        7.5,
        [
            _compare(
                d,
                "og,et,dc,gepa",
                f"--optimizer-model evidence --optimizer-model {Q15} --optimizer-model {Q05} --max-traces 3",
                1,
            )
            for d in API_BANK_GROUPS
        ],
    ),
    #  3a: DRAFT, the iteration curve to 5 and the memory ablation at stage 2's depth (1 optimization x
    #     3 evaluation runs), every method beside them on the same test tasks: stage 2's doc sets and
    #     episodes are reused, so what is new is DRAFT (Qwen 1.5B: <= 5 explore / analyze / rewrite
    #     rounds per tool, ~15 calls at ~1 min beside another process, ~75 min for 5 tools) and its
    #     3 evaluations, the curve (6 budgets x 2 series x the test tasks, once each) and one optimize run
    #     without memory. finance + information first (11 test tasks, 5 optimized information tools:
    #     ~70 DRAFT + ~130 curve + ~100 no-memory episodes, ~2 h); health also needs its stage 2 (GEPA and
    #     the two DC-LLM runs, 25 test tasks: ~300 curve episodes), ~5 h.
    #  Measured, finance + information (comparison 7aaab4b9d15df67c, 204 new episodes, 411 reused; DRAFT
    #  took 40 Qwen 1.5B calls, 1.2 min per tool: its convergence test stopped each tool after 2-3 rounds):
    #  TS OG 63.6, ET 57.6, DRT 78.8, DC-evidence 75.8, GEPA 66.7, DC-LLM v3 Qwen 1.5B 57.6 (3 of 5
    #  tools changed: an example copying one task's formula '5*10', and QueryHistoryToday's date format
    #  rewritten from %m-%d to YYYY-MM-DD, which the tool does not take - v4 sends both back), Qwen 0.5B
    #  63.6 (nothing judged documentation-related). Curve (1 sample of 11 tasks per budget): 72.7, 72.7,
    #  54.5, 63.6, 81.8, 63.6 for k = 0..5; without memory the same but k = 4 (63.6).
    #  Re-run with LLM engine v4 (22.9 min, 3 of 5 tools changed): TS 54.5 (54.5, 45.5, 63.6). Qwen 1.5B's
    #  generation replies failed validation three times in 5 of its first iterations (IPD naming another
    #  tool's parameter - 'formula' for DocumentQA -, an example copying '(5+3)*6', a date stated as
    #  YYYY-MM-DD for values like '12-10'), so the evidence engine wrote those contents.
    #  Measured, health (comparison 6cb3d7932a3e4f9e, 25 test tasks; GEPA 103 min for its 972-episode
    #  budget, DC-LLM v4 Qwen 1.5B 52.8 min): TS OG 45.3, ET 26.7, DRT 41.3, DC-evidence 46.7, GEPA 60.0,
    #  DC-LLM Qwen 1.5B 44.0, Qwen 0.5B 45.3 (nothing changed). Curve k = 0..5: 48, 44, 52, 44, 44, 44;
    #  without memory 48, 44, 52, 64, 56, 56. 9 of the 25 test tasks (7 of 11 in finance + information)
    #  ask for the very call an optimization or validation task asks for: API-Bank repeats a request across
    #  dialogues. GEPA's reflection sees each optimization task's expected calls and pasted them into the
    #  docs (AppointmentRegistration's description became a ModifyRegistration call with the values of
    #  ModifyRegistration-level-1-4, whose copy ModifyRegistration-level-1-3 is a test task): GEPA solves
    #  100 % of those 9 tasks (OG 55.6) and 37.5 % of the other 16 (OG 39.6). Pooled over both groups,
    #  on the 20 test tasks that repeat no optimization call, no method beats OG (DC-evidence +0.0, GEPA
    #  -1.7, DRAFT -5.0 pp); every gain is on the 16 repeated ones. The next measurement needs a split that
    #  keeps tasks asking for the same call on one side.
    "compare-api-bank-3a": (
        1400,
        7.0,
        [
            _compare(
                d,
                "og,et,drt,dc,gepa",
                f"--optimizer-model evidence --optimizer-model {Q15} --optimizer-model {Q05} --max-traces 3 "
                "--curve-eval-runs 1",
                1,
            )
            for d in reversed(API_BANK_GROUPS)
        ],
    ),
    #  3: the paper's 3 optimization runs, DRAFT, the iteration curve and the memory ablation.
    #     Stage 3a's seed-0 runs and the 3 x 3 evidence comparisons' DC runs are reused; new are seeds 1
    #     and 2 of DRAFT, DC-LLM (Qwen 1.5B), GEPA and the no-memory run, their evaluations, the guard
    #     and the curves. finance + information first (~2 x (6 + 23 + 55 + 12) min of optimization and
    #     ~700 episodes at ~15 s: ~6.5 h), then health (GEPA's budget is 972 episodes per run there,
    #     ~3.5 h each; DC-LLM ~53 min per run; 25 test tasks: ~14 h).
    "compare-api-bank-3": (
        9000,
        20.5,
        [
            _compare(
                d,
                "og,et,drt,dc,gepa",
                f"--optimizer-model evidence --optimizer-model {Q15} --max-traces 3 --curve-eval-runs 1",
                3,
            )
            for d in reversed(API_BANK_GROUPS)
        ],
    ),
    #  3 is paused after DRAFT seeds 1-2 and DC-LLM v4 seeds 1-2 of finance + information: it measures on
    #  the task-level split, where 16 of the 36 test tasks repeat an optimization request; stage 4 measures
    #  on the grouped split first.
    #  4: every method again on the grouped split (`--split-grouping gold`: tasks that share a gold call
    #     stay in one part, so no test task repeats a request any method optimized on). On that split only
    #     health keeps tools in the headroom band with test tasks: the profile (3 samples at T = 0.7) puts
    #     finance's tools at 0 (GetUserToken) or ~1 (OpenBankAccount, QueryBalance, QueryStock), and
    #     information's three band tools hold 2 test tasks (a finance + information comparison, 95be2edfcf57642a,
    #     was stopped after its profile for that reason); smart_home has 8 tasks in all. Health: 5 tools,
    #     29 opt + 6 val tasks, 27 test tasks. Three commands: OG, DC-evidence and GEPA at 1 x 3 (the
    #     comparison that tests the copying explanation: ~200 profile episodes, DC ~30 min, GEPA its paired
    #     budget ~900 episodes at ~6 s, evaluations 3 x 3 x 27; ~3.5 h); OG and DC-evidence at 3 x 3 (two
    #     more independent DC runs and their evaluations, ~1.5 h; started once the first command's DC run
    #     is stored, as two processes must not run one optimization at once); then every method (EasyTool,
    #     DRAFT, DC-LLM with Qwen 1.5B and LLM engine v5, the curve and the memory ablation: ~4 h),
    #     reusing every doc set and episode of the first two; and GEPA at 3 x 3 (its runs 1 and 2, each
    #     with the budget of the DocsChisel run of the same seed: ~1.2 h each, and their evaluations).
    #  Measured (comparisons bc59c5ed04a43bda, 1 x 3, and e1ccdd31a03bb58b, 3 x 3; 27 test tasks, none
    #  repeating an optimization or validation request): TS OG 48.1, DC-evidence 61.7 (run 0) and 64.2
    #  (3 x 3: +16.0 pp [+4.1, +29.2], McNemar p 0.031, Mann-Whitney Holm p 0.015), GEPA 72.8 (run 0; its
    #  budget 579 episodes, 13.3 min per tool). DC-evidence's runs took 26-34 min.
    #  Command 2 (253fd7cc9f2c4a06, 1 x 3): OG 48.1, EasyTool 32.1, DRAFT 53.1, DC-evidence 61.7, DC-LLM
    #  (Qwen 1.5B, engine v5) 64.2 (45,238 optimizer tokens and 9.8 min per tool), GEPA 72.8; the curve
    #  (memory) peaks at k = 1 (66.7) and ends at 59.3, the no-memory run's at 59.3 (k = 3, 4) and 55.6.
    #  Command 3 (OG, DC-evidence, GEPA at 3 x 3) was not finished when DocsChisel 9 came: its DC runs are
    #  DocsChisel 9 runs (~35 min each), and each GEPA run gets the budget of the DC 9 run of its seed
    #  (~1.2 h each), so its DC and GEPA are compared on the same footing; ~6 h on one core, resumable.
    #  Measured (28f1e63acc6f2167, 3 x 3; 468 episodes run, 351 reused): TS OG 48.1, DC-evidence 9 64.6
    #  (+16.5 pp [+3.3, +30.0], McNemar p 0.016, Mann-Whitney Holm p 0.029, MDE 19.5), GEPA 60.1 (its
    #  runs 72.8, 46.9 and 60.5: run 1's reflection rewrote AppointmentRegistration to also "cancel an
    #  appointment" and "modify existing appointments"); DC - GEPA +4.5 pp [-3.3, +13.2], McNemar p 0.38.
    "compare-api-bank-4": (
        3000,
        8.0,
        [
            _compare("health", "og,dc,gepa", "--optimizer-model evidence --max-traces 3", 1, grouping="gold"),
            _compare("health", "og,dc", "--optimizer-model evidence --max-traces 3", 3, grouping="gold"),
            _compare(
                "health",
                "og,et,drt,dc,gepa",
                f"--optimizer-model evidence --optimizer-model {Q15} --max-traces 3 --curve-eval-runs 1",
                1,
                grouping="gold",
            ),
            _compare("health", "og,dc,gepa", "--optimizer-model evidence --max-traces 3", 3, grouping="gold"),
        ],
    ),
    #  5: DC-evidence with misuse tasks (`--misuse-tasks 4`), OG and DC at 3 x 3 on stage 4's split and
    #     test tasks. Stage 4's never-solved tasks are mostly ModifyRegistration requests ("change my
    #     appointment date and doctor") answered with AppointmentRegistration (30 of the failed episodes),
    #     and DC's ModifyRegistration docs did not move them: the doc the agent followed was
    #     AppointmentRegistration's. The profile (reused: no new episode) gives AppointmentRegistration 3
    #     opt tasks where it was called in CancelRegistration's or ModifyRegistration's place, and 1 val
    #     task of those tools; each candidate of it is judged on them too (~+12 episodes per iteration).
    #     DocsChisel 9 (dates in words are stated values, requested values no enumeration, quoted
    #     requests ask). Plan: 3 DC runs of ~35 min
    #     (~600 episodes each at ~3.5 s) and 3 x 27 x 3 = 243 test episodes (OG's reused): ~2.2 h on one
    #     core, resumable. Paired against stage 4's OG and DC-evidence on the same 27 test tasks.
    #  Measured (83f882a6e8dba9e2; runs of 10.6, 33.4 and ~35 min, 351 episodes run, 117 reused): TS OG
    #  48.1, DC 64.2 (+16.0 pp [+4.1, +30.0], McNemar p 0.031, Mann-Whitney p 0.016, MDE 18.9), TC 68.3;
    #  against stage 4's DC-evidence on the same tasks 0.0 pp [-6.2, +6.2]. Every candidate that carried
    #  the misuse sentence fixed the misuse tasks (5/9 -> 9/9 and 2/6 -> 6/6 episodes) and lost 3 of
    #  AppointmentRegistration's own opt tasks (the agent called RecordHealthData or SymptomSearch there),
    #  so none was accepted; a pilot on run 1's first iteration with two other wordings ("Requests like
    #  ... are for X", "X, not this tool, is the one that ...") and without the RT sentence lost the same
    #  3 tasks. The never-solved ModifyRegistration tasks stay at 0.
    "compare-api-bank-5": (
        2100,
        2.2,
        [HEALTH_MISUSE],
    ),
    # Attribution of stage 4's and stage 5's results to each changed doc (`docschisel study attribute`):
    # each changed doc alone on the original docs ("only T") and, for GEPA, the doc set without it
    # ("without T"), on the comparison's 27 test tasks and 3 evaluation runs; OG's and the target's
    # episodes are the comparison's own. GEPA run 0 of 253fd7cc9f2c4a06 changed 3 docs: 6 variants x 81 =
    # 486 episodes; DC-evidence run 0 of 83f882a6e8dba9e2 changed 4: 4 x 81 = 324. ~2.5 s per episode on
    # one core (one doc set per run keeps the prompt prefix cached): ~35 min in all. Why: GEPA's lead sits on
    # ModifyRegistration tasks although GEPA changed neither registration doc; a pilot on the 14
    # ModifyRegistration tasks of all split parts (3 samples each) gave OG 45 %, GEPA's doc set 74 %, its
    # CancelRegistration doc alone 79 %, its QueryHealthData doc alone 40 % and its RecordHealthData
    # parameter description alone 26 %.
    "attribute-api-bank": (
        810,
        0.6,
        [
            "study attribute --compare 253fd7cc9f2c4a06 --method gepa",
            "study attribute --compare 83f882a6e8dba9e2 --method dc --no-leave-one-out",
        ],
    ),
    #  6: DC-evidence with cross-tool validation (`--cross-val-tasks 8`): each tool's candidates are also
    #     judged on 8 of the other health tools' optimization tasks (round-robin, seeded), so a doc that
    #     moves the agent on other tools' requests is seen, and acceptance rests on ~12 more tasks than
    #     the 4 pooled + 4 no-call validation tasks. Paired against stage 4 command 3 (OG, DC 9 and GEPA
    #     at 3 x 3, the same settings without it) on the same 27 test tasks. Plan: per run ~20 candidates x
    #     (~16 val + ~6 opt tasks) x 3 samples ~1,300 episodes at ~3 s (~65 min), 3 runs, plus 3 x 81 test
    #     episodes: ~3.5 h on one core, resumable.
    "compare-api-bank-6": (
        4200,
        3.5,
        [
            _compare(
                "health",
                "og,dc",
                "--optimizer-model evidence --max-traces 3 --cross-val-tasks 8",
                3,
                grouping="gold",
            ),
        ],
    ),
    #  Measured (26d137a3358a9e33; 351 episodes run, 117 reused): TS OG 48.1, DC 60.9 (+12.8 pp [+0.8,
    #  +26.3], McNemar p 0.0625, Mann-Whitney p 0.030, MDE 18.8); its runs 51.9, 69.1 and 61.8 against
    #  stage 4 command 3's 63.0, 69.1 and 61.8; paired against stage 4 command 3's DC on the same tasks
    #  -3.7 pp [-8.6, +1.2]. Run 0 kept AppointmentRegistration's original doc: its date-format
    #  candidate tied on the larger validation set (0.36 -> 0.36; the 8 added tasks do not respond to
    #  it, they add sampling noise) and lost the optimization-set tie-break by one episode (0.72 -> 0.67).
    #  Cross-tool validation stays off by default.
    #  7: each tool judged in context (`--in-context`): a tool's candidates are swapped into the docs
    #     already selected for the tools before it (alphabetical order), and its tasks are first rerun
    #     with those docs for its TS⁰. Why: attribution of stage 5's run 0 measured its four changed docs
    #     at +8.6, +8.6, +3.7 and +11.1 pp alone but +17.3 pp together (overlapping fixes), and GEPA's set
    #     gained +4.9 pp without its RecordHealthData doc; judged apart, nothing sees the set the docs
    #     form. Two commands: with cross-tool validation (stage 6's settings, paired against stage 6: a
    #     later tool is also judged on the earlier tools' requests with their selected docs in place), and
    #     without it (stage 4 command 3's settings, paired against it). Plan per run: the first tool as in
    #     the paired stage (same seed and docs: its episodes are reused), each later tool ~26 tasks x 3
    #     samples to rerun (~80 episodes) plus its candidates (~300): ~1,500 episodes at ~3 s (~75 min);
    #     3 runs and 3 x 81 test episodes (OG's reused): ~4,500 episodes, ~4 h on one core per command,
    #     resumable; the two commands run side by side.
    #  Measured, command 1 (26566a8fab818f38, in context alone; runs of 20, 18 and 27 min, 234 episodes
    #  run, 234 reused): TS OG 48.1, DC 65.4 (+17.3 pp [+6.2, +30.0], McNemar p 0.016, Mann-Whitney Holm
    #  p 0.015, MDE 17.7; +35.9 % relative), TC 67.5; its runs 65.5, 61.8 and 69.1; 3.6 min per tool
    #  against ~7 judged apart. Against stage 4 command 3's DC on the same tasks +0.8 pp [-4.1, +6.2];
    #  against its GEPA +5.3 pp. In context, CancelRegistration's and ModifyRegistration's candidates never
    #  reached the TS⁰ of the docs already selected: AppointmentRegistration's date format (in every run,
    #  beside RecordHealthData's structure) already moves CancelRegistration-level-1-3 from 0 to 0.78 (the
    #  agent calls CancelRegistration, not AppointmentRegistration) with the original CancelRegistration
    #  doc, so each run changed 2-3 docs instead of 3-4.
    #  Measured, command 0 (03524c3c258d7b1f; 351 episodes run, 117 reused): TS OG 48.1, DC 61.3 (+13.2 pp
    #  [+3.3, +24.3], McNemar p 0.031, MDE 15.3), TC 65.4; against stage 6 +0.4 pp [-5.3, +5.8], against
    #  command 1 -4.1 pp [-10.3, +2.1]: cross-tool validation costs TS with in-context judging too.
    "compare-api-bank-7": (
        9000,
        8.0,
        [
            _compare(
                "health",
                "og,dc",
                "--optimizer-model evidence --max-traces 3 --cross-val-tasks 8 --in-context",
                3,
                grouping="gold",
            ),
            _compare(
                "health",
                "og,dc",
                "--optimizer-model evidence --max-traces 3 --in-context",
                3,
                grouping="gold",
            ),
        ],
    ),
    #  8: stage 7 command 1 (in context) with every candidate judged on 5 samples per task instead of 3
    #     (`--profile-repeats 5`). Why: acceptance is decided by one or two episodes - each tool's
    #     validation set is 4-12 tasks x 3 samples at T = 0.7, and a doc whose effect on the test set is
    #     +5 to +10 pp moves it by 0-2 episodes, the size of the sampling noise (stage 6's run 0 lost its
    #     best doc by one episode of 18 in the tie-break). More samples of the same tasks cut that noise;
    #     stage 6 showed that more, unrelated tasks do not. Paired against stage 7 command 1 on the same
    #     27 test tasks (the settings table). Plan: sample r of a task has seed (run seed + r), so the
    #     first 3 samples of every candidate, and of the profile, are stage 7's episodes wherever the
    #     runs choose the same docs; new per run are the profile's and each candidate's samples 3-4
    #     (~2/3 of stage 7's ~500 episodes per run, more where a run's choices diverge) and 81 test
    #     episodes: ~1,600 episodes at ~3 s, ~1.5 h on one core, resumable.
    #  Measured (88a2fad717f3642c; runs of 82.5, ~60 and 64.2 min, 351 test episodes run, 117 reused):
    #  TS OG 48.1, DC 53.9 (+5.8 pp [-1.6, +14.0], McNemar p 0.50, MDE 11.6; runs 47.0, 59.3 and 55.6),
    #  against stage 7 command 1 -11.5 pp [-17.7, -6.2] (McNemar 0/5, p 0.0625). More samples per candidate
    #  chose other docs, not the same ones more surely: AppointmentRegistration got the required flags in
    #  all three runs (by the partial-credit tie-break, or val 0.50 -> 0.60 on 4 tasks x 5 samples)
    #  where stage 7 selected its date format in every run, and on the test tasks the date format is what
    #  moved AppointmentRegistration-level-1-1 (0.78 in stage 7, 0.22 here) and CancelRegistration-level-1-3
    #  (0.78, 0.44); 4 OG-solved tasks dropped to 0.78-0.89. The 4-5 validation tasks per tool are not
    #  the test's requests, so a lower-noise judgment of them does not carry over. 13, 14 and 16 of its
    #  runs' 237, 205 and 138 diagnosed traces were episodes restored from the run archive without their
    #  calls, read as "no tool call" (fixed in DocsChisel 11, after this stage).
    "compare-api-bank-8": (
        1600,
        1.5,
        [
            _compare(
                "health",
                "og,dc",
                "--optimizer-model evidence --max-traces 3 --in-context --profile-repeats 5",
                3,
                grouping="gold",
            ),
        ],
    ),
    #  9: stage 5 (misuse tasks, `--misuse-tasks 4`) with DocsChisel 11. Why: the test tasks neither OG
    #     nor any DC stage ever solves are mostly ModifyRegistration requests ("Can you help me reschedule
    #     my appointment ...? ... It's 12345678.") answered with AppointmentRegistration: 5 of the 27 (0,
    #     0, 0.33, 0 and 0 under OG and stage 7's DC), most of DC's gap to +50 %. In stage 5 the misuse
    #     sentence on AppointmentRegistration ("Do not use it for requests like: 'Can you help me change
    #     my appointment date and doctor?' ...") fixed the misrouted opt tasks and lost 3 of the tool's
    #     own (the quoted requests share "Can you help me ..." with its own, and the agent shunned it
    #     there), so it was never accepted. DocsChisel 10 names the parameter that tells the requests
    #     apart instead - every misrouted request states an appointment ID, which AppointmentRegistration
    #     has no parameter for: "It takes no appointment_id: when the request gives one, call
    #     CancelRegistration or ModifyRegistration instead." Judged apart, as in stage 5. Two pilots
    #     with DocsChisel 10 (in context, and as here; stopped) diagnosed no misuse at all: the episodes
    #     they reused from stage 5 and 7 were restored from the run archive without their calls, and
    #     read as "no tool call" (step_limit). DocsChisel 11 runs such an episode again wherever its trace
    #     is diagnosed. Plan: as stage 5, 3 DC runs of ~35 min (~600 episodes each at ~3.5 s, those of
    #     candidates stage 5 also tried reused) and 3 x 81 test episodes (OG's reused): ~2,100
    #     episodes, ~2.2 h on one core, resumable. Paired against stage 5 (the same settings but the
    #     revision) in the settings table, and against OG on the same 27 test tasks.
    #  Measured (83f882a6e8dba9e2, DocsChisel 11; runs of 42.8, 30.7 and ~35 min, 7.35 min per tool):
    #  TS OG 48.1, DC 65.0 (+16.9 pp [+6.6, +28.8], McNemar p 0.0625, Mann-Whitney p 0.0125, MDE 16.7;
    #  +35.0 % relative; runs 64.2, 65.4, 65.4), TC 68.3 (+20.2 pp, McNemar p 0.031); guard +7.4 pp, no
    #  task lost; against stage 5 (DocsChisel 9, same settings) +0.8 pp [-6.6, +7.0]; against GEPA
    #  (28f1e63acc6f2167) +4.9 pp [-1.6, +12.3], n.s. Run 0 selected
    #  the cue doc by the partial-credit tie-break; run 1 judged it better on validation (0.33 -> 0.42)
    #  but selected a candidate with higher pooled opt + val TS. On the test tasks the cue moved the
    #  appointment-ID requests for CancelRegistration (CancelRegistration-level-1-3 and both
    #  CancelRegistration-RecordHealthData-QueryRegistration tasks 0-0.33 -> 1.0), not those for
    #  ModifyRegistration: there the agent still calls AppointmentRegistration with an invented patient
    #  name (two tasks), or now calls ModifyRegistration with appointment_id "90123456" where the user gave
    #  12345678 - copied from ModifyRegistration's example 'Request: "It's 90123456." ->
    #  ModifyRegistration(appointment_id="90123456", ...)', which shows the ID because its own request
    #  holds it (the examples' rule); a small agent copies it into requests that give another.
    "compare-api-bank-9": (
        2100,
        2.2,
        [HEALTH_MISUSE],
    ),
    # 10: stage 9's command with DocsChisel 12, whose usage examples never show a record id (a format
    #     placeholder in the call, `<appointment_id>` in the quoted request). Why: in stage 9 the agent,
    #     once routed to ModifyRegistration, wrote the id of ModifyRegistration's own example
    #     ("90123456") instead of the user's, and an id recurring across tasks had been listed as an
    #     allowed value. Plan: as stage 9, ~2,100 episodes (candidates whose docs hold no id example are
    #     the same docs and reuse stage 9's episodes; OG's test episodes are reused); run with both
    #     cores (`--workers 2`: `--executor ray -j 2`, two local-model actors; the executor is not part
    #     of the comparison's settings): ~1.2 h, ~2.2 h on one core, resumable. Paired against
    #     stage 9 (the same settings but the revision) in the settings table, and against OG and GEPA on
    #     the same 27 test tasks.
    #  Measured (83f882a6e8dba9e2, DocsChisel 12; optimization runs of 15.9, 6.3 and 9.1 min on two
    #  actors, 2.1 min per tool; 351 test episodes run, 117 reused): TS OG 48.1, DC 68.3 (+20.2 pp
    #  [+7.0, +34.6], McNemar 7/0, p 0.0156, Mann-Whitney p 0.014, MDE 20.2; +41.9 % relative; runs
    #  64.2, 69.1, 71.6), TC 69.5; guard +2.8 pp, no task lost; against stage 9 (DocsChisel 11) +3.3 pp
    #  [-2.9, +10.3] (2/0); against GEPA (28f1e63acc6f2167) +8.2 pp [-0.4, +17.7] (3/0, p 0.25, MDE 12.9),
    #  n.s. What moved, per doc set: every run now solves CancelRegistration-level-1-3 and both
    #  CancelRegistration-RecordHealthData-QueryRegistration tasks (stage 9: run 0 only). Runs 1 and 2
    #  changed CancelRegistration's doc ("Use this tool, not AppointmentRegistration ...", its example
    #  'Request: "The appointment ID is <appointment_id>." -> CancelRegistration(appointment_id=...)'),
    #  where stage 9's runs 1-2 kept it; runs 1 and 2 also solve ModifyRegistration-EmergencyKnowledge-
    #  level-2-3. Still never solved: ModifyRegistration-level-1-3 and -1-4 and -EmergencyKnowledge-2-1/2-2,
    #  reschedule requests ("change my appointment date and doctor ... ID 90123456 ... October 12th with
    #  Dr. Lee") that the agent answers with AppointmentRegistration(patient_name="John Doe", ...), even
    #  in run 0 whose AppointmentRegistration doc says "It takes no appointment_id: when the request gives
    #  one, call CancelRegistration or ModifyRegistration instead", or with SymptomSearch or
    #  RecordHealthData; ModifyRegistration's doc was changed only in run 0, and there only by a domain
    #  label (val 0.42 -> 0.50 on 4 tasks x 3 samples: noise), because no candidate that names
    #  rescheduling reached its original validation TS.
    "compare-api-bank-10": (
        2100,
        1.2,
        [HEALTH_MISUSE],
    ),
    # 11: both levers of the best stages at once, with DocsChisel 12: misuse tasks (stages 9-10) and
    #     judging each tool beside the docs already selected before it (`--in-context`, stage 7 command
    #     1). Why: in stage 10 the runs differ most where two tools' docs compete for the same requests
    #     (AppointmentRegistration's "It takes no appointment_id" cue against CancelRegistration's and
    #     ModifyRegistration's docs); judged beside the original docs, a cue is accepted or lost without
    #     the docs it routes requests to. Plan: as stage 10 plus each later tool's tasks rerun with the
    #     earlier selections (stage 7's runs took ~20 min on one core against stage 5's ~35): ~2,500
    #     episodes, ~1 h with `--workers 2`, resumable. A new setting: paired against OG, GEPA
    #     and stage 10 on the same 27 test tasks, with Holm over the settings tried (the peers table).
    #  Measured (130f8fdad884839d, DocsChisel 12; optimization runs of 41.9 (beside a test run), 23.9 and
    #  26.5 min on two actors): TS OG 48.1, DC 64.2 (+16.0 pp [+4.5, +28.0], McNemar p 0.031, MDE 17.6;
    #  +33.3 % relative; runs 66.7, 58.0, 67.9); guard +2.8 pp, no task lost; against stage 10 -4.1 pp
    #  [-10.7, +2.5] (0/1); against GEPA +4.1 pp [-2.9, +11.9], n.s. Run 0 is the first doc set that
    #  moves a reschedule request: ModifyRegistration-level-1-3 0.67 (every earlier stage <= 0.33), with
    #  AppointmentRegistration's "It takes no appointment_id" cue judged beside ModifyRegistration's own
    #  "Use this tool, not AppointmentRegistration, for requests like: 'Can we move it to October 15th
    #  ...'" - but in context RecordHealthData kept its original doc in run 0, and the three
    #  RecordHealthData-AppointmentRegistration / RecordHealthData-level-1-2 tasks its time-format doc
    #  solves in stage 10 fell to 0-0.33. Run 1 (58.0) lost 4 tasks each stage-10 run solves (0.67-1.0).
    "compare-api-bank-11": (
        2500,
        1.0,
        [
            _compare(
                "health",
                "og,dc",
                "--optimizer-model evidence --max-traces 3 --misuse-tasks 4 --in-context",
                3,
                grouping="gold",
            ),
        ],
    ),
    # 12: stage 10's command (= stage 9's) with DocsChisel 13, whose usage examples quote, before a
    #     reply that only gives a record id ("It's <appointment_id>.", "The appointment ID is
    #     <appointment_id>."), the nearest earlier turn that asked for the action ("Can you help me
    #     reschedule my appointment with Dr. Smith on April 12th, 2023? ... It's <appointment_id>.").
    #     Why: with ids masked (DocsChisel 12), stage 11's ModifyRegistration example quoted only
    #     "It's <appointment_id>.", which says nothing about rescheduling; the never-solved tasks of
    #     stages 9-11 are reschedule requests the agent sends to AppointmentRegistration. Plan: as stage
    #     10, ~2,100 episodes (candidates without such an example are the same docs and reuse stage
    #     10's episodes; OG's test episodes are reused), `--workers 2`: ~0.8-1 h, resumable. Paired
    #     against stage 10 (the same settings but the revision) in the settings table, and against OG
    #     and GEPA on the same 27 test tasks.
    #  Measured (83f882a6e8dba9e2 under DocsChisel 13; optimization runs of 0.1, 3.9 and 7.1 min on two
    #  actors: most candidates repeat stage 10's docs; 234 episodes run, 234 reused): TS OG 48.1, DC 66.7
    #  (+18.5 pp [+6.2, +32.5], McNemar p 0.0156, MDE 19.9; +38.5 % relative; runs 64.2, 67.9, 67.9);
    #  guard +5.6 pp, no task lost; against stage 10 -1.6 pp [-4.1, +1.2], n.s. Why: run 0 selected
    #  exactly stage 10 run 0's docs (no selected doc had an example whose request is an id-only reply).
    #  Run 1's CancelRegistration example still read 'Request: "The appointment ID is <appointment_id>."':
    #  an id used by many tasks (90123456, 12345678) counts as a constant, and a call whose values are
    #  all constants quoted the last passage of four words or more, so the new rule never applied there
    #  (DocsChisel 14 mends it). Run 2 changed ModifyRegistration by a constraint ("Always pass
    #  appointment_id") and moved ModifyRegistration-level-1-3 to 0.67 and -EmergencyKnowledge-2-1 to 0.33.
    "compare-api-bank-12": (
        2100,
        0.9,
        [HEALTH_MISUSE],
    ),
    # 13: stage 12's command with DocsChisel 14. Why: DocsChisel 13's rule did not reach the examples
    #     it was written for - an id that recurs across tasks (90123456, 12345678: most of CancelRegistration's
    #     and ModifyRegistration's tasks) is a constant, and a call whose values are all constants quoted
    #     the last passage of four words or more, "The appointment ID is <appointment_id>." (stage 12 run
    #     1's CancelRegistration example). DocsChisel 14 quotes there the last turn that asks or gives the
    #     id, led by the turn that asked ("Can you modify my appointment ... to October 15th with Dr.
    #     Johnson? ... It's <appointment_id>."). Plan: as stage 12, ~2,100 episodes, most reused,
    #     `--workers 2`: ~0.7 h, resumable. Paired against stages 10 and 12 in the settings table, and
    #     against OG and GEPA on the same 27 test tasks.
    #  Measured (83f882a6e8dba9e2 under DocsChisel 14; optimization runs of 1.8, 1.4 and 1.9 min; 234
    #  episodes run, 234 reused): TS OG 48.1, DC 65.0 (+16.9 pp [+5.8, +29.2], McNemar p 0.0156, MDE
    #  17.6; +35.0 % relative); guard +5.6 pp, no task lost; against stage 10 (DocsChisel 12) -3.3 pp
    #  [-7.0, +0.4], against stage 12 -1.6 pp [-4.9, +0.8], both n.s.; against GEPA +4.9 pp [-1.6,
    #  +12.8] (3/0, p 0.25). Why: in runs 0 and 1 no selected doc holds an example the revision changed
    #  (run 0 repeats stage 10 run 0's docs); run 1 kept CancelRegistration's original doc (its candidate fell on
    #  validation, 0.33 -> 0.17 on 4 tasks x 3 samples, while opt rose 0.53 -> 0.80), and lost both
    #  CancelRegistration-RecordHealthData-QueryRegistration tasks (1.0 -> 0.00-0.33). Run 2 selected the
    #  new example ('"Can you cancel my appointment with Dr. Davis on April 10th? ... <appointment_id>"');
    #  its CancelRegistration tasks stayed at 0.67-1.0. Which tool keeps which doc is decided by one or
    #  two validation episodes, so the example change is lost in selection noise on these tasks.
    "compare-api-bank-13": (
        2100,
        0.7,
        [HEALTH_MISUSE],
    ),
    # 14: stage 13's command plus `--misused-tools 4`, with DocsChisel 15 (a look-up called where the
    #     episode called none of the task's tools is diagnosed as misused; without it the misused
    #     SymptomSearch's failures read as extra calls, and its doc got examples, not "not for these
    #     requests"): a tool outside the compared ones that the profile
    #     saw called in their place on 4+ episodes is optimized too, judged on those tasks (its misuse
    #     tasks) and on its own, which must not get worse. Why: in stage 12's DC test episodes, 20 of the
    #     81 failures called SymptomSearch (10 on AppointmentRegistration's requests, 9 on
    #     ModifyRegistration's, e.g. "reschedule my appointment ..." -> SymptomSearch(symptom="cancer")),
    #     and SymptomSearch lies above the headroom band (TS0 0.93), so no stage ever changed its doc;
    #     only its doc can say which requests it is not for. In stage 13 run 0's profile (35 opt/val tasks
    #     x 3 samples) SymptomSearch was called in the compared tools' place on 5 failed episodes,
    #     EmergencyKnowledge on 3 (below the band, TS0 0.05): 4 takes the first. The compared tools, the test tasks and
    #     GEPA's candidate stay the five band tools; DC's doc set may differ at the misused tool too, so
    #     this is another DC setting (the settings table), and the regression guard (test tasks of the
    #     tools outside the band, SymptomSearch's among them) shows what its own requests lose. Plan:
    #     stage 13's episodes reused where docs repeat; new: the misused tool's own tasks profiled (~15
    #     episodes), its candidates (<= 5 iterations x ~15 tasks x 3 samples per run, ~700 in all), and
    #     the evaluation of the new doc sets (~250 + guard ~110): ~1,100 episodes, ~1 h with
    #     `--workers 2`, resumable.
    #  Measured: a first launch under DocsChisel 14 (look-ups never counted as misused) found no tool
    #  ("no other tool was called in the optimized tools' place on 4+ episodes") and repeated stage 13
    #  exactly (its own snapshot, DC 65.0). Under DocsChisel 15 (4639ece4814292d6; optimization runs of
    #  3.8, 2.1 and 0.7 min; 117 episodes run, 351 reused): SymptomSearch joined in every run (misused on
    #  5 of the profile's failed episodes: 1 opt and 2 val tasks), but only run 0 changed its doc
    #  ("This API searches for a given symptom. It is not for what AppointmentRegistration does." and
    #  "It takes no date or doctor_name or patient_name: when the request gives one, call
    #  AppointmentRegistration instead."); runs 1 and 2 kept the original (no candidate reached TS0 on 4
    #  val tasks). TS OG 48.1, DC 64.6 (+16.5 pp [+5.3, +29.2], McNemar p 0.0156); against stage 15 (the
    #  same revision without misused tools) -0.4 pp [-1.6, +0.8]; guard +4.6 pp, no task lost. Why, from
    #  run 0's test episodes: calls to SymptomSearch on ModifyRegistration's requests fell from 6 to 4 of
    #  81, but calls to AppointmentRegistration there rose from 5 to 8 - the guidance sends a request that
    #  names a date or a doctor to AppointmentRegistration, and reschedule requests name both. Its only
    #  misuse tasks were AppointmentRegistration requests, so it never saw the ModifyRegistration side.
    "compare-api-bank-14": (
        1100,
        1.0,
        [
            _compare(
                "health",
                "og,dc",
                "--optimizer-model evidence --max-traces 3 --misuse-tasks 4 --misused-tools 4",
                3,
                grouping="gold",
            ),
        ],
    ),
    # 15: stage 13's command under DocsChisel 15, whose change acts only on a look-up optimized as a
    #     misused tool: every decision and doc set should repeat stage 13's, and every episode be reused
    #     (a check of that claim, and stage 14's pair in the settings table: the same revision, misused
    #     tools off). Plan: ~0 new episodes, a few minutes.
    #  Measured: 0 episodes run, 468 reused - every doc set repeats stage 13's (DC 65.0), as claimed.
    "compare-api-bank-15": (
        0,
        0.1,
        [HEALTH_MISUSE],
    ),
    # 16: stage 14's command (`--misused-tools 4`) under DocsChisel 16. Why: stage 14 run 0's SymptomSearch
    #     doc said "It takes no date or doctor_name or patient_name: when the request gives one, call
    #     AppointmentRegistration instead" - the one tool whose requests the profile saw misrouted - and
    #     on its test episodes ModifyRegistration's requests (which name a date and a doctor too) went to
    #     AppointmentRegistration 8 times instead of 5. DocsChisel 16 names every tool of the domain that
    #     takes such a value (AppointmentRegistration, ModifyRegistration or QueryRegistration); the
    #     sentence of a tool whose cue only its seen tools take (AppointmentRegistration's "It takes no
    #     appointment_id: ... call CancelRegistration or ModifyRegistration") is unchanged, so only the
    #     misused tool's candidates differ. Plan: stage 14's episodes reused where docs repeat; new: the
    #     SymptomSearch candidates that carry the sentence (<= 5 iterations x ~15 tasks x 3 samples per
    #     run) and the evaluation of changed doc sets (<= 3 x 81 + guard 36): <= ~500 episodes, ~0.4 h
    #     with `--workers 2`, resumable. Paired against stage 14 in the settings table.
    #  Measured (4639ece4814292d6 under DocsChisel 16; optimization runs of 4.8, 0.8 and 0.3 min, ~6 min
    #  in all): SymptomSearch joined in every run again, and every run kept its original doc. Run 0's
    #  candidate with the new sentence ("... call AppointmentRegistration or ModifyRegistration or
    #  QueryRegistration instead") held validation (0.58 -> 0.58) but no longer gained on its optimization
    #  tasks (0.67 -> 0.67; stage 14's one-tool sentence: 0.75) - its one misuse optimization task is an
    #  AppointmentRegistration request, which the one-tool sentence routed there - so the original was
    #  kept, and every doc set repeats stage 13's (DC 65.0, +16.9 pp over OG; against stage 14 +0.4 pp).
    #  The misused tool's candidates are judged on 4 + 4 tasks, too few to tell either sentence's effect.
    "compare-api-bank-16": (
        500,
        0.4,
        [
            _compare(
                "health",
                "og,dc",
                "--optimizer-model evidence --max-traces 3 --misuse-tasks 4 --misused-tools 4",
                3,
                grouping="gold",
            ),
        ],
    ),
    # 17: stage 13's command under DocsChisel 17 (a plan operation that only restates the original field,
    #     such as QueryHealthData's "Format: %Y-%m-%d %H:%M:%S" with a period added, is dropped, and its
    #     slot goes to the next operation the evidence supports). Why: the 0.5B agent's QueryHealthData and
    #     RecordHealthData candidates carry that no-op too (stage 10 run 0's QueryHealthData doc differs
    #     from the original by two periods). Plan: the candidates of the tools whose first plans change
    #     and the evaluation of changed doc sets: <= ~800 episodes, ~0.6 h with `--workers 2`, resumable.
    #     Paired against stage 13 in the settings table.
    #  Measured (83f882a6e8dba9e2 under DocsChisel 17; optimization runs of 1.4, 4.8 and 6.9 min; the step
    #  26 min): QueryHealthData kept its original doc in runs 0 and 1 (the period-only candidate is gone;
    #  the candidates that act, typed parameter and rejection message, did not pass validation) and run 1
    #  took another AppointmentRegistration candidate. TS OG 48.1, DC 68.3 (runs 64.2, 70.4, 70.4): +20.2
    #  pp [+7.4, +34.6], McNemar p 0.0078, MDE 19.8; +41.9 % relative, equal to stage 10's best; guard +6.5
    #  pp, no task lost. Against stage 13 +3.3 pp [-0.8, +8.2] (n.s.), against stage 10 +0.0; against
    #  GEPA +8.2 pp [+0.4, +17.3], McNemar 4/0, p 0.125 (Holm 1.0), MDE 12.2. Why: run 1's
    #  AppointmentRegistration candidate solves AppointmentRegistration-level-1-1 (0.33 -> 1.00) and both
    #  CancelRegistration-RecordHealthData-QueryRegistration tasks (0.00-0.33 -> 0.67-1.00) that stage 13's
    #  run 1 lost; run 2 loses RecordHealthData-level-1-2 (1.00 -> 0.00) and gains
    #  AppointmentRegistration-level-1-1 (0.00 -> 1.00). The QueryHealthData test task that moved for the
    #  1.5B agent fails for 0.5B by routing (SymptomSearch), in every doc set.
    "compare-api-bank-17": (
        800,
        0.6,
        [HEALTH_MISUSE],
    ),
    # health-1.5b: the same comparison with Qwen2.5-Coder-1.5B as the target agent: OG, DC-evidence
    #     (stage 13's settings) and GEPA, 3 x 3, on the same split. Why: the 27 health test tasks give an
    #     MDE of 11-13 pp against GEPA; a second target backbone doubles the paired (task, agent) units
    #     (54; with finance + information's 11, 65) and says whether DocsChisel's gain holds for a
    #     stronger agent, which the paper's results do. The headroom profile decides which tools are
    #     compared (a stronger agent may leave fewer in the band). Plan: as stages 4 + 9 (~2,100 DC and
    #     ~2,100 GEPA episodes, OG ~100), Qwen 1.5B at ~3x the 0.5B time per call (10.3 vs 22.1 prompt
    #     tokens per CPU-second): ~4,300 episodes at ~10 s on two actors, ~6 h with `--workers 2`, over
    #     3 sessions, resumable.
    #  Measured so far (8d5e8a9cce4adb00): the headroom profile (~180 episodes, ~15 min on two actors,
    #  ~4.9 s per episode) leaves 3 tools in the band for the 1.5B agent - AppointmentRegistration,
    #  QueryHealthData, RecordHealthData - and 14 test tasks; CancelRegistration (TS0 1.00),
    #  ModifyRegistration (0.92), QueryRegistration (0.96) and SymptomSearch (0.93) lie above it, so
    #  the stronger agent needs no doc for the routing that fails the 0.5B agent most. That makes
    #  27 + 14 = 41 paired (task, agent) units on health, and the run shorter than planned (~3 h).
    #  Two commands: OG and DC first (a result within one session), then the same with GEPA, which reuses
    #  every OG and DC episode (the optimization runs and evaluations do not depend on the methods list).
    #  Measured, OG and DC (1892a81772fddb15 under DocsChisel 16; DC runs of 30.3, 17.5 and 21.3 min): TS
    #  OG 81.0, DC 85.7 (runs 81.0, 83.3, 92.9): +4.8 pp [-9.5, +20.6], McNemar p 1.0, MDE 22.8 (+5.9 %
    #  relative); guard +1.9 pp, no task lost. Why: 9 of the 14 test tasks are solved in every episode
    #  by both, one by neither (ModifyRegistration-QueryHealthData-CancelRegistration-2-2#2). Gained:
    #  RecordHealthData-AppointmentRegistration-EmergencyKnowledge-2-4#0 (0.33 -> 0.89;
    #  OG wrote time="2023-08-15T09:30:00", which the tool rejects; DC's constraint quotes that
    #  rejection) and -2-5#2 (0.00 -> 0.78; OG wrote doctor_name="Dr. Smith" or called QueryHealthData).
    #  Lost: QueryHealthData-CancelRegistration-SymptomSearch-2-1#0 (1.00 -> 0.44): under runs 0 and 1's
    #  QueryHealthData doc, whose candidate added a usage example with the format as a placeholder
    #  (start_time=<start_time: YYYY-MM-DD HH:MM:SS>) and a "Refine IPD" that only added a period to the
    #  original's "Format: %Y-%m-%d %H:%M:%S", the agent wrote "2023-03-05T10:00:00" on 5 of 6 episodes;
    #  run 2's doc, which typed the parameter "str (YYYY-MM-DD HH:MM:SS)" instead, solved it 3 of 3. The
    #  typed candidate existed in runs 0 and 1 too (iteration 2), but fell on one validation sample (0.50
    #  -> 0.42; the 4 pooled validation tasks sit at 0.50 for every candidate of every tool). DocsChisel
    #  17 drops such a no-op refinement, so the operation that acts takes its slot (health-1.5b-17).
    #  GEPA (the second command), measured pace: its budgets are DocsChisel 17's runs' 258, 258 and 219
    #  episodes; in 50 min run 0 reached iteration 29 with 99 new episodes (32.6 s per agent call at ~2,000
    #  prompt tokens on two actors, a test run beside them: every GEPA candidate changes the docs, so the
    #  cached prompt prefix ends early) and 18 reflection calls (57 s each). ~1.5 h per run: ~4.5 h for
    #  the three, then ~250 evaluation episodes, over two sessions; stored episodes and reflection calls
    #  replay from the warehouse, so a stopped run resumes where it was.
    "compare-api-bank-health-1.5b": (
        4300,
        8.0,
        [AGENTS_TABLE[3], _with_gepa(AGENTS_TABLE[3])],
    ),
    # health-1.5b-17: the first command of health-1.5b (OG, DC) again under DocsChisel 17. Why: in
    #     health-1.5b, runs 0 and 1 spent QueryHealthData's first plan on a "Refine IPD" that restated the
    #     original's format with a period, and the typed parameter that solved the lost test task came
    #     only as a later candidate, which one validation sample rejected. Plan: the episodes of
    #     unchanged candidates are reused; new are those of the candidates the freed slot changes
    #     (QueryHealthData's and RecordHealthData's: <= 3 runs x 5 iterations x 13 tasks x 3 samples, most
    #     repeating) and the evaluation of changed doc sets (<= 3 x 42 + guard 36): ~600 episodes at
    #     ~4.9 s on two actors, ~1 h with `--workers 2`, resumable.
    #  Measured (1892a81772fddb15 under DocsChisel 17; optimization runs of 4.5, 4.4 and 4.4 min; the whole
    #  step 35 min): QueryHealthData's first plan is now "Refine IPT, Add UE" (opt 0.17 -> 1.00) in runs 0
    #  and 1, and run 2 selected its rejection message (IC). TS OG 81.0, DC 91.3 (runs 90.5, 90.5, 92.9):
    #  +10.3 pp [-1.6, +28.6], McNemar 2/0, p 0.50, MDE 22.5; +12.7 % relative, Mann-Whitney p 0.012
    #  (the paper's test); against DocsChisel 16 on the same comparison +5.6 pp; guard +0.9 pp, no task
    #  lost. Why: QueryHealthData-CancelRegistration-SymptomSearch-2-1#0 is solved in 9 of 9 episodes
    #  (DocsChisel 16: 4 of 9); the two RecordHealthData-AppointmentRegistration-EmergencyKnowledge tasks
    #  are gained as before (0.33 -> 0.89, 0.00 -> 1.00). The one task never solved, ModifyRegistration-
    #  QueryHealthData-CancelRegistration-2-2#2, ends its range "to March 12th" at 2023-03-12 00:00:00 in
    #  the ground truth; DC's agent writes the right format now, but 23:59:59 - a convention no doc
    #  states. With 9 of 14 tasks solved by both in every episode, 14 paired tasks cannot make +10 pp
    #  significant (MDE 22.5).
    "compare-api-bank-health-1.5b-17": (
        600,
        1.0,
        [
            _compare(
                "health",
                "og,dc",
                f"--optimizer-model evidence --max-traces 3 --misuse-tasks 4 --model {Q15}",
                3,
                grouping="gold",
            ),
        ],
    ),
    # health-multi: the same comparison with the multi-agent paradigm (planner + executor, Qwen 0.5B in both
    #     roles), OG and DC-evidence (stage 13's settings), 3 x 3, on the same split. Why: where the
    #     paired units can come from. On the gold split, API-Bank's other domains hold 20 (finance) and 10
    #     (information) test tasks, and the stored 0.5B ReAct episodes put almost all their tools above the
    #     band (OpenBankAccount 0.95, QueryBalance 1.00, QueryStock 0.97, Calculator 0.88,
    #     QueryHistoryToday 0.89) or at 0 (GetUserToken): DocumentQA's 2 test tasks alone would be left,
    #     and the 1.5B agent is stronger still. WorkBench's tools sit below the band for 0.5B (the agent
    #     does not chain a look-up before a write) and a 1.5B episode there costs ~1-2 min. The
    #     multi-agent paradigm solves 14.3 % of health's test tasks with the original docs (ReAct: 40.5
    #     %), and its planner reads only tool names and first description lines, so a doc's description
    #     decides its routing there: a second paradigm on the same tasks, which the paper's results say
    #     changes which fields help. The headroom profile decides the compared tools. Plan: the profile
    #     ~35 opt/val tasks x 3 samples ~105 episodes, DC ~3 x 700, evaluation ~27 x 4 doc sets x 3
    #     runs + guard ~400: ~2,600 episodes at 18.6 s (4.8 model calls each; the baseline step's
    #     figure) on two actors, ~6.7 h with `--workers 2`, over 2-3 sessions, resumable; GEPA (~2,100
    #     episodes more) only after DC shows a gain.
    #  Measured, the profile only (85 episodes on opt/val tasks, TS 12.9 %, ~26.6 s each on two actors), and
    #  stopped there: the Qwen 0.5B planner does not route. 32 of its 85 plans list tools in the order of
    #  its catalogue (the domain's tool list), e.g. "1. RecordHealthData 2. SymptomSearch 3.
    #  EmergencyKnowledge" 20 times, for requests to cancel, modify or book an appointment and to look up a
    #  symptom alike; 49 of the 74 failed episodes' plans name none of the task's tools, and the executor,
    #  told to carry out only its step, calls the tool the step names. The planner reads a tool's name and
    #  the first 160 characters of its description's first line, no other field: a doc change reaches it
    #  only through that line, and a planner that copies its catalogue reads none of it. The ~2,500
    #  episodes left would measure the planner's capacity, not the docs; the third agent comes from the
    #  text rendering of the docs instead (health-text).
    "compare-api-bank-health-multi": (
        2600,
        6.7,
        [
            _compare(
                "health",
                "og,dc",
                "--optimizer-model evidence --max-traces 3 --misuse-tasks 4 --agent multi",
                3,
                grouping="gold",
            ),
        ],
    ),
    # health-text: stage 17's command with the docs rendered as text in the system prompt (`--doc-mode text`:
    #     the ReAct agent reads every field as prose and writes its call in a text format) instead of native
    #     tool schemas. Why: another way an agent reads documentation, on the same 27 test tasks and split,
    #     with the same DocsChisel settings, so its units pool with the ReAct native agents' (the "newest
    #     revision across target agents" table). The paper's premise is that which fields help depends on
    #     how the agent consumes them: in text mode the schema-level fields (types, required flags) are read
    #     as words, not enforced by a grammar. The headroom profile decides the compared tools. Plan, as
    #     stage 17 measured it for native docs: profile ~35 opt/val tasks x 3 samples ~105 episodes, DC 3 x
    #     ~250, evaluation 27 x 2 doc-set kinds x 3 runs + guard ~300: ~1,150 episodes at ~5-8 s on two
    #     actors (Qwen 0.5B, one model call each; text mode's prompt is longer), ~1.5-2 h, resumable.
    #  Measured (47e3ab0028cf837e; profile 108 episodes, TS 7.4 %; band CancelRegistration,
    #  ModifyRegistration, RecordHealthData, SymptomSearch on 23 test tasks; optimization runs of 38.8 and
    #  48.6 min, run 1 split over two sessions; ~1,350 episodes in all, ~3.2 h over two sessions): TS OG
    #  11.6, DC 15.9 (runs 13.0, 13.0, 21.7): +4.3 pp [-3.4, +12.1], McNemar 1/1, p 1.0, MDE 11.9; +37.5 %
    #  relative on a floor. Guard -9.3 pp: ModifyRegistration-EmergencyKnowledge-level-2-1#4 is lost to
    #  SymptomSearch (8 episodes), whose "Use this tool" line draws EmergencyKnowledge's symptom requests.
    #  Why, from the traces: 12 of the 23 test tasks are solved by neither doc set in any episode. In text
    #  mode nothing binds the call to the schema, and the agent writes the request's words as parameters
    #  (RecordHealthData(blood_pressure=..., heart_rate=...), CancelRegistration(patient_name=..., date=...),
    #  start_time/end_time), or a time without seconds, under every doc set. Every run's SymptomSearch doc
    #  carries a concrete example value, SymptomSearch(symptom="nausea"), and the agent copies it into
    #  other tools' requests: 24 of the 189 DC test episodes outside SymptomSearch's tasks call with
    #  "nausea" (runs 0 and 1: 11 each, run 2: 2, the run at 21.7 %), none of OG's 63. SymptomSearch's
    #  candidates are judged on its own 3 + 4 tasks, where the value fits, so the copy-driven Remove rule
    #  never sees it. What would act: a placeholder for free-text values in examples, and judging the last
    #  tool's candidates on the other optimized tools' requests (stage 6's cross-tool validation, which
    #  cost TS for native schemas).
    "compare-api-bank-health-text": (
        1150,
        2.0,
        [HEALTH_MISUSE + " --doc-mode text"],
    ),
    # fininfo-17: API-Bank finance + information on the gold split under DocsChisel 17, stage 17's
    #     settings, for the Qwen 0.5B agent with native tool schemas and with the docs as text. Why: the
    #     paired units of the "newest revision across target agents" table come from health alone (27
    #     test tasks per agent); finance and information hold 30 more test tasks on the gold split. With
    #     native schemas the stored task-level-split episodes put most of their tools above the band
    #     (OpenBankAccount 0.95, QueryBalance 1.00, QueryStock 0.97), so that command may stop after its
    #     profile (~100 episodes at ~3 s, ~5 min) with DocumentQA alone or nothing; in text mode the agent
    #     is weaker (health: profile TS 7.4 % against 40 % native), which can put these tools in the
    #     band. Each comparison's test tasks are disjoint from health's, so they pool with it per agent.
    #     Plan: native ~100 profile episodes (+ ~700 if a tool is in the band); text as health-text
    #     measured it, ~1,100 episodes at ~5-8 s on two actors; ~2.5 h in all, resumable.
    #  Measured, native schemas (9515a27c9d4f3e74, 11 min): the profile put every finance tool above the
    #  band (OpenBankAccount 0.93, QueryBalance 0.94, QueryStock 1.00, Calculator and QueryHistoryToday
    #  0.87) and GetUserToken below it; information's DocumentQA, ImageCaption and SearchEngine entered
    #  with 2 test tasks. Each run took DocumentQA's candidate (val on its 1 task 0.00-0.33 -> 0.33-1.00);
    #  TS OG 0.0, DC 0.0 on the 2 test tasks (TC 83.3 both): each is the third question of a dialogue
    #  about one document, and the gold call asks it word for word ("What is the customer support like
    #  for this software?"); the agent re-asks the second, already answered question, or paraphrases the
    #  third ("What is the customer support for the software?"), under every doc set. Text mode (cfa5fe66fb766317): the profile puts
    #  OpenBankAccount, QueryBalance, QueryHistoryToday, SendEmail and the three information tools in
    #  the band (Calculator 0.00, QueryStock 0.93), with 16 test tasks; 7 tools per run (run 0 changed all
    #  7 in 22.5 min; each tool is judged on the 1-2 validation tasks its domain holds). Measured
    #  (cfa5fe66fb766317, ~1.5 h over two sessions): TS OG 37.5, DC 31.2 (runs 22.9, 31.2, 39.6): -6.2 pp
    #  [-18.8, +7.6], McNemar p 0.375, MDE 20.1; TC 52.1 -> 37.5; guard +1.9 pp, no task lost. Why, from
    #  the traces: run 0's QueryHistoryToday example showed a day the requests give in words as a bare
    #  "12-10" (December 10th; the value recurs across tasks, so the example rule took it for an allowed
    #  value), and the agent wrote April 21st as "21-04" in every run-0 episode of three test tasks
    #  (0.67 -> 0.00). QueryBalance's examples pasted one user's token next to a request that gives a
    #  username and password (the token recurs because the dialogues reuse one user), OpenBankAccount's
    #  showed account="user4" traced to "user4pass" and a recurring name ("John Smith") the quoted request
    #  does not hold. QueryHistoryToday-Calculator-2-3#0 is lost to Dictionary calls under every DC doc set
    #  (OG solved it 2 of 3). Gained: OpenBankAccount-QueryBalance-...-2-2#0 (0.00 -> 0.78). Every tool is
    #  judged on 1 validation task (3 samples), so a harmful example passes on one lucky sample.
    #  DocsChisel 18 (compare-api-bank-18) fixes the example rule.
    "compare-api-bank-fininfo-17": (
        1900,
        2.5,
        [FININFO_MISUSE, FININFO_MISUSE + " --doc-mode text"],
    ),
    # 18: the comparisons of the "newest revision across target agents" table again under DocsChisel 18
    #     (usage examples take the parameter descriptions' allowed-value rule: a value that recurs across
    #     tasks but that the requests state - one user's token, a booked doctor, a day asked in words - is
    #     shown only where the quoted request holds it as a whole word, and as its format elsewhere; month-day
    #     values are typed MM-DD). Why: the text-mode finance and information comparison lost 6.2 pp to
    #     examples that showed such values (fininfo-17). Order: that comparison first (where the defect
    #     showed), then health for the 0.5B text, 0.5B native and 1.5B native agents, and finance +
    #     information native. Each command keeps its comparison id: the OG episodes and the profile are
    #     reused, DocsChisel's runs are new. Plan (as measured under DocsChisel 17): fininfo text ~900
    #     episodes ~1.5 h; health text ~1,250 ~3 h; health 0.5B native ~800 ~1 h; health 1.5B ~600 ~1 h;
    #     fininfo native ~100 ~0.2 h: ~3,700 episodes, ~6.7 h with `--workers 2`, over three sessions.
    #  Measured, fininfo text (cfa5fe66fb766317 under DocsChisel 18; optimization runs of 23.2, 18.8 and
    #  6.4 min, the command ~1 h): TS OG 37.5, DC 32.6 (runs 35.4, 22.9, 39.6): -4.9 pp [-18.1, +10.4],
    #  McNemar p 0.375, MDE 21.4; against DocsChisel 17 +1.4 pp [-4.2, +7.6]; guard +0.9 pp. The examples
    #  now show QueryBalance(token=<token>), QueryHistoryToday(date=<date: MM-DD>) and no "user4" or
    #  recurring name the request does not hold. Why it is still below OG, from the traces: (1) run 1's
    #  QueryHistoryToday doc kept one example whose request states "12-10" literally, shown as it is;
    #  the agent wrote April 21st as "21-04" in 3 of 3 episodes (runs 0 and 2, format only: "04-21" in 4
    #  of 6). A month-day value whose day is 12 or less reads either way; OG's agent writes the ISO date
    #  "2023-04-21", which the tool accepts. (2) QueryBalance's guidance quotes the credential turns
    #  whose QueryBalance step the agent gave to OpenBankAccount ("My username is user3 and my password
    #  is user3pass."); an open-account request reads the same, and QueryStock-OpenBankAccount-2-1#0 is
    #  lost to QueryBalance calls with OpenBankAccount's arguments (0.67 -> 0.44). (3) QueryHistoryToday-
    #  Calculator-2-3#0 ("April 21st, 1903") is lost to Dictionary calls under every DC doc set of both
    #  revisions (OG 2 of 3). Every tool is judged on its 1 validation task, so these pass on one
    #  sample. What would act: an unambiguous example day (or the format) for month-day values; routing
    #  guidance that names what tells the tools apart (a token obtained; a balance asked) instead of
    #  quoting turns both tools' requests contain; validation pooled over the domain (`--pool-domain-val`).
    #  DocsChisel 19 does the first two (compare-api-bank-19); this step's other commands were not run.
    "compare-api-bank-18": (
        3700,
        6.7,
        AGENTS_TABLE,
    ),
    # 19: compare-api-bank-18's five commands under DocsChisel 19 (a month-day value that reads either way
    #     round is shown as its format; a confused tool's guidance names the parameter that tells its
    #     requests from the other tool's instead of quoting them). Why: the two causes fininfo text's traces
    #     showed under DocsChisel 18. Plan as compare-api-bank-18: ~3,700 episodes, ~6.7 h with
    #     `--workers 2`, over three sessions; its first command re-optimizes fininfo text (~1 h).
    #     A session on a replaced machine starts from the archive, which keeps episode outcomes but no
    #     traces (they quote the benchmark): the headroom profile and every optimization run of an
    #     unfinished command run again, with new doc sets (another CPU's kernels sample other tokens), so
    #     each command has to finish within the session that starts it. Health text (~3.2 h) does not fit
    #     one session that also sets the machine up; it runs last, where a session keeps its machine.
    #  Measured, fininfo text (cfa5fe66fb766317 under DocsChisel 19, re-run whole on a new machine:
    #  profile 162 episodes, optimization runs of 15.0, 12.7 and 11.6 min, the command 53 min): TS OG 37.5,
    #  DC 35.4 (runs 31.2, 31.2, 43.8): -2.1 pp [-12.5, +9.0], McNemar p 1.0, MDE 15.9; TC 52.1 -> 42.4;
    #  guard +2.8 pp, no task lost. The date defect is gone: of 26 QueryHistoryToday calls none writes
    #  a month-day reversed (18: "21-04" in 3 of 3 episodes of run 1); the agent writes "04-21" or an ISO
    #  date, both accepted. Gained: OpenBankAccount-QueryBalance-QueryStock-GetUserToken-2-2#0 (0.00 ->
    #  0.33, 0.33, 1.00: OpenBankAccount called with the three values the dialogue gives), QueryHistoryToday-
    #  Calculator-2-1#0 (0.67 -> 1.00 in runs 0 and 2). Lost: QueryHistoryToday-Calculator-2-3#0 (0.67 ->
    #  0.00 in runs 0 and 1; "April 21st?" then "1903": date="1903", year="1903", or Dictionary with
    #  keyword "April 21st"); in run 1 QueryHistoryToday keeps its original doc, so the loss comes with the
    #  other six tools' longer docs (doc tokens per tool 83.6 -> 141.1), which every DC doc set adds to the
    #  text prompt. QueryStock-OpenBankAccount-2-1#0 (0.67 -> 0.00 in run 2: OpenBankAccount without name,
    #  or account="1"). The routing cue does not stop the 0.5B agent from calling QueryBalance with
    #  OpenBankAccount's arguments: 5 such calls under every DC doc set. On 16 test tasks the effect
    #  detectable is 15.9 pp; the three runs differ by 12.6 pp, so this comparison cannot tell DocsChisel 19
    #  from 17 or 18 (-6.2, -4.9, -2.1).
    #  Measured, health 0.5B native (83f882a6e8dba9e2 under DocsChisel 19, whole on the new machine: profile
    #  and optimization runs of 13.0, 14.0 and 11.7 min, the command 52 min; OG's episodes are the archived
    #  ones, sampled on the earlier machine's CPU): TS OG 48.1, DC 60.1 (runs 58.0, 58.0, 64.2): +11.9 pp
    #  [+0.4, +24.7], McNemar 5/0 p 0.0625, Mann-Whitney p 0.019, MDE 18.1, +24.8 % relative; guard +7.4 pp
    #  (ModifyRegistration-EmergencyKnowledge-2-1#4 lost to SymptomSearch, as under every revision). Against
    #  DocsChisel 17: -8.2 pp [-14.4, -2.5], McNemar 0/3 p 0.25; against GEPA +0.0 (3/2). Why, from the
    #  traces: the new routing cue is in every run's CancelRegistration doc ("Use this tool, not
    #  AppointmentRegistration, for requests that give appointment_id (AppointmentRegistration takes
    #  none)"); CancelRegistration-level-1-3#0 and CancelRegistration-RecordHealthData-QueryRegistration-
    #  2-2#0 go 0.00 -> 1.00 in every run, as they did under 17 without the cue. Lost against 17:
    #  ModifyRegistration-QueryHealthData-CancelRegistration-2-2#4 (17: 1.00 in every run; 19: 0.33 in runs
    #  0 and 1). Its last turn gives the appointment id together with a patient name, a date and a doctor,
    #  which are AppointmentRegistration's three parameters; under runs 0 and 1 the agent calls
    #  AppointmentRegistration(patient_name="Olivia Davis", date="October 10th", doctor_name="Dr. Smith")
    #  in 4 of 6 episodes, under 17's docs, whose CancelRegistration doc names no other tool, in 0 of 9.
    #  Run 2, whose AppointmentRegistration doc marks its parameters required and types the date
    #  "str (YYYY-MM-DD)", keeps it at 1.00. AppointmentRegistration-level-1-1#0: 17's run 1 candidate
    #  solved it (1.00), 19's run 1 kept a candidate that does not (0.00); run 2 solves it under both.
    #  A cue that names the other tool can draw the 0.5B agent to it where a request also fits that
    #  tool's parameters; on one task, 4 episodes, the evidence is thin.
    #  Measured, fininfo native (9515a27c9d4f3e74 under 19, 8 min): the same 2 DocumentQA test tasks, TS
    #  0.0 for both (TC 83.3 -> 94.4), for the reason fininfo-17 gives.
    #  Measured, health 1.5B native (1892a81772fddb15 under 19, re-optimized whole on the new machine, whose
    #  warehouse holds no candidates of 17's runs; optimization runs of 16.1, 17.9 and 13.9 min, the command
    #  57 min): the three runs select the doc sets 17's runs selected on the earlier machine (b6d16546,
    #  93beaf20, ff7aaf3e; a doc set's id hashes its docs), so the evaluation reuses all 312 archived
    #  episodes and the result is 17's: TS OG 81.0, DC 91.3, +10.3 pp [-1.6, +28.6], McNemar 2/0, MDE
    #  22.5. Why: 19 changes a month-day value that reads either way round (health's requests give whole
    #  dates) and the guidance of a tool the agent confuses with another; the 1.5B agent's band tools
    #  (AppointmentRegistration, QueryHealthData, RecordHealthData) are not confused, and
    #  CancelRegistration, whose doc carries the cue for the 0.5B agent, lies above the band (TS0 1.00).
    "compare-api-bank-19": (
        3700,
        6.7,
        AGENTS_TABLE,
    ),
    # 20: compare-api-bank-19's five commands under DocsChisel 20 (a confused tool's cue states the
    #     parameter that tells its requests apart without naming the other tool). Why: under 19 the 0.5B
    #     native agent lost ModifyRegistration-QueryHealthData-CancelRegistration-2-2#4 against 17 by
    #     calling AppointmentRegistration, the tool CancelRegistration's cue names. A paired check of
    #     19's run-0 doc set against the same doc set with the cue "Use this tool for requests that give
    #     appointment_id." (`docschisel eval --against`, T = 0.7, 6 seeds, the health tasks of the
    #     registration tools): optimization tasks 69.4 -> 72.2 % (18 tasks), validation 44.4 -> 50.0 % (3),
    #     test 71.2 -> 80.3 % (11; both ModifyRegistration-...-CancelRegistration test tasks 0.67 -> 1.00),
    #     and with no cue at all 77.3 % on the test tasks. The test-task check informed this revision, so
    #     its health 0.5B native result is not independent of it; the optimization and validation tasks
    #     point the same way, by less. Order: health 0.5B native (~55 min), then finance + information
    #     native and the 1.5B native agent (~10 min each: their tools are not confused, so their
    #     candidates should be 19's, whose episodes this machine stores), text-mode finance + information
    #     (~55 min), text-mode health (~3 h,
    #     its headroom profile already stored); ~3,700 episodes, ~6 h with `--workers 2`, over two or
    #     three sessions on a machine that keeps its warehouse.
    #  Measured, health 0.5B native (83f882a6e8dba9e2 under 20; optimization runs of 5.4, 1.9 and 5.2
    #  min, since the other tools' candidates and episodes are 19's, stored here; the command 20 min): TS
    #  OG 48.1, DC 63.8 (runs 65.4, 61.7, 64.2): +15.6 pp [+4.5, +28.0], McNemar 6/0 p 0.031, MDE 17.2,
    #  +32.5 % relative, Mann-Whitney p 0.015; guard +8.3 pp (ModifyRegistration-EmergencyKnowledge-2-1#4
    #  lost to SymptomSearch, as under every revision). Against 19 (58.0, 58.0, 64.2): ModifyRegistration-
    #  QueryHealthData-CancelRegistration-2-2#4 is 1.00 in every run (19: 0.33 in runs 0 and 1), with
    #  CancelRegistration's guidance "Use this tool for requests that give appointment_id." in every run
    #  (and ModifyRegistration's too in run 2). Against 17 (64.2, 70.4, 70.4): run 1 keeps an
    #  AppointmentRegistration doc under which AppointmentRegistration-level-1-1#0 stays 0.00 (17's run 1
    #  solved it), and RecordHealthData-level-1-2#0 is 0.33 in runs 1 and 2 of both 19 and 20.
    #  Finance + information native and the 1.5B native agent: every candidate and episode is 19's, the
    #  doc sets are 19's (the 1.5B's are also 17's), and so are the results (0.0 = 0.0 on 2 test tasks;
    #  91.3 vs 81.0).
    #  Measured, text-mode finance + information (cfa5fe66fb766317 under 20; optimization runs of 2.8, 2.0
    #  and 2.8 min, the command 14 min): TS OG 37.5, DC 30.6 (runs 31.2, 25.0, 35.4): -6.9 pp [-19.4,
    #  +7.6], McNemar p 0.63, MDE 20.5; TC 52.1 -> 36.8; guard +2.8 pp, no task lost. Against 19 (31.2,
    #  31.3, 43.8) the doc sets differ in QueryBalance's doc alone (its cue "Use this tool for requests
    #  that give token."; in runs 1 and 2 its description or usage example differs too, the later
    #  iterations having run on the changed cue). Every doc is in the text prompt, so a changed line draws
    #  every episode's sample anew; the tasks that moved most are OpenBankAccount's
    #  (OpenBankAccount-level-1-1#0: 1.00 -> 0.33 in run 2, where the agent answers without a call in 2 of
    #  3 episodes). Neither cue stops the 0.5B text agent
    #  from calling QueryBalance with OpenBankAccount's account, password and name: 13 such calls in 19's
    #  144 episodes, 16 in 20's; episodes without a call, 19 and 17. The description still says "Use this
    #  tool, not OpenBankAccount" where the FD refinement fires. With 3 samples per task and runs 10-13 pp
    #  apart, this comparison cannot tell 17, 18, 19 and 20 apart (-6.2, -4.9, -2.1, -6.9).
    #  Measured, text-mode health (47e3ab0028cf837e under 20; optimization runs of 21.6, 21.1 and 29.2
    #  min over two sessions, the evaluation 5 min, since run 1's doc set is an earlier revision's and its
    #  episodes are stored): TS OG 11.6, DC 15.9 (runs 15.9, 13.0, 18.8), +4.3 pp [-3.4, +12.1], McNemar
    #  p 1.0, MDE 11.5: 17's mean to the decimal (13.0, 13.0, 21.7), 2/1 tasks flipped between them. Guard
    #  -11.1 pp: ModifyRegistration-EmergencyKnowledge-level-2-1#4 is lost to SymptomSearch, as under 17.
    #  Why, from the traces: 12 of the 23 test tasks are solved under no doc set in any episode (the
    #  floor 17 measured: the request's words written as parameters). The example value "nausea" that 17's
    #  SymptomSearch docs put into other tools' calls (11 episodes in each of runs 0 and 1) is in 2 and 3
    #  episodes of runs 0 and 2. ModifyRegistration-level-1-2#0 goes 0.33 -> 1.00 in run 2, whose
    #  ModifyRegistration doc has the cue "Use this tool for requests that give new_appointment_date or
    #  new_appointment_doctor." and a description naming RecordHealthData alone; under run 0's, whose
    #  description says "Use this tool, not AppointmentRegistration or RecordHealthData", it is 0.33, and
    #  one miss calls AppointmentRegistration with the appointment_id: the FD line draws the tool it names,
    #  as the guidance cue did before 20 (one episode: a lead, not a measurement). SymptomSearch-
    #  AppointmentRegistration-level-2-1#2 drops 1.00 -> 0.33 / 0.67: the agent records the symptom with
    #  RecordHealthData, or passes the doc's topic field as an argument (domain="health").
    #  Pooled over the three agents, DocsChisel 20 now holds 17's 82 units: OG 40.2, DC 47.0, +6.8 pp
    #  [+0.3, +13.6], McNemar 12/5, p 0.14, MDE 8.8 (+16.8 %).
    "compare-api-bank-20": (
        3700,
        6.0,
        [AGENTS_TABLE[2], AGENTS_TABLE[4], AGENTS_TABLE[3], AGENTS_TABLE[0], AGENTS_TABLE[1]],
    ),
    # text-1.5b: the text-rendered docs' comparison (health-text, fininfo-17's second command) with
    #     Qwen2.5-Coder-1.5B as the target agent. Why: the 0.5B text agent sits on a floor (health TS 11.6 %,
    #     12 of 23 test tasks never solved) and the 1.5B native agent above the band for most tools; the
    #     stronger agent reading prose docs is where the band should hold the most tools, and its units
    #     (a third (task, agent) pairing of the same test tasks) take the pooled test past 100. Each
    #     command's headroom profile decides its tools; health first (the larger test set). Plan: profiles
    #     ~110 episodes each; DC 3 runs x ~250 and evaluation ~300 per command, if 3-4 tools enter the band;
    #     ~2,300 episodes at ~10-15 s (Qwen 1.5B, ~3x the 0.5B's time per call, text mode's longer prompt)
    #     on two actors: ~6-8 h over three sessions, resumable.
    #  Measured so far, health under DocsChisel 20 (b885e17ced5b1e6d): the profile (~140 new episodes,
    #  ~3.7 s each on two actors, 17 min) puts 7 of health's 8 tools in the band (QueryRegistration, TS0
    #  0.96, above it): AppointmentRegistration 0.53 val / 0.48 opt, CancelRegistration 0.13 / 0.43,
    #  EmergencyKnowledge 0.25 / 0.22, ModifyRegistration 0.58 / 0.71, QueryHealthData 0.42 / 0.33,
    #  RecordHealthData 0.33 / 0.28, SymptomSearch 0.42 / 0.78; 35 test tasks, so this command alone takes
    #  the pooled units from 82 to 117. Optimization run 0 took 52.4 min (doc set fb889e4df6b5226b, 6 of 7
    #  tools changed, ModifyRegistration's original kept): ~3.5 h for the command, over two sessions.
    #  Measured, health (b885e17ced5b1e6d under 20; optimization runs of 52.4 min, 27.0 min in this
    #  session after three tools in the last, and 53.6 min; the evaluation, 504 episodes, 30 min): TS OG 36.2, DC 41.6 (runs 41.0, 41.9,
    #  41.9): +5.4 pp [-2.5, +13.7], McNemar 4/2, p 0.69, MDE 12.0; +14.9 % relative, Mann-Whitney p 0.22;
    #  guard +7.9 pp, no task lost. Run 2 kept the original for 5 of 7 tools (no candidate beat it on
    #  validation); runs 0 and 1 changed 6 of 7. Why, from the traces: 8 of the 35 test
    #  tasks are solved under no doc set in any episode. Two are RecordHealthData's level-1 tasks, whose
    #  health_data is a list of {name, value} records: the agent writes [110, 70, 90], a list holding one
    #  string, or extra parameters (heart_rate=...) under every doc set, although the original parameter
    #  description shows the format and DC's usage examples show its structure as a placeholder. Four are
    #  ModifyRegistration-EmergencyKnowledge tasks whose emergency look-up the agent sends to SymptomSearch
    #  (43 such calls, the first failure reason among the never-solved): the two tools take the very same
    #  parameter (symptom), and EmergencyKnowledge's cue "Use this tool for requests that give symptom"
    #  fits SymptomSearch's requests too. Gained: CancelRegistration-level-1-3#0 and CancelRegistration-
    #  RecordHealthData-QueryRegistration-level-2-2#0 (0.00 -> 1.00 in runs 0 and 1), AppointmentRegistration-
    #  level-1-1#0 and SymptomSearch-AppointmentRegistration-level-2-1#2 (0.33 -> 0.78 each). Lost:
    #  ModifyRegistration-level-1-3#0 (1.00 -> 0.33 and 0.67 in runs 0 and 1), where the agent looks the
    #  booking up with QueryRegistration first and the one step allowed is spent. Pooled over the four
    #  agents DocsChisel 20 now holds 117 units (51 tasks): OG 39.0, DC 45.4, +6.4 pp [+0.5, +12.8],
    #  McNemar 16/7, p 0.093, MDE 7.1 (+16.3 %).
    #  Measured, finance + information (7eb2be388b3c1949 under 20; profile ~20 min over two starts, optimization runs of
    #  23.5, 26.4 and 13.4 min, evaluation 264 episodes ~11 min): 6 tools in the band
    #  (GetUserToken, QueryBalance, DocumentQA, ImageCaption, SearchEngine, SendEmail), 10 test tasks.
    #  TS OG 66.7, DC 63.3 (runs 60.0, 66.7, 63.3): -3.3 pp [-8.9, +2.2], McNemar p 1.0, MDE 8.1; guard
    #  +0.9 pp. Why, from the traces: 4 of the 10 test tasks are solved in every episode under every doc
    #  set and DocumentQA-level-1-1#4 in none (the agent looks "customer support" up with Wiki or
    #  SearchEngine, or answers from the dialogue). The rest move by one sample of three: the agent fetches
    #  a token the dialogue already holds (GetUserToken again instead of QueryBalance) or opens an account
    #  instead of querying the balance, under the original and DC docs alike; GetUserToken and QueryBalance
    #  kept their original docs in two of the three runs, since no candidate beat the original on their
    #  two validation tasks. Pooled over the four agents 20 now holds 127 units (55 tasks): OG 41.2, DC
    #  46.8, +5.6 pp [+0.1, +11.7], McNemar 16/7, p 0.093, MDE 6.6 (+13.6 %).
    "compare-api-bank-text-1.5b": (
        2300,
        7.0,
        [
            HEALTH_MISUSE + f" --doc-mode text --model {Q15}",
            FININFO_MISUSE + f" --doc-mode text --model {Q15}",
        ],
    ),
    # 21: the agents table's commands and the 1.5B text agent's under DocsChisel 21 (a confused tool's cue
    #     also sets it apart from every tool of its domain taking the cued values: CancelRegistration's
    #     "requests that give appointment_id and no new_appointment_date or new_appointment_doctor"; no
    #     routing sentence names the confused tool; beside a tool taking the very same values the cue
    #     stays). Why: under 20 the 0.5B native agent's CancelRegistration and ModifyRegistration carry the
    #     same cue (appointment_id), and text-mode finance's QueryBalance description still says "Use this
    #     tool, not OpenBankAccount". Paired check before this plan (`docschisel eval --against`, the
    #     1.5B text agent's health doc sets under 20 rewritten by 21's rules, T = 0.7, 2 seeds, the
    #     optimization and validation tasks of the tools whose docs change): run 0's docs 35.2 = 35.2 % (54
    #     episodes; that version also dropped EmergencyKnowledge's cue, and QueryRegistration-
    #     EmergencyKnowledge-level-2-4#2 went 2/2 -> 0/2 to SymptomSearch, hence the third rule), 12.5 =
    #     12.5 % (8); run 1's 27.8 -> 24.1 % (54), 25.0 -> 0.0 % (8); run 2's 22.2 -> 25.9 % (54), 0.0 -> 12.5 % (8);
    #     over runs 1 and 2 (the rules as built) 27 = 27 of 108 and 2 -> 1 of 16. The tasks that moved fail on
    #     RecordHealthData's health_data structure or on the EmergencyKnowledge / SymptomSearch choice,
    #     which 21 does not change there: in text mode any changed line redraws every sample, and 2
    #     seeds cannot tell that from an effect. On the agent whose confusions 21 targets (0.5B native
    #     health) the check is this step's own command: with g10 below every episode is new, so a
    #     hand-applied edit saves nothing over a real 21 optimization run.
    #  Grammar g10 lands with 21. Under g9 a text-mode agent could not write a list of records: its
    #  action_input was a free object bounded from itself, so a list inside an argument held scalars only,
    #  and RecordHealthData's health_data = [{"name": ..., "value": ...}] came out as [120, 80] or
    #  [":{", "name"] (the 1.5B text agent's two never-solved RecordHealthData tasks, and the failures
    #  of every RecordHealthData step); its only way through was the whole list as one string. A 21
    #  usage example that shows the record list the request maps to (the same tasks' calls, the 20 doc
    #  set otherwise unchanged, 9 optimization tasks x 6 seeds at T = 0.7) made that worse under g9:
    #  14.8 -> 0.0 % (8 -> 0 of 54), since the agent then began `[{` and the grammar forced a scalar. Under
    #  g10 the same tasks and seeds: original docs 66.7 %, 20's doc set 53.7 %, with the record example
    #  59.3 % (validation, 2 tasks x 6: 50.0 / 50.0 / 50.0 %). 20's loss is CancelRegistration-
    #  RecordHealthData-QueryRegistration-level-2-1#2 and -2-2#2 (original 0.50 and 1.00, 20 0.00 and
    #  0.00): under 20's docs the agent repeats the dialogue's earlier CancelRegistration instead of
    #  recording, a regression the optimization could not see because under g9 those steps failed under
    #  every doc set. The first command's profile under g10 (183 episodes, the same tasks and seeds as
    #  20's) has every tool's TS0 as under g9 but RecordHealthData's: 0.18 -> 0.61 over its 33 episodes,
    #  56.3 % in all against 48.6 %: the same seeds draw the same replies wherever no argument nests.
    #  g10 changes every local agent's identity (core.llm.model_identity), so each command profiles and
    #  evaluates OG anew (~250 episodes more per command; a native agent's replies are the same as under
    #  g9, since no native tool schema here has an object without properties). Order: the 1.5B text agent's
    #  health first (where g10 lifts the floor and the record example applies), then 0.5B native health
    #  (21's CancelRegistration / ModifyRegistration cue), then the rest. ~6,700 episodes, ~13 h with
    #  two actors, over five sessions, resumable.
    #  Measured, command 0 (cd27fc170deb7cdd, 1.5B text health, 21 + g10; profile 183 episodes,
    #  optimization run 0 over two sessions, runs 1 and 2 of 52.0 and 47.6 min, evaluation 504 episodes
    #  ~25 min on two actors): TS OG 52.4 (36.2 under g9), DC 57.8 (runs 57.1, 60.0, 56.2): +5.4 pp
    #  [-1.6, +13.3], McNemar p 0.38, MDE 11.2; +10.3 % relative, Mann-Whitney p 0.16; guard +3.2 pp, no
    #  task lost. Run 0 changed 7 of 7 tools, run 1 6, run 2 2 (no candidate beat the original on
    #  validation for the other 5). Why, from the traces: gained AppointmentRegistration-level-1-1#0
    #  (0.33 -> 1.00 in every run; OG looks the booking up with QueryRegistration),
    #  CancelRegistration-level-1-3#0 (0.33 -> 0.89, the same look-up) and
    #  CancelRegistration-RecordHealthData-QueryRegistration-level-2-2#0 (0.00 -> 0.78: under OG the
    #  agent passes new_appointment_date or patient_name to CancelRegistration); 20's loss there (the
    #  repeated CancelRegistration) is not seen. Lost ModifyRegistration-EmergencyKnowledge-level-2- 1#4
    #  (0.67 -> 0.22): the agent answers in prose or calls SymptomSearch, under run 2's docs too, where
    #  EmergencyKnowledge kept its original doc - in text mode a changed line elsewhere redraws the
    #  sample. 6 tasks never solved: the emergency look-ups sent to SymptomSearch (32 calls) or with the
    #  user's word ("fatigued", which the tool does not know), and CancelRegistration called with
    #  patient_name, date and doctor_name beside the id under every doc set, although DC's IC says
    #  "Always pass appointment_id" and quotes the rejection of patient_name. g10 lifted the
    #  RecordHealthData level-1 tasks from 0 to 0.67 under OG already.
    #  Measured, command 1 (decd623ab293bb80, 0.5B native health, 21 + g10; optimization runs of 18.9
    #  (resumed after a restart), 13.6 and 13.4 min, 468 episodes run, 58 min from the resume on two
    #  actors): TS OG 48.1 (the 20 row's 44.8 was under g9, on 29 tasks of two comparisons), DC 63.8
    #  (runs 67.9, 60.5, 63.0): +15.6 pp [+4.5, +28.4], McNemar 6/0, p 0.031, MDE 17.5;
    #  +32.5 % relative, Mann-Whitney p 0.014; guard +2.8 pp, no task lost. Why, from the traces: gained
    #  CancelRegistration-level-1-3#0 and -RecordHealthData-QueryRegistration-level-2-2#0 (0.00 -> 1.00)
    #  and -2-1#0 (0.33 -> 0.78): under OG the agent books the appointment the user names
    #  (AppointmentRegistration(patient_name="Olivia Davis", ...) -> "already registered"); 21's
    #  AppointmentRegistration guidance ("It takes no appointment_id: when the request gives one, call
    #  CancelRegistration or ModifyRegistration instead") and its "not for what CancelRegistration or
    #  ModifyRegistration does" move it to CancelRegistration(appointment_id) in every run. Gained
    #  RecordHealthData-level-1-2#0 (0.00 -> 0.78): OG sends no health_data or "10:30 am"; DC's refined
    #  parameter types give the record list and "%Y-%m-%d %H:%M:%S". 4 tasks never solved:
    #  ModifyRegistration-level-1-3#0 and -1-4#0 ("change it to October 12th with Dr. Lee", with the
    #  appointment id) still go to AppointmentRegistration with an invented patient ("John Doe") under
    #  every doc set: the same AppointmentRegistration guidance, and run 1's ModifyRegistration guidance
    #  ("requests that give appointment_id together with new_appointment_date or
    #  new_appointment_doctor"), do not move a request that names a date and a doctor away from booking.
    #  Measured, command 2 (c987adebdb0029fd, 0.5B text finance + information, 21 + g10; optimization
    #  runs of 16.3, 12.9 and 14.0 min, 336 episodes run, 61 min on two actors): 7 tools in the band, 16
    #  test tasks. TS OG 41.7, DC 40.3 (runs 39.6, 41.7, 39.6): -1.4 pp [-12.5, +8.3], McNemar 0/1, p 1.0,
    #  MDE 15.5: flat, and too few tasks to see less than 15 pp; TC 56.2 -> 48.6, as the first call named
    #  the gold tool in 68.8 % of OG's episodes and 59.0 % of DC's (OpenBankAccount 6.2 -> 10.4 %,
    #  Dictionary 2.1 -> 6.2 %, no call 8.3 -> 9.7 %): every misplaced OpenBankAccount call is on a
    #  QueryBalance task whose dialogue opened an account earlier, and DC's OpenBankAccount guidance
    #  quotes a request that gives a username and password, as those dialogues do. Guard +0.9 pp, one task
    #  lost (QueryBalance-QueryStock-OpenBankAccount-GetUserToken-level-2-1#4, QueryStock called for
    #  QueryBalance). Why, from the traces: the one majority flip, QueryHistoryToday-Calculator-level-2-3#0
    #  (1.00 -> 0.33), is the agent sending date="1903" (the user's last line) or calling Dictionary with
    #  "April 21st" in 6 of the 9 DC episodes (runs 0/3, 1/3, 2/3 solved); the gain the runs share, QueryBalance-QueryStock-
    #  OpenBankAccount-GetUserToken-level-2-2#6 (0.00 -> 0.33), is OpenBankAccount given the username as
    #  account where OG gives the user's name. 3 tasks never solved: DocumentQA-level-1-1#4 and -1-4#4 (the
    #  agent asks the earlier turn's question of the document, or calls nothing) and QueryStock-
    #  OpenBankAccount-QueryBalance-GetUserToken-level-2-1#5 (after GetUserToken the agent repeats the
    #  dialogue's OpenBankAccount or QueryStock instead of QueryBalance(token)): the 0.5B text agent acts
    #  on an earlier turn of the dialogue, which no field of the tool it should call reaches.
    #  Measured, command 3 (ed5f12ff6505d4c3, 0.5B text health, 21 + g10; optimization runs of 36.6, 35.5
    #  and 32.3 min, 420 evaluation episodes): 4 tools in the band (CancelRegistration,
    #  ModifyRegistration, RecordHealthData, SymptomSearch; AppointmentRegistration, EmergencyKnowledge,
    #  QueryHealthData and QueryRegistration below it), 23 test tasks. TS OG 23.2, DC 35.3 (runs 33.3,
    #  36.2, 36.2): +12.1 pp [-1.9, +26.6], McNemar 7/2, p 0.18, MDE 20.9; +52.1 % relative, Mann-Whitney
    #  p 0.013. Guard -9.3 pp [-19.4, 0.0]: ModifyRegistration-EmergencyKnowledge-level-2-1#4 lost
    #  (SymptomSearch called for EmergencyKnowledge). Why, from the traces: the gains are arguments, not
    #  routing. CancelRegistration-level-1-3#0 (0.00 -> 0.78): OG passes doctor_name, date and patient_name
    #  beside appointment_id ("invalid parameter name"), DC's calls pass appointment_id alone in 7 of 9;
    #  RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-2#0 (0.00 -> 0.56): OG writes
    #  "2023-04-03T10:00:00" or start_time/end_time, DC "2023-04-03 10:00:00"; SymptomSearch-
    #  AppointmentRegistration-level-2-1#0 (0.00 -> 0.67): OG answers in prose, DC calls SymptomSearch in 2
    #  of 3 under every doc set. Routing got worse: on CancelRegistration tasks the agent called it in
    #  61.9 % of OG's episodes and 42.9 % of DC's, SymptomSearch drawing 20.6 % of DC's (OG none) - 9 and
    #  6 misplaced SymptomSearch calls of 69 under the two doc sets whose SymptomSearch description says
    #  "Call it whenever the user's request needs this; do not answer in prose instead", 4 under the one
    #  that does not (DocsChisel 22 drops that sentence). Lost: EmergencyKnowledge-ModifyRegistration-
    #  RecordHealthData-level-2-3#4 (1.00 -> 0.33), where the agent passes start_time and end_time
    #  (QueryHealthData's parameters) to RecordHealthData, whose constraints quote the error
    #  "invalid parameter name. parameter: start_time" without saying what to leave out (22 says it).
    #  9 tasks never solved; RecordHealthData is the 0.5B text agent's attractor there: it is called for
    #  ModifyRegistration in half the episodes under both (OG 9 of 18, DC 27 of 54), and no doc set moved it.
    "compare-api-bank-21": (
        6700,
        13.0,
        [
            HEALTH_MISUSE + f" --doc-mode text --model {Q15}",
            AGENTS_TABLE[2],
            AGENTS_TABLE[0],
            AGENTS_TABLE[1],
            AGENTS_TABLE[3],
            AGENTS_TABLE[4],
            FININFO_MISUSE + f" --doc-mode text --model {Q15}",
        ],
    ),
    # GEPA beside DocsChisel 21 under g10, on the native health agents (the peers table's DC-vs-GEPA rests
    # on 27 units: DocsChisel 20 against compare-api-bank-4's GEPA runs, both under g9). Each command is the agents table's health command
    # with GEPA added: its OG and DC runs are the same runs (content-hashed), so only GEPA's runs and its
    # evaluation are new. GEPA run s gets the target-agent episodes DC run s spent
    # (core.study.gepa_budget): 654, 495 and 531 for the 0.5B native agent (decd623ab293bb80's runs),
    # with Qwen 1.5B reflecting (the default optimizer model; DC's evidence engine calls no model). Plan:
    # 0.5B native, 1,680 budget episodes at ~3.5 s on two actors (~50 min) + ~25 reflection calls per run
    # at ~57 s (~70 min) + 81 test and 36 guard episodes: ~2.5 h; 1.5B native (after compare-api-bank-21's command 4, whose DC runs it
    # reuses), measured pace under DocsChisel 17: ~1.5 h per GEPA run, ~4.5 h + ~20 min evaluation.
    # ~3,600 episodes, ~7.5 h over three sessions, resumable (stored episodes and reflection calls replay).
    "compare-api-bank-21-gepa": (
        3600,
        7.5,
        [_with_gepa(AGENTS_TABLE[2]), _with_gepa(AGENTS_TABLE[3])],
    ),
    # 22: the agents table's commands under DocsChisel 22, each change drawn from 21's traces: a request
    #     quoted as a tool's only where no other tool's optimization dialogue holds the same user turn
    #     (0.5B text finance + information: OpenBankAccount called in balance dialogues in 15 of 144 DC
    #     episodes against 3 of 48 under OG, its guidance quoting the account-opening turn those dialogues
    #     hold too); a usage example shows a date the request states in words as the converted value (the
    #     1.5B text agent wrote "from March 5th" as "2023-03-05" or "2023-03-05T00:00:00" in all 12 of its
    #     calls; date-format errors ended 3.5-5.3 % of 21's DC episodes); constraints name the argument
    #     names the tool rejects (such calls ended 8.3 % of the 1.5B text agent's DC episodes, and 21's one
    #     lost 0.5B text health task is one); the description no longer says "call it whenever the user's
    #     request needs this" (the tool whose description said it drew other tools' requests: 11 of 81
    #     RecordHealthData episodes of the 0.5B native agent under the one doc set that said it, 3-5 under
    #     the others). Order: the agents the changes were drawn from first (0.5B text finance +
    #     information, 1.5B text health, 0.5B native health), then the rest. Each command is one
    #     session's work (0.5B: ~1.5-2 h on two actors; 1.5B: ~3 h); ~6,700 episodes, ~13 h, resumable.
    #  Measured, command 0 (c987adebdb0029fd, 0.5B text finance + information, 22 + g10; optimization runs of
    #  20.1, 14.2 and 12.8 min, 252 episodes run and 84 reused (OG's, from the archive), 65 min in all on two
    #  actors): the same 7 tools in the band and 16 test tasks as under 21. TS OG 41.7, DC 34.7 (runs 35.4,
    #  31.2, 37.5): -6.9 pp [-20.8, +2.8], McNemar 0/3, p 0.25, MDE 17.5; against 21 on the same tasks
    #  -5.6 pp [-13.9, +2.1], 0/2, p 0.50, MDE 12.1. Guard +2.8 pp, no task lost. Why, from the traces: the
    #  misplaced OpenBankAccount calls 22's first change aimed at fell back to OG's level (OpenBankAccount
    #  called on balance tasks in 6.9 % of DC's episodes, OG 6.2 %; under 21 it drew 10.4 % of first calls),
    #  but the reverse grew: QueryBalance called on account-opening tasks in 9.7 % against 4.2 %, 4, 2 and 0
    #  of 9 episodes under runs 0, 1 and 2 - run 0's QueryBalance doc says nothing about account or
    #  password, so the "leave out account and password" sentence of run 1 and the longer one of run 2 did
    #  not draw them. Lost QueryHistoryToday-Calculator-level-2-3#0 (1.00 -> 0.11, as under 21: 0.33):
    #  Dictionary(keyword="April 21st", year="1903") in 6 of 9 DC episodes, under runs 0 and 1 whose
    #  QueryHistoryToday and Dictionary docs are the original's - a text-mode agent redraws every sample
    #  when any line of the prompt changes, and OG's 3 of 3 on this task is one draw of 3. Lost
    #  OpenBankAccount-level-1-1#0 (0.67 -> 0.44, all under run 0: QueryBalance(token="abc123", ...)) and
    #  QueryStock-OpenBankAccount-level-2-1#0 (0.67 -> 0.44, no call or QueryBalance with the password).
    #  Run 2's OpenBankAccount constraints still quoted "invalid parameter name. parameter: username"
    #  beside "leave out current_year": the findings of the last plan named only current_year, the
    #  observed errors more. The next revision takes a guessed name from an observed error too; 22 keeps
    #  it as measured, so that every agent of its row runs the same rules.
    #  Measured, command 2 (decd623ab293bb80, 0.5B native health, 22 + g10; optimization runs of 17.6,
    #  14.4 and 17.3 min, 351 episodes run and 117 reused, 66 min in all on two actors): TS OG 48.1, DC 66.3
    #  (runs 69.1, 61.7, 67.9): +18.1 pp [+6.2, +31.3], McNemar 8/0, p 0.0078, MDE 19.0; +37.6 % relative,
    #  Mann-Whitney p 0.014 (21 on the same tasks: +15.6 pp, 6/0, p 0.031). Guard +2.8 pp, no task lost.
    #  Why, from the failure shares and traces: HAS_EXCEPTION fell from 17.3 to 4.9 % of episodes and
    #  AppointmentRegistration called for CancelRegistration from 9.9 to 2.5 %; RecordHealthData-
    #  AppointmentRegistration-EmergencyKnowledge-level-2-4#0 went 0.00 -> 0.89 (8 of 9 DC calls write
    #  time="2023-08-15 09:30:00" and the record list; the one failure wrote "09:30 AM"), from the
    #  parameter descriptions' format and structure. RecordHealthData's description no longer draws
    #  requests, but RecordHealthData called for QueryHealthData rose from 2.5 to 4.9 %. 5 tasks never
    #  solved, most of them ModifyRegistration requests booked with AppointmentRegistration (21 failures).
    "compare-api-bank-22": (
        6700,
        13.0,
        [
            AGENTS_TABLE[0],
            HEALTH_MISUSE + f" --doc-mode text --model {Q15}",
            AGENTS_TABLE[2],
            AGENTS_TABLE[1],
            AGENTS_TABLE[3],
            AGENTS_TABLE[4],
            FININFO_MISUSE + f" --doc-mode text --model {Q15}",
        ],
    ),
    # GEPA beside DocsChisel 22 on the 0.5B native health agent, the agent 22 moved most (+18.1 pp,
    # McNemar 8/0, decd623ab293bb80's 22 snapshot): the agents table's command with GEPA added, its OG and
    # DC runs the stored ones (content-hashed), so only GEPA's three runs (each given the target-agent
    # episodes of the DC run of the same seed, core.study.gepa_budget; Qwen 1.5B reflecting) and GEPA's
    # evaluation are new. Needs 22's DC runs in the warehouse with their doc sets (the archive keeps
    # outcomes only): run it in the session that ran compare-api-bank-22's command 2, or after it again.
    # Plan: ~1,500 budget episodes at ~3.5 s on two actors (~45 min) + ~25 reflection calls per run at
    # ~57 s (~70 min) + 81 test and 36 guard episodes: ~1,650 episodes, ~2.5 h, resumable while the
    # warehouse lasts (stored episodes and reflection calls replay).
    #  Measured (87bf6c5cea740be3, result 62c00391b0f67b3c; ~3.5 h of compute over four starts, the last
    #  from a checkout of 35253fb, the last commit under docschisel-22, on the warehouse holding 22's runs):
    #  GEPA's runs used 501, 495 and 552 budget episodes (DocsChisel's runs of the same seeds). TS OG 48.1
    #  (3 runs), GEPA 57.6 (runs 48.1-63.0), DC 66.3: DC vs GEPA +8.6 pp [+1.6, +16.0], McNemar 3/0, p 0.25,
    #  MDE 10.9; +15.0 % relative, Mann-Whitney p 0.010 (Holm 0.020). GEPA vs OG +9.5 pp. Guard: GEPA
    #  +4.6 pp, DC +2.8, neither lost a task. GEPA's docs are longer (179 doc tokens per tool against DC's
    #  131, OG's 102) and it spent 15,292 reflection tokens per tool. Why, from the traces: both fixed the
    #  cancellations booked as registrations (AppointmentRegistration for CancelRegistration 9.9 % of OG's
    #  episodes, 3.3 GEPA, 2.5 DC) and most of the RecordHealthData calls that raised (HAS_EXCEPTION 17.3 ->
    #  7.8 / 4.9); GEPA's rewritten AppointmentRegistration texts lost the date argument. Its run 1 rewrote
    #  the date parameter's description into a paragraph ("crucial for scheduling and management of
    #  appointments ... booked and canceled") and its description says to use the tool "to update an existing
    #  appointment"; on AppointmentRegistration-level-1-1#0 and RecordHealthData-AppointmentRegistration-
    #  QueryRegistration-level-2-2#2 the agent called AppointmentRegistration without date in all 6 of that
    #  doc set's episodes (MISS_INPUT_ARGUMENT 3.7 % of GEPA's episodes, 1.2 DC's). DC's doc sets mark the
    #  three parameters required and keep the original descriptions (PRF; 0.56 and 0.78 on those tasks
    #  against GEPA's 0.11 and 0.44). Neither fixed the reschedules booked with AppointmentRegistration
    #  (17.3 % OG, 12.3 GEPA, 12.8 DC).
    "compare-api-bank-22-gepa": (1650, 2.5, [_with_gepa(AGENTS_TABLE[2])]),
    # 23: the agents table's commands under DocsChisel 23 (22 + a guessed argument name taken from an
    #     observed error too: 22's run 2 for the 0.5B text finance + information agent told the agent to
    #     "leave out current_year" and still quoted "invalid parameter name. parameter: username"), with the
    #     original docs evaluated 9 times (--og-eval-runs 9, as many samples per task as DC's 3 x 3): under
    #     22 a text-mode agent's lost task was one draw of OG's three samples (QueryHistoryToday-Calculator-
    #     level-2-3#0, 3 of 3 under OG, docs unchanged in two of DC's runs). OG's runs 0-2 are stored;
    #     runs 3-8 are new (~6 x 39 test and guard episodes per command, ~8 min on two actors). Order: the
    #     agent the fix came from, the agent 22 moved most, then the rest. 0.5B commands ~1.3 h each on two
    #     actors, 1.5B ~3 h; ~8,300 episodes, ~14 h, resumable.
    #  Measured, command 0 (4e2a7c0de9e0616c, 0.5B text finance + information, 23 + g10; 25 min in all on
    #  two actors, most candidates' episodes stored under 22): the same 7 tools and 16 test tasks. TS OG
    #  42.4 on 9 runs (22's 3: 41.7), DC 29.2: -13.2 pp [-22.9, -3.5], McNemar 0/3, p 0.25, MDE 14.6 (17.5
    #  with OG on 3 runs); Mann-Whitney p 0.0014. Guard +1.9 pp, no task lost. Why, from the failure shares
    #  and traces: the two tools' confusion grew both ways (OpenBankAccount called for QueryBalance 9.0 ->
    #  13.9 % of episodes, QueryBalance for OpenBankAccount 2.8 -> 11.1 %). Every DC doc set's
    #  OpenBankAccount doc names QueryBalance twice ("It is not for what QueryBalance does"; "It takes no
    #  token: when the request gives one, call QueryBalance instead"), and on the account-opening tasks
    #  QueryBalance was the first call in 2 of 36 stored OG episodes, 14 of 54 DC episodes under 22 and 16
    #  of 54 under 23, while for every other pair of compared tools the other tool came first in 2.0 % of
    #  OG's and 2.2-2.6 % of DC's episodes (QueryBalance's own doc changed too, so this is not yet a
    #  clean contrast). 23's own change put token among the names to leave out
    #  ("leave out current_year, username and token"), and on the balance task QueryBalance-QueryStock-
    #  OpenBankAccount-GetUserToken-level-2-1#2 (OG 0.67, 22 0.78, 23 0.22) the agent passed token to
    #  OpenBankAccount in 6 of 9 DC episodes. Lost besides: the account-opening dialogue OpenBankAccount-
    #  QueryBalance-QueryStock-GetUserToken-level-2-2#0 (0.89 -> 0.44: an empty answer in 4 of 9) and
    #  QueryStock-OpenBankAccount-level-2-1#0 (0.78 -> 0.33, QueryBalance called with account and
    #  password in 4 of 9). What would help, not yet tested: a misused tool's doc that names neither
    #  the tool nor the values it is not for (20 found the same for a confused tool's guidance: naming the
    #  other tool drew requests to it), and constraints that say only which names the tool takes.
    #  Measured, command 1 (38a7f57167ecac88, 0.5B native health, 23 + g10; 10 min: DC's three doc sets
    #  are 22's, byte for byte - 23's change found no guessed name there 22 had missed - so only OG's runs 3-8
    #  were new, 234 episodes): TS OG 53.1 on 9 runs (44.4-59.3 per run; runs 0-2, 22's OG, 48.1), DC 66.3:
    #  +13.2 pp [+3.7, +23.5], McNemar 6/0, p 0.031, MDE 14.8 (19.0 on 3 OG runs); +24.8 % relative,
    #  Mann-Whitney p 0.0006. So 22's +18.1 pp was in part OG's low draw: two of its eight flips
    #  (CancelRegistration-RecordHealthData-QueryRegistration-level-2-1#0, ModifyRegistration-
    #  EmergencyKnowledge-level-2-3#0, OG 0.33 on 3 runs) are not flips on 9. The six that hold are the
    #  cancellations booked with AppointmentRegistration under OG (CancelRegistration-level-1-3#0 0.44 ->
    #  1.00) and the RecordHealthData calls that raised (HAS_EXCEPTION 15.2 -> 4.9 % of episodes).
    #  Measured, command 3 (fbc9a47228488f03, 0.5B native finance + information, 23 + g10; 9 min): the
    #  band holds DocumentQA, ImageCaption and SearchEngine, whose test tasks are 2 DocumentQA ones, and
    #  neither method solved either in any run (TS 0.0 both; TC 88.9 -> 94.4): no paired signal. DC
    #  changed DocumentQA's doc only (two of the three runs selected the same doc set). The regression
    #  guard is where it showed: -6.5 pp [-17.6, +2.8], 3 of 12 guard tasks lost (QueryHistoryToday-
    #  Calculator-level-2-3#0 to Dictionary calls, 6 of 9, as under 22's text agent). The agents table's
    #  23 row pools this with command 1: 29 units, +12.3 pp [+3.8, +22.2], 6/0, p 0.031, +24.8 %.
    "compare-api-bank-23": (
        8300,
        14.0,
        [
            AGENTS_TABLE[0] + OG_MATCHED,
            AGENTS_TABLE[2] + OG_MATCHED,
            AGENTS_TABLE[1] + OG_MATCHED,
            AGENTS_TABLE[4] + OG_MATCHED,
            AGENTS_TABLE[3] + OG_MATCHED,
            HEALTH_MISUSE + f" --doc-mode text --model {Q15}" + OG_MATCHED,
            FININFO_MISUSE + f" --doc-mode text --model {Q15}" + OG_MATCHED,
        ],
    ),
    # 24: DocsChisel 24 on the two 0.5B agents 23 moved most, either way (OG on 9 runs, stored under 23).
    #     23's text finance + information agent lost 13.2 pp where every selected OpenBankAccount doc named
    #     QueryBalance and the token ("It is not for what QueryBalance does"; "It takes no token: when the
    #     request gives one, call QueryBalance instead"; "leave out ... token"), and QueryBalance's named
    #     account and password; 24 writes none of that into a misused tool's doc and leaves out only guessed
    #     names no other tool takes. The native health agent's +13.2 pp came from formats and examples
    #     (none of its selected docs names another tool): it checks that 24 keeps that. Order: the agent
    #     the change is for, then the check. Per command 3 optimization runs (~12-20 min each on two
    #     actors; candidates 23 also made replay their episodes) + DC's evaluation (~3 x 39 test and guard
    #     episodes x 3 runs): ~1,200 episodes, ~2.2 h for both, resumable.
    #  Measured, command 0 (4e2a7c0de9e0616c, result 24e19c0579867dfb, 0.5B text finance + information,
    #  24 + g10; 28 min on two actors, 252 episodes run and 252 reused): the same 7 tools and 16 test
    #  tasks. TS OG 42.4 on 9 runs, DC 34.7 (23: 29.2): -7.6 pp [-17.4, +1.4], McNemar 0/2, p 0.50, MDE
    #  13.8; Mann-Whitney p 0.049. Guard -1.9 pp, one task lost. No selected OpenBankAccount doc names
    #  QueryBalance or the token any more, and the confusion shrank but did not go: OpenBankAccount called
    #  for QueryBalance in 11.1 % of DC's episodes (23: 13.9, OG 9.0), QueryBalance for OpenBankAccount
    #  6.2 % (23: 11.1, OG 2.8). The balance task QueryBalance-QueryStock-OpenBankAccount-GetUserToken-
    #  level-2-1#2 stays lost (OG 0.67, 23 0.22, 24 0.22): OpenBankAccount was called in 5 of 9 DC
    #  episodes, 2 with the token (23: 6) and 3 with values out of its own usage examples and quoted
    #  requests (account="123456", password="secret123"; "johndoe123"). Why, read from the traces: naming
    #  was one cause; the other is that OpenBankAccount's doc is now the longest and most inviting of the
    #  finance docs (two usage examples with concrete values, two quoted requests, "Call this tool when the
    #  user's latest request needs it, even after other tool calls"), and a small text-mode agent reaches
    #  for it on requests that share its words (username, password) and copies its values. What would
    #  help, not yet tested: a misused tool's doc that gains no usage example or request quote with values
    #  a misrouted request could copy, and no "even after other tool calls" sentence while it is misused.
    #  Against the earlier revisions on the same 16 tasks (RESULTS' revision table): 24 vs 23 +5.6 pp
    #  [+0.0, +12.5], 1/0; vs 22 +0.0; vs 21 -5.6 [-11.1, +1.4].
    #  Measured, command 1 (38a7f57167ecac88, result 9c9468a3d06c4560, 0.5B native health, 24 + g10; 49
    #  min, 351 episodes run): TS OG 53.1 on 9 runs, DC 66.3 (as under 23): +13.2 pp [+5.3, +22.2],
    #  McNemar 5/0, p 0.063, MDE 12.9; +24.8 %, Mann-Whitney p 0.0006. Guard -0.9 pp, none lost. 24 kept
    #  the native agent's gain, which came from formats, required flags and examples. Pooled with the text
    #  agent (agents table, 24 row): 43 units, +5.4 pp [-1.6, +12.9], 5/2, p 0.45.
    "compare-api-bank-24": (
        1200,
        2.2,
        [AGENTS_TABLE[0] + OG_MATCHED, AGENTS_TABLE[2] + OG_MATCHED],
    ),
    # WorkBench comparisons, for the >= 100 paired held-out tasks the API-Bank domains cannot give alone
    # (their headroom tools hold 40 test tasks). WorkBench's test split is 40 %: analytics 48, calendar
    # 44, email 36 tasks, of which the headroom tools' count. Qwen 0.5B solves ~35-40 % of analytics
    # (headroom) but ~0-4 % of calendar and email (their tools mostly fall below the band). The baseline
    # step's episodes say why: with ReAct, Qwen 0.5B calls a lookup before the write in 0 of 20
    # calendar, 1 of 20 CRM and 0 of 20 email test tasks, and writes an id copied from a lookup's doc
    # example instead ("00000000", "00000001", "12345678"); a parameter description that names the
    # lookup did not change that on 20 calendar tasks. There, the agent's chaining is the bottleneck, not
    # the docs: an SOP that does the lookup inside one call (sop-workbench-*) is the lever. OG, ET and
    # DC-evidence, 3 optimization x 3 evaluation runs, opt/val tasks capped at 8/4 per tool, 2 samples
    # per profiled task; one domain per command. Per domain, ~7 tools: profile ~170 episodes, DC ~3 x
    # (<= 4 tools x 5 iterations x 12 tasks x 2 samples, fewer as candidate doc sets repeat) ~1,400,
    # evaluation ~40 tasks x 7 doc sets x 3 runs ~840; ~2,400 episodes at ~35 s (up to 4 calls each):
    # ~23 h on one core per domain. Resumable across sessions (docs/results/runs/compare-workbench/).
    # The first WorkBench stage, on analytics alone: 1 optimization x 3 evaluation runs of OG, EasyTool
    # and DC-evidence (the later 3 x 3 stage reuses all of it, its run 0 is this run). Analytics' domain
    # TS (~40 % for Qwen 0.5B) comes from its conditional tasks whose condition is false: 40 of its 120
    # tasks have no gold call and pass when the agent writes nothing. The tasks with a gold call all
    # need create_plot, which Qwen 0.5B never got right (0 of 195 episodes: the field study's doc
    # variants and one paired check): it describes a chart in text, or calls create_plot with a wrong
    # end date (the gold ends "since ..." ranges yesterday, a convention no doc states) or value name.
    # Its mean call-level partial credit there was 0.16, at the edge of the headroom band's 0.15:
    # whether create_plot is optimized at all is decided by the profile on its opt/val tasks (the
    # comparison stops with "no tool ... in the headroom band" otherwise, keeping the profile's
    # episodes). Run it after the API-Bank stage 1, where DocsChisel has tools with headroom.
    # ~170 profile + <= ~480 DC + 48 test tasks x 3 methods x 3 runs = 432 evaluation episodes, plus
    # the regression guard (DocsChisel's candidates also judged on 4 no-call validation tasks x 2 samples
    # per iteration, <= 48; every method on <= 12 no-call test tasks x 3 runs, 108): ~1,240 episodes
    # at 30-40 s (Qwen 0.5B on WorkBench, measured in the field study: 2.7 calls per episode; a first
    # call whose prefix is cached takes 1-4 s, a later one 20-30 s, since it reads the ~1,700-token
    # observation the analytics tools return): ~10-14 h on one core, resumable.
    #  Measured: the profile (24 episodes, 12 opt/val tasks x 2 samples, ~25 min) found no tool in the
    #  band: create_plot TS⁰ 0.00 over 24 episodes, call-level partial credit 0.13 (< 0.15), so the
    #  comparison stops there. The band is the rule; the stress case below optimizes create_plot anyway.
    "compare-workbench-analytics": (
        1240,
        12.0,
        [
            "compare --benchmark workbench --domain analytics --methods og,et,dc --optimizer-model evidence "
            "--opt-runs 1 --eval-runs 3 --limit 0 --max-steps 4 --max-opt-tasks 8 --max-val-tasks 4 "
            "--profile-repeats 2 --curve-eval-runs 0 --no-memory-ablation" + LEGACY_SPLIT
        ],
    ),
    #  the same outside the band (`--headroom none`), a stress case reported as one: does stating the
    #  conventions the failures lacked (create_plot's `time_max` = yesterday, 72 of 106 gold calls) move
    #  an agent that never got a create_plot call right? Same budget as above.
    "compare-workbench-analytics-noband": (
        1220,
        12.0,
        [
            "compare --benchmark workbench --domain analytics --methods og,et,dc --optimizer-model evidence "
            "--opt-runs 1 --eval-runs 3 --limit 0 --max-steps 4 --max-opt-tasks 8 --max-val-tasks 4 "
            "--profile-repeats 2 --headroom none --curve-eval-runs 0 --no-memory-ablation" + LEGACY_SPLIT
        ],
    ),
    # WorkBench on the grouped split (the default `--split-grouping gold`), for paired tasks beyond
    # API-Bank's 27: OG and DC-evidence with the settings above. On the task-level split the profile put
    # analytics' create_plot below the band (TS⁰ 0, partial credit 0.13); this step profiles each domain
    # on the grouped split first (~12 opt/val tasks x 2 samples per tool at ~35 s: ~25 min per domain)
    # and stops a domain with no tool in the band, naming why; a domain with tools in the band goes on
    # (~10-14 h each, as above). Resumable; one domain per command.
    "compare-workbench-grouped": (
        3600,
        36.0,
        [
            f"compare --benchmark workbench --domain {d} --methods og,dc --optimizer-model evidence "
            "--opt-runs 3 --eval-runs 3 --limit 0 --max-steps 4 --max-opt-tasks 8 --max-val-tasks 4 "
            "--profile-repeats 2 --curve-eval-runs 0 --no-memory-ablation"
            for d in ("analytics", "calendar", "email")
        ],
    ),
    #  Measured, the profiles (2 samples per opt/val task; `--headroom` lets a tool below the TS band in
    #  when its call-level partial credit lies in it): no calendar or email tool has TS⁰ above 0.
    #  Calendar: create_event (partial credit ~0.48) and delete_event (~0.33) in, update_event (~0.14)
    #  out; email: delete_email (~0.45), forward_email (~0.33) and send_email (~0.50) in, reply_email
    #  (~0.05) out; 28 test tasks each. The agent writes without looking up first: delete_event with
    #  the id of a lookup's doc example ("00000000"), create_event with a made-up address
    #  ("sam@example.com") and, on "cancel my first meeting on December 7", create_event instead of
    #  delete_event. Calendar (a3706a84876a0585, 3 x 3; DC runs of 19.6, 33.1 and ~30 min): TS 0 % for OG
    #  and for every DC run, TC OG 71-86 %, DC 89-100 %: DC's delete_event usage line ("Use this tool,
    #  not calendar.create_event, for requests like: can you cancel my first meeting ...") brings the
    #  agent to the right tool, and its create_event parameter description ("look it up with
    #  company_directory.find_email_address first, never make one up") did not make it call the lookup.
    #  With TS 0 on every opt/val task, candidates were chosen by the partial-credit tie-break alone.
    "compare-workbench": (
        7200,
        70.0,
        [
            f"compare --benchmark workbench --domain {d} --methods og,et,dc --optimizer-model evidence "
            "--opt-runs 3 --eval-runs 3 --limit 0 --max-steps 4 --max-opt-tasks 8 --max-val-tasks 4 "
            "--profile-repeats 2 --curve-eval-runs 0 --no-memory-ablation" + LEGACY_SPLIT
            for d in ("analytics", "calendar", "email")
        ],
    ),
    # EvoSOP on WorkBench with the local model (the issue's offline experiment; Table 1, Figs. 2-4). The
    # paper's protocol: 25 training trajectories in 5 mini-batches of 5, 10 epochs (the last 5 only merge,
    # evaluate and review), the epoch with the best training TS kept, held-out test tasks at the end.
    # Training TS is the optimization split (seeded sample of 25), test a seeded 40. Episodes: 25 atomic +
    # <= 10 x 25 with SOPs (an epoch whose toolset did not change reuses its episodes) + 2 x 40 test; a
    # WorkBench episode with Qwen 0.5B takes ~35 s (up to 4 calls), one process per core.
    "sop-workbench-1": (
        355,
        3.5,
        [_sop("evolve", "--variant full --max-train-tasks 25 --max-test-tasks 40 --epochs 10 --seed 0")],
    ),
    #  the same run with Qwen 1.5B as the explorer: its trajectories on the 25 training tasks join the
    #  composer's material (the 0.5B agent solved 1 of 25 and shows almost no look-up-then-act routine);
    #  everything else uses the 0.5B target. Episodes: 25 explorer episodes at ~2-3 min (1.5B, up to 4
    #  calls) + the sop-workbench-1 budget minus what it reuses (epoch 0 and an unchanged toolset's epochs).
    "sop-workbench-explore": (
        380,
        4.5,
        [
            _sop(
                "evolve",
                f"--variant full --max-train-tasks 25 --max-test-tasks 40 --epochs 10 --seed 0 --explore-model {Q15}",
            )
        ],
    ),
    #  the same run with the composer's doc links (`--doc-links`): the lookup -> write routines the
    #  training tasks' gold writes need, linked through the lookups' docs, since the 0.5B target calls a
    #  lookup in almost no calendar or email task (baseline: 0 of 20 each with ReAct). On WorkBench's
    #  "rename the next X meeting" tasks the linked SOP reproduces the gold end state when it is called
    #  with the name and today's date (10 of 10); whether the 0.5B agent calls it so is what this
    #  measures. Episodes as sop-workbench-1 (its epoch 0 and atomic test episodes are reused), ~35 s
    #  each (a first SOP call adds a worker process start, < 1 s).
    "sop-workbench-doclinks": (
        330,
        3.2,
        [
            _sop(
                "evolve",
                "--variant full --doc-links --max-train-tasks 25 --max-test-tasks 40 --epochs 10 --seed 0",
            )
        ],
    ),
    #  an ablation beyond the paper (`--offer instead`): the doc-linked routines offered in place of the
    #  atomic writes they wrap (read-only lookups stay offered), since the 0.5B target invoked none of
    #  the SOPs offered beside the atomic tools (a 10-task calendar pilot: 0 invocations) and writes a
    #  copied id instead. The pilot first (10 training tasks, 3 epochs of which 2 construct, 20 test
    #  tasks: ~10 + <= 30 + 2 x 20 = ~80 episodes at ~35-50 s, ~1 h beside two other processes), then
    #  the paper's protocol as sop-workbench-doclinks (its atomic episodes are reused).
    "sop-workbench-instead-pilot": (
        80,
        1.0,
        [
            _sop(
                "evolve",
                "--variant full --doc-links --offer instead --max-train-tasks 10 --max-test-tasks 20 "
                "--epochs 3 --construct-epochs 2 --seed 0",
            )
        ],
    ),
    "sop-workbench-instead": (
        330,
        3.2,
        [
            _sop(
                "evolve",
                "--variant full --doc-links --offer instead --max-train-tasks 25 --max-test-tasks 40 "
                "--epochs 10 --seed 0",
            )
        ],
    ),
    #  uptake diagnostic (bench/sop_uptake.py): does the target call the doc-linked SOP for calendar's
    #  update_event at all, offered beside the write and instead of it, on 10 optimization-split tasks
    #  whose gold is that single write? Qwen 0.5B both offers (~20 episodes at ~20 s), Qwen 1.5B instead
    #  (~10 episodes at ~2-3 min); ~45 min on one core.
    #  Measured (0.5B): beside 0/10 episodes called the SOP (update_event x6, create_event x4), instead
    #  0/10 (create_event x9, search_events x1), TS 0 both. A 1.5B probe of the same SOP offered instead
    #  on 10 calendar rename tasks: 0/10, it called search_events with the new name or a wrong window as
    #  the query, got "No events found." and stopped: the lookup's arguments fail before any chaining.
    "sop-uptake": (
        30,
        0.75,
        [
            "python bench/sop_uptake.py --model local/qwen2.5-coder-0.5b --tasks 10 --warehouse data/sop-uptake.duckdb",
            "python bench/sop_uptake.py --model local/qwen2.5-coder-1.5b --tasks 10 --offer instead "
            "--warehouse data/sop-uptake.duckdb",
        ],
    ),
    #  the ablations over 3 seeds (the repeats): ReAct with atomic tools (every run's epoch 0 and atomic
    #  test), one-shot induction (ASI-like), EvoSOP without merger, without reviewer, full; email, calendar
    #  and multi_domain, 20 training tasks, 8 epochs (4 constructing), 60 held-out test tasks. Per seed:
    #  ~20 atomic + ~20 ASI + 3 x <= 160 training episodes (an epoch whose toolset did not change reuses
    #  its episodes) + 5 x 60 test episodes, ~840; 3 seeds ~2,500 episodes at ~35 s (Qwen 0.5B, up to 4
    #  calls): ~24 h on one core. Resumable across sessions (docs/results/runs/sop-workbench/); run it
    #  beside another step, one core each.
    #  Measured (3 seeds, 1.1 h: an epoch whose toolset offers no SOP to a task replays its episodes):
    #  the atomic agent solves 0, 0 and 1 of the 20 training tasks, so the epochs tie and selection picks
    #  nothing. The composer's 7 SOPs come from multi_domain and CRM/email gold sequences
    #  (update_customer_then_update_customer, create_task_then_create_event, create_event_then_send_email,
    #  forward_email_then_forward_email, ...); no calendar task is offered one, and no episode of any
    #  epoch or test run calls one (0 SOP events in the warehouse). Test TS on 60 tasks: atomic 2.8 +- 0.6 %,
    #  ASI 3.3 +- 1.0, no-merge 2.8, no-review 3.3, full 2.8 (1.7-2.0 tasks of 60); in seed 0's ASI run,
    #  55 of the 60 test tasks made exactly the atomic run's calls (all 30 multi_domain ones, offered
    #  the SOPs: seeded sampling barely moves when only the tool list grows). No headroom and no uptake;
    #  the sop-uptake step measures why the agent ignores SOPs.
    "sop-workbench-2": (
        2520,
        24.0,
        [
            _sop(
                "compare",
                "--variants asi,no-merge,no-review,full --seeds 0,1,2 --max-train-tasks 20 --max-test-tasks 60 "
                "--epochs 8 --construct-epochs 4",
                SOP_ABLATION_DOMAINS,
            )
        ],
    ),
}
STEPS: dict[str, list[str]] = {k: v[2] for k, v in PLAN.items()}
WAREHOUSE = {
    "retrieval": "data/retrieval.duckdb",
    "compare-api-bank-1": "data/compare-api-bank.duckdb",
    "compare-api-bank-1b": "data/compare-api-bank.duckdb",
    "compare-api-bank-2": "data/compare-api-bank.duckdb",
    "compare-api-bank-3": "data/compare-api-bank.duckdb",
    "compare-api-bank-3a": "data/compare-api-bank.duckdb",
    "compare-api-bank-4": "data/compare-api-bank.duckdb",
    "compare-api-bank-5": "data/compare-api-bank.duckdb",
    "compare-api-bank-6": "data/compare-api-bank.duckdb",
    "compare-api-bank-7": "data/compare-api-bank.duckdb",
    "compare-api-bank-8": "data/compare-api-bank.duckdb",
    "compare-api-bank-9": "data/compare-api-bank.duckdb",
    "compare-api-bank-10": "data/compare-api-bank.duckdb",
    "compare-api-bank-11": "data/compare-api-bank.duckdb",
    "compare-api-bank-12": "data/compare-api-bank.duckdb",
    "compare-api-bank-13": "data/compare-api-bank.duckdb",
    "compare-api-bank-14": "data/compare-api-bank.duckdb",
    "compare-api-bank-15": "data/compare-api-bank.duckdb",
    "compare-api-bank-16": "data/compare-api-bank.duckdb",
    "compare-api-bank-17": "data/compare-api-bank.duckdb",
    "compare-api-bank-health-1.5b": "data/compare-api-bank.duckdb",
    "compare-api-bank-health-1.5b-17": "data/compare-api-bank.duckdb",
    "compare-api-bank-health-multi": "data/compare-api-bank.duckdb",
    "compare-api-bank-health-text": "data/compare-api-bank.duckdb",
    "compare-api-bank-fininfo-17": "data/compare-api-bank.duckdb",
    "compare-api-bank-text-1.5b": "data/compare-api-bank.duckdb",
    "compare-api-bank-18": "data/compare-api-bank.duckdb",
    "compare-api-bank-19": "data/compare-api-bank.duckdb",
    "compare-api-bank-20": "data/compare-api-bank.duckdb",
    "compare-api-bank-21": "data/compare-api-bank.duckdb",
    "compare-api-bank-21-gepa": "data/compare-api-bank.duckdb",
    "compare-api-bank-22": "data/compare-api-bank.duckdb",
    "compare-api-bank-22-gepa": "data/compare-api-bank.duckdb",
    "compare-api-bank-23": "data/compare-api-bank.duckdb",
    "compare-api-bank-24": "data/compare-api-bank.duckdb",
    "attribute-api-bank": "data/compare-api-bank.duckdb",
    "compare-workbench": "data/compare-workbench.duckdb",
    "compare-workbench-grouped": "data/compare-workbench.duckdb",
    "compare-workbench-analytics": "data/compare-workbench.duckdb",
    "compare-workbench-analytics-noband": "data/compare-workbench.duckdb",
    "sop-workbench-1": "data/sop-workbench.duckdb",
    "sop-workbench-2": "data/sop-workbench.duckdb",
    "sop-workbench-explore": "data/sop-workbench.duckdb",
    "sop-workbench-doclinks": "data/sop-workbench.duckdb",
    "sop-workbench-instead-pilot": "data/sop-workbench.duckdb",
    "sop-workbench-instead": "data/sop-workbench.duckdb",
    "sop-uptake": "data/sop-uptake.duckdb",
    "dcllm-smoke": "data/dcllm-smoke.duckdb",
}


# the commands whose episodes can run on several local-model processes (`--executor ray -j N`)
PARALLEL = ("compare", "optimize", "sop evolve", "sop compare")


def commands(step: str, workers: int = 1) -> list[list[str]]:
    """Full argv of each command of a step (docschisel commands get the step's warehouse).

    With `workers` > 1 the commands that can spread their episodes over a local Ray instance get
    `--executor ray -j workers` (one local-model actor per worker). The executor is not part of any
    run's settings, so a step resumes the same runs whichever way it is run.
    """
    out = []
    for line in STEPS[step]:
        argv = shlex.split(line)
        if argv[0] == "python":
            out.append([sys.executable, *argv[1:]])
            continue
        cmd = [sys.executable, "-m", "core.cli.main", *argv, "--warehouse", WAREHOUSE[step]]
        if workers > 1 and (argv[0] in PARALLEL or " ".join(argv[:2]) in PARALLEL):
            cmd += ["--executor", "ray", "-j", str(workers)]
        out.append(cmd)
    return out


def warehouse_of(cmd: list[str]) -> str | None:
    """The warehouse file a command writes (its --warehouse argument)."""
    return cmd[cmd.index("--warehouse") + 1] if "--warehouse" in cmd[:-1] else None


def _docschisel(*args: str) -> int:
    return subprocess.run([sys.executable, "-m", "core.cli.main", *args], cwd=ROOT).returncode


def archive(warehouse: str) -> int:
    """Keep a warehouse's runs and episode outcomes under docs/results/runs/<name>/."""
    if not (ROOT / warehouse).exists():
        return 0
    return _docschisel(
        "warehouse", "archive", "--to", str(RUNS_ARCHIVE / Path(warehouse).stem), "--warehouse", warehouse
    )


def restore(warehouse: str) -> int:
    """Put the archived runs of a warehouse back (nothing to do without an archive)."""
    folder = RUNS_ARCHIVE / Path(warehouse).stem
    if not (folder / "episodes.parquet").exists():
        return 0
    rc = _docschisel("warehouse", "restore", "--from", str(folder), "--warehouse", warehouse)
    return rc or register_compared_tasks(warehouse)


def register_compared_tasks(warehouse: str) -> int:
    """Load the tasks of the benchmarks the warehouse's comparisons ran on, from the data directory.

    Why: the archive keeps task ids, not the benchmark's content; the comparison report needs each
    task's gold calls to tell test tasks that repeat an optimization task's call apart. A benchmark
    that is not in the data directory is named and skipped (the report then leaves that part out).
    """
    sys.path.insert(0, str(ROOT))
    from core.benchmarks.registry import get_benchmark
    from core.warehouse import Warehouse

    wh = Warehouse(ROOT / warehouse)
    names = wh.query("SELECT DISTINCT spec->>'benchmark' AS b FROM comparisons WHERE status = 'finished'")
    for name in sorted(str(b) for b in names["b"] if b):
        try:
            bench = get_benchmark(name)
        except Exception as e:  # noqa: BLE001 - any missing or unreadable data only drops one report part
            print(f"{warehouse}: tasks of {name!r} not loaded ({e})", file=sys.stderr)
            continue
        wh.register_tasks(bench.name, bench.tasks())
    return 0


def experiment_warehouses() -> list[str]:
    """Every warehouse a step writes, or that has an archive."""
    named = {w for step in STEPS for cmd in commands(step) if (w := warehouse_of(cmd))}
    named |= {f"data/{d.name}.duckdb" for d in RUNS_ARCHIVE.glob("*") if d.is_dir()}
    return sorted(named)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("steps", nargs="*", help=f"some of: {', '.join(STEPS)}, or all")
    ap.add_argument("--list", action="store_true", help="print the steps and their commands")
    ap.add_argument("--archive", action="store_true", help="archive every experiment warehouse's runs")
    ap.add_argument("--restore", action="store_true", help="restore every archived experiment warehouse")
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="local-model processes per command (a local Ray instance; one per core; default 1)",
    )
    args = ap.parse_args(argv)
    if args.archive or args.restore:
        for w in experiment_warehouses():
            rc = (restore if args.restore else archive)(w)
            if rc:
                return rc
        return 0
    if args.list or not args.steps:
        for step in STEPS:
            episodes, hours = PLAN[step][:2]
            print(f"{step}: ~{episodes} episodes, ~{hours:g} h on 2 cores")
            for line, cmd in zip(STEPS[step], commands(step), strict=True):
                print(
                    "   ", line if line.startswith("python") else f"docschisel {line} --warehouse {cmd[-1]}"
                )
        return 0
    chosen = list(STEPS) if args.steps == ["all"] else args.steps
    unknown = [s for s in chosen if s not in STEPS]
    if unknown:
        ap.error(f"unknown step(s) {unknown}; steps are {', '.join(STEPS)}")
    for step in chosen:
        for cmd in commands(step, args.workers):
            t0 = time.time()
            wh = warehouse_of(cmd)
            if wh and restore(wh):
                return 1
            print(f"{time.strftime('%H:%M:%S')} [{step}] {' '.join(cmd[1:])}", flush=True)
            done = subprocess.run(cmd)
            if wh:  # what finished is kept, also when the command failed or was interrupted
                archive(wh)
            if done.returncode != 0:
                print(f"[{step}] failed with exit code {done.returncode}", file=sys.stderr)
                return done.returncode
            print(f"[{step}] {time.time() - t0:.0f} s", flush=True)
    if args.steps == ["all"]:
        return subprocess.run(["make", "results"]).returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""KOPA-Bench over the simulated platforms: tasks, agents, three-axis grading, pass@k, contamination audit.

:mod:`.model` holds the data (:class:`Task`, :class:`Rollout`, :class:`Grade`);
:mod:`.grade` grades one rollout on the RESPONSE, ACTION and ENVIRONMENT axes,
each with the reason; :mod:`.report` aggregates grades into pass@1 and pass@k,
per axis, per domain and per split, as JSON and Markdown; :mod:`.audit` measures
contamination between a training corpus and the benchmark (the paper's four
measures and shared plans) and :mod:`.contamination` keeps benchmark tasks out
of training data (the ``exclude`` hook of synthesis and filtering), both over
the question and plan measures of :mod:`.overlap`. :mod:`.tasks` turns executed trajectories into tasks, :mod:`.build`
makes the shipped task set (``data/``) and :mod:`.suite` loads it, names the
agents and runs them; :mod:`.agents` holds the oracle and the two failure-mode
baselines, :mod:`.chat_agent` the model-backed ones (OpenAI-compatible server,
local transformers model).
"""

from kopa_replay.util import lazy_exports

# loaded on first use: importing the package (the command line does) stays cheap
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "kopa_replay.bench.audit": (
            "AuditItem",
            "audit",
            "items_from_sft_rows",
            "items_from_trajectories",
        ),
        "kopa_replay.bench.contamination": (
            "Decontaminator",
            "Match",
        ),
        "kopa_replay.bench.grade": (
            "MAX_NUMBERS",
            "MIN_ROUNDED_DIGITS",
            "NOT_STATE",
            "grade",
            "grade_action",
            "grade_all",
            "grade_environment",
            "grade_response",
            "parse_bool",
            "parse_items",
            "same_value",
        ),
        "kopa_replay.text.mentions": (
            "NumberMention",
            "parse_numbers",
        ),
        "kopa_replay.bench.model": (
            "AXES",
            "SPLITS",
            "AxisResult",
            "Call",
            "Grade",
            "RequiredAction",
            "Rollout",
            "Task",
        ),
        "kopa_replay.bench.overlap": ("plan_signature",),
        "kopa_replay.bench.report": (
            "COLUMNS",
            "axis_scores",
            "breakdown",
            "markdown",
            "pass_at_1",
            "pass_at_k",
            "report",
            "report_json",
        ),
        "kopa_replay.bench.suite": (
            "AGENTS",
            "BenchRun",
            "TaskSet",
            "load_task_set",
            "make_agent",
            "run_benchmark",
        ),
    },
)

__all__ = [
    "AGENTS",
    "BenchRun",
    "TaskSet",
    "load_task_set",
    "make_agent",
    "run_benchmark",
    "AXES",
    "AuditItem",
    "COLUMNS",
    "Decontaminator",
    "Match",
    "MAX_NUMBERS",
    "MIN_ROUNDED_DIGITS",
    "NOT_STATE",
    "SPLITS",
    "AxisResult",
    "Call",
    "Grade",
    "NumberMention",
    "RequiredAction",
    "Rollout",
    "Task",
    "audit",
    "axis_scores",
    "breakdown",
    "grade",
    "grade_action",
    "grade_all",
    "grade_environment",
    "grade_response",
    "items_from_sft_rows",
    "items_from_trajectories",
    "markdown",
    "parse_bool",
    "parse_items",
    "parse_numbers",
    "pass_at_1",
    "pass_at_k",
    "plan_signature",
    "report",
    "report_json",
    "same_value",
]

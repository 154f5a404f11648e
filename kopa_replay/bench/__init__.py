"""KOPA-Bench grading core: tasks and rollouts, three-axis grading, pass@1/pass@k reports.

:mod:`.model` holds the data (:class:`Task`, :class:`Rollout`, :class:`Grade`);
:mod:`.grade` grades one rollout on the RESPONSE, ACTION and ENVIRONMENT axes,
each with the reason; :mod:`.report` aggregates grades into pass@1 and pass@k,
per axis, per domain and per split, as JSON and Markdown; :mod:`.audit` measures
contamination between a training corpus and the benchmark (the paper's four
measures); :mod:`.tasks` turns synthesized trajectories into tasks and
:mod:`.agents` holds the oracle and the two failure-mode baselines. The shipped
task set, the model-backed agents and the ``bench`` commands are still to come
(issue 7).
"""

from kopa_replay.bench.audit import AuditItem, audit, items_from_sft_rows, items_from_trajectories
from kopa_replay.bench.grade import (MAX_NUMBERS, MIN_ROUNDED_DIGITS, NOT_STATE, NumberMention, grade, grade_action,
                                     grade_all, grade_environment, grade_response, parse_bool, parse_items,
                                     parse_numbers, same_value)
from kopa_replay.bench.model import AXES, SPLITS, AxisResult, Call, Grade, RequiredAction, Rollout, Task
from kopa_replay.bench.report import (COLUMNS, axis_scores, breakdown, markdown, pass_at_1, pass_at_k, report,
                                      report_json)

__all__ = ["AXES", "AuditItem", "COLUMNS", "MAX_NUMBERS", "MIN_ROUNDED_DIGITS", "NOT_STATE", "SPLITS", "AxisResult", "Call",
           "Grade", "NumberMention", "RequiredAction", "Rollout", "Task", "audit", "axis_scores", "breakdown", "grade",
           "grade_action", "grade_all", "grade_environment", "grade_response", "items_from_sft_rows", "items_from_trajectories", "markdown", "parse_bool",
           "parse_items", "parse_numbers", "pass_at_1", "pass_at_k", "report", "report_json", "same_value"]

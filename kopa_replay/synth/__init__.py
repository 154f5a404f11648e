"""EDGE Phase B, first half: verified links → executed trajectories with typed junctions → training data.

:func:`synthesize` walks the retained links of a pruned graph through a
:class:`~kopa_replay.env.ToolEnvironment` (:mod:`.walk`), typing each junction
by the number of distinct values it hands over (:mod:`.junction`) and
computing the answer from the executed outputs (:mod:`.answer`);
:func:`run_plan` re-runs a trajectory as a program, perturbed or reading every
page (:mod:`.plan`); :func:`corpus_stats` sets the corpus beside the paper's
figures (:mod:`.stats`); :mod:`.export` writes JSONL, SFT and GRPO rows.
"""

from kopa_replay.synth.export import grpo_rows, jsonl_text, read_jsonl, sft_rows, write_jsonl
from kopa_replay.synth.model import (ANSWER_KINDS, JUNCTION_KINDS, Answer, Junction, Reduction, Step,
                                     Trajectory)
from kopa_replay.synth.plan import Perturbation, PlanRun, candidate_values, run_plan
from kopa_replay.synth.stats import PAPER, corpus_stats, stats_table
from kopa_replay.synth.walk import PATTERNS, QuestionWriter, SynthConfig, SynthResult, synthesize, synthesize_report

__all__ = ["ANSWER_KINDS", "JUNCTION_KINDS", "PAPER", "PATTERNS", "Answer", "Junction", "Perturbation", "PlanRun",
           "QuestionWriter", "Reduction", "Step", "SynthConfig", "SynthResult", "Trajectory", "candidate_values",
           "corpus_stats", "grpo_rows", "jsonl_text", "read_jsonl", "run_plan", "sft_rows", "stats_table",
           "synthesize", "synthesize_report", "write_jsonl"]

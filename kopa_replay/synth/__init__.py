"""EDGE Phase B, first half: verified links → executed trajectories with typed junctions → training data.

:func:`synthesize` walks the retained links of a pruned graph through a
:class:`~kopa_replay.env.ToolEnvironment` (:mod:`.walk`), typing each junction
by the number of distinct values it hands over (:mod:`.junction`) and
computing the answer from the executed outputs (:mod:`.answer`);
:func:`run_plan` re-runs a trajectory as a program, perturbed or reading every
page (:mod:`.plan`); :func:`corpus_stats` sets the corpus beside the paper's
figures (:mod:`.stats`); :mod:`.export` writes JSONL, SFT and GRPO rows.
"""

from kopa_replay.util import lazy_exports

# loaded on first use: importing the package (the command line does) stays cheap
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "kopa_replay.synth.export": (
            "grpo_rows",
            "jsonl_text",
            "read_jsonl",
            "sft_rows",
            "write_jsonl",
        ),
        "kopa_replay.synth.model": (
            "ANSWER_KINDS",
            "JUNCTION_KINDS",
            "Answer",
            "Junction",
            "Reduction",
            "Step",
            "Trajectory",
        ),
        "kopa_replay.synth.plan": (
            "Perturbation",
            "PlanRun",
            "candidate_values",
            "run_plan",
        ),
        "kopa_replay.synth.stats": (
            "PAPER",
            "corpus_stats",
            "stats_table",
        ),
        "kopa_replay.synth.walk": (
            "PATTERNS",
            "QuestionWriter",
            "SynthConfig",
            "SynthResult",
            "synthesize",
            "synthesize_report",
        ),
    },
)

__all__ = [
    "ANSWER_KINDS",
    "JUNCTION_KINDS",
    "PAPER",
    "PATTERNS",
    "Answer",
    "Junction",
    "Perturbation",
    "PlanRun",
    "QuestionWriter",
    "Reduction",
    "Step",
    "SynthConfig",
    "SynthResult",
    "Trajectory",
    "candidate_values",
    "corpus_stats",
    "grpo_rows",
    "jsonl_text",
    "read_jsonl",
    "run_plan",
    "sft_rows",
    "stats_table",
    "synthesize",
    "synthesize_report",
    "write_jsonl",
]

"""EDGE's three filter stages over synthesized trajectories: rules → two judges → re-solve.

``run_filter(trajectories, catalog, env)`` (:mod:`.pipeline`) drops
non-reproducible, malformed and near-duplicate items (:mod:`.rules`); drops
items that are ungradable, disclose a handed value or the answer, have an
intermediate call that does not constrain the answer, or carry Han/kana in
the Korean question — only when every judge agrees (:mod:`.judges`, two
independent offline implementations over :mod:`kopa_replay.text` and the
perturbation evidence of :mod:`.perturb`; :mod:`.llm` for model judges); then
re-solves each kept item reading every page and replaces answers the
re-solution beats (:mod:`.resolve`). Every discard carries
``(trajectory_id, stage, check, detail)``. :mod:`.defects` injects labelled
defects to measure the filter, and :mod:`.adversary` does so written
independently of the filter's code (it imports none of its normalizers or
rules); :mod:`.recall` measures recall per kind and clean-item drop with either
(``kopa-replay filter-defects``). ``run_filter(..., exclude=f)`` first drops the
items that repeat a benchmark task (``f`` says which; see :mod:`.pipeline`).
"""

from kopa_replay.util import lazy_exports

# loaded on first use: importing the package (the command line does) stays cheap
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "kopa_replay.filter.judges": (
            "RegexJudge",
            "TokenJudge",
            "default_judges",
        ),
        "kopa_replay.filter.llm": ("LLMJudge",),
        "kopa_replay.filter.model": (
            "DECONTAMINATION_CHECK",
            "JUDGE_CHECKS",
            "RULE_CHECKS",
            "STAGES",
            "Case",
            "Discard",
            "FilterConfig",
            "FilterResult",
            "Judge",
            "Replacement",
            "Verdict",
        ),
        "kopa_replay.filter.pipeline": ("run_filter",),
    },
)

__all__ = [
    "DECONTAMINATION_CHECK",
    "JUDGE_CHECKS",
    "RULE_CHECKS",
    "STAGES",
    "Case",
    "Discard",
    "FilterConfig",
    "FilterResult",
    "Judge",
    "LLMJudge",
    "RegexJudge",
    "Replacement",
    "TokenJudge",
    "Verdict",
    "default_judges",
    "run_filter",
]

"""EDGE's three filter stages over synthesized trajectories: rules → two judges → re-solve.

``run_filter(trajectories, catalog, env)`` (:mod:`.pipeline`) drops
non-reproducible, malformed and near-duplicate items (:mod:`.rules`); drops
items that are ungradable, disclose a handed value or the answer, have an
intermediate call that does not constrain the answer, or carry Han/kana in
the Korean question — only when every judge agrees (:mod:`.judges`, two
independent offline implementations over :mod:`.normalize` and the
perturbation evidence of :mod:`.probe`; :mod:`.llm` for model judges); then
re-solves each kept item reading every page and replaces answers the
re-solution beats (:mod:`.resolve`). Every discard carries
``(trajectory_id, stage, check, detail)``. :mod:`.defects` injects labelled
defects to measure the filter, and :mod:`.adversary` does so written
independently of the filter's code (it imports none of its normalizers or
rules); :mod:`.recall` measures recall per kind and clean-item drop with either
(``kopa-replay filter-defects``). ``run_filter(..., exclude=f)`` first drops the
items that repeat a benchmark task (``f`` says which; see :mod:`.pipeline`).
"""

from kopa_replay.filter.judges import RegexJudge, TokenJudge, default_judges
from kopa_replay.filter.llm import LLMJudge
from kopa_replay.filter.model import (DECONTAMINATION_CHECK, JUDGE_CHECKS, RULE_CHECKS, STAGES, Case, Discard,
                                      FilterResult, Judge, Replacement, Verdict)
from kopa_replay.filter.pipeline import FilterConfig, run_filter

__all__ = ["DECONTAMINATION_CHECK", "JUDGE_CHECKS", "RULE_CHECKS", "STAGES", "Case", "Discard", "FilterConfig",
           "FilterResult", "Judge", "LLMJudge", "RegexJudge", "Replacement", "TokenJudge", "Verdict", "default_judges",
           "run_filter"]

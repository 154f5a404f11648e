"""A seeded defect injector, and the measurement it exists for: how much of each defect the filter catches.

From clean trajectories, :func:`inject_defects` makes labelled copies with one
defect each:

* ``leak`` — a value handed between calls, or the answer, written into the
  question in a varied form (``1,680``, ``1680.0``, ``2026-08-31``,
  ``2026년 8월 31일``, a code without its leading zeros or split by a space);
* ``wrong_script`` — Han or kana fragments in the Korean question (a word
  replaced by its Hanja, or a Japanese fragment inserted);
* ``duplicate`` — a near-copy of another item (same plan, lightly reworded
  question), under an id that sorts after the original's;
* ``unconstrained`` — the answer spec rewritten to count the *start* step's
  records, the stored answer recomputed by re-running the plan (so the item
  stays reproducible) and the question rewritten to ask for it: the chain's
  later calls still run, but no longer decide the answer. Only items where
  some junction can take another value its source offers *and still run* are
  used — elsewhere no perturbation can tell, for the filter or anyone.

:func:`measure` injects defects into the items it is given — taken as they
are, not pre-filtered: the synthesizer already keeps only chains whose every
intermediate call moves the answer, so any of them the filter drops counts
against it — runs the filter on the mixed pool and reports per kind the share
caught (by any check and by the intended one) and the share of untouched items
dropped, with the reasons.
Deterministic for a seed: one ``numpy.random.Generator``, items in id order.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kopa_replay.errors import KopaError, UsageError
from kopa_replay.filter.facts import secret_values
from kopa_replay.filter.model import Judge, Planner
from kopa_replay.synth.model import Trajectory
from kopa_replay.text.keys import date_key, number_key

__all__ = ["DEFECT_KINDS", "INTENDED_CHECK", "Injected", "inject_defects", "leak_forms", "defect_pool", "measure"]

DEFECT_KINDS = ("leak", "wrong_script", "duplicate", "unconstrained")
#: the check meant to catch each kind
INTENDED_CHECK = {
    "leak": "disclosed",
    "wrong_script": "wrong_script",
    "duplicate": "near_duplicate",
    "unconstrained": "unconstrained",
}


@dataclass(frozen=True)
class Injected:
    """One defective item: the trajectory, its defect kind, the clean item it came from, what was done."""

    trajectory: Trajectory
    kind: str
    source: str
    detail: str


# -- leak ---------------------------------------------------------------------------
def leak_forms(value: Any) -> list[str]:
    """Ways to write ``value`` that still disclose it (the filter must see through every one)."""
    text = str(value).strip()
    day = date_key(text)
    if day:
        y, m, d = day[2:6], day[6:8], day[8:10]
        return [f"{y}-{m}-{d}", f"{y}{m}{d}", f"{int(y)}년 {int(m)}월 {int(d)}일", f"{y}.{m}.{d}"]
    if text.isdigit() and text.startswith("0") and len(text.lstrip("0")) >= 4:
        half = len(text) // 2
        return [text, text.lstrip("0"), f"{text[:half]} {text[half:]}"]
    key = number_key(value)
    if key is not None and not isinstance(value, bool):
        number = float(key[2:])
        if number.is_integer():
            n = int(number)
            return [f"{n:,}", f"{n}.0", f"{n:,}원", str(n)]
        return [f"{number:,}", f"{key[2:]}0", f"{number:,}원"]
    if len(text) >= 4 and " " not in text:
        return [text, f"{text[: len(text) // 2]} {text[len(text) // 2 :]}"]
    return [text]


_LEAK_PHRASES = (
    lambda q, v: f"참고로 중간 결과는 {v}입니다. {q}",
    lambda q, v: f"{q} (힌트: {v})",
    lambda q, v: q.replace("그 결과의 ", f"그 결과({v})의 ", 1) if "그 결과의 " in q else f"({v}) {q}",
)


def _leak(item: Trajectory, rng: np.random.Generator, catalog: Any) -> tuple[Trajectory, str] | None:
    secrets = secret_values(item, catalog)
    if not secrets:
        return None
    handed = [s for s in secrets if s[0] == "handed"]
    # mostly a handed value (the paper's leak: it lets a step be skipped), sometimes the answer
    pool = handed if handed and rng.random() < 0.75 else secrets
    role, value = pool[int(rng.integers(len(pool)))]
    forms = leak_forms(value)
    shown = forms[int(rng.integers(len(forms)))]
    phrase = _LEAK_PHRASES[int(rng.integers(len(_LEAK_PHRASES)))]
    return dataclasses.replace(
        item, question=phrase(item.question, shown)
    ), f"{role} value {value!r} written as {shown!r}"


# -- wrong script ---------------------------------------------------------------------------
_HANJA = {
    "결과": "結果",
    "조회": "照會",
    "확인": "確認",
    "자료": "資料",
    "건수": "件數",
    "정보": "情報",
    "합계": "合計",
}
_FRAGMENTS = ("について", "データ", "の", "です", "ください", "的", "其中", "結果")


def _wrong_script(item: Trajectory, rng: np.random.Generator, catalog: Any) -> tuple[Trajectory, str]:
    question = item.question
    words = [w for w in sorted(_HANJA) if w in question]
    if words and rng.random() < 0.5:
        word = words[int(rng.integers(len(words)))]
        return dataclasses.replace(
            item, question=question.replace(word, _HANJA[word], 1)
        ), f"{word!r} replaced by {_HANJA[word]!r}"
    fragment = _FRAGMENTS[int(rng.integers(len(_FRAGMENTS)))]
    spaces = [i for i, ch in enumerate(question) if ch == " "] or [len(question)]
    at = spaces[int(rng.integers(len(spaces)))]
    return dataclasses.replace(
        item, question=f"{question[:at]} {fragment}{question[at:]}"
    ), f"{fragment!r} inserted at {at}"


# -- duplicate ------------------------------------------------------------------------------
_EDITS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("입니까→인가요", lambda q: q.replace("입니까?", "인가요?")),
    ("혹시 prefix", lambda q: "혹시 " + q),
    ("한 뒤", lambda q: q.replace("호출하고,", "호출한 뒤", 1)),
    ("spacing", lambda q: q.replace(", ", ",  ", 2)),
    ("drop comma", lambda q: q.replace(",", "", 1)),
)


def _duplicate(item: Trajectory, rng: np.random.Generator, catalog: Any) -> tuple[Trajectory, str]:
    picks = sorted(rng.choice(len(_EDITS), size=2, replace=False).tolist())
    question = item.question
    for i in picks:
        question = _EDITS[i][1](question)
    names = ", ".join(_EDITS[i][0] for i in picks)
    # the copy sorts after its original ("t0007" < "t0007-dup"), so near-duplicate removal keeps the original
    copy_ = dataclasses.replace(item, id=f"{item.id}-dup", question=question, meta=copy.deepcopy(item.meta))
    return copy_, f"near-copy of {item.id} ({names})"


# -- unconstrained --------------------------------------------------------------------------
def _perturbable(item: Trajectory, catalog: Any, env: Any, planner: Planner) -> bool:
    """Some junction takes some other value the source offers and the plan still runs to an answer.

    Elsewhere nobody — the filter or a person — could observe whether the answer depends on the call.
    """
    for k, junction in enumerate(item.junctions):
        width = max(1, len(junction.values))
        offered = list(planner.candidate_values(item, catalog, env, k))
        for i in range(0, len(offered), width):
            run = planner.run_plan(item, catalog, env, perturb=planner.Perturbation(k, tuple(offered[i : i + width])))  # type: ignore
            if run.ok:
                return True
    return False


def _unconstrained(
    item: Trajectory, catalog: Any, env: Any, planner: Planner, writer: Any
) -> tuple[Trajectory, str] | None:
    spec = {"op": "count", "group": 0}
    meta = {**copy.deepcopy(item.meta), "answer_spec": spec}
    draft = dataclasses.replace(item, meta=meta)
    try:
        run = planner.run_plan(draft, catalog, env)
    except KopaError:
        return None
    if not run.ok or run.answer is None:
        return None
    rewritten = dataclasses.replace(draft, answer=run.answer, state_digest=run.state_digest)
    if not _perturbable(rewritten, catalog, env, planner):
        return None  # no junction can be perturbed and still run: nobody could tell, so it is no test
    rewritten = dataclasses.replace(rewritten, question=writer.write(rewritten, catalog))
    return rewritten, f"answer now count(g0) = {run.answer.value!r}; the chain after the start no longer decides it"


# -- injection ------------------------------------------------------------------------------
def inject_defects(
    clean: Sequence[Trajectory],
    catalog: Any,
    env: Any,
    *,
    seed: int = 0,
    per_kind: int = 10,
    kinds: Sequence[str] = DEFECT_KINDS,
    planner: Planner | None = None,
    writer: Any = None,
) -> list[Injected]:
    """Up to ``per_kind`` defective copies per kind, each from a different clean item (sources are disjoint
    across kinds, so a pool can replace them). Items a kind cannot use (no secret to leak, no junction to
    perturb) are passed over, so a kind may get fewer."""
    unknown = [k for k in kinds if k not in DEFECT_KINDS]
    if unknown:
        raise UsageError(f"unknown defect kind(s) {unknown} (known: {', '.join(DEFECT_KINDS)})")
    if per_kind < 0:
        raise UsageError(f"per_kind must not be negative, not {per_kind}")
    if "unconstrained" in kinds and planner is None:
        from kopa_replay.filter.pipeline import default_planner

        planner = default_planner()
    if writer is None:
        from kopa_replay.synth.questions import TemplateWriter

        writer = TemplateWriter()
    rng = np.random.default_rng(seed)
    items = sorted(clean, key=lambda t: t.id)
    order = [items[int(i)] for i in rng.permutation(len(items))]
    used: set[str] = set()
    out: list[Injected] = []
    for kind in kinds:
        made = 0
        for item in order:
            if made >= per_kind:
                break
            if item.id in used:
                continue
            if kind == "leak":
                got = _leak(item, rng, catalog)
            elif kind == "wrong_script":
                got = _wrong_script(item, rng, catalog)
            elif kind == "duplicate":
                got = _duplicate(item, rng, catalog)
            else:
                assert planner is not None
                got = _unconstrained(item, catalog, env, planner, writer)
            if got is None:
                continue
            trajectory, detail = got
            used.add(item.id)
            out.append(Injected(trajectory, kind, item.id, detail))
            made += 1
    return out


def defect_pool(clean: Sequence[Trajectory], injected: Sequence[Injected]) -> tuple[list[Trajectory], dict[str, str]]:
    """The mixed pool and its labels (``id → kind`` or ``"clean"``): defective copies replace their
    sources, except duplicates, which join them."""
    replaced = {i.source: i for i in injected if i.kind != "duplicate"}
    pool: list[Trajectory] = []
    labels: dict[str, str] = {}
    for item in clean:
        if item.id in replaced:
            defect = replaced[item.id]
            pool.append(defect.trajectory)
            labels[defect.trajectory.id] = defect.kind
        else:
            pool.append(item)
            labels[item.id] = "clean"
    for defect in injected:
        if defect.kind == "duplicate":
            pool.append(defect.trajectory)
            labels[defect.trajectory.id] = "duplicate"
    return pool, labels


def measure(
    clean: Sequence[Trajectory],
    catalog: Any,
    env: Any,
    *,
    seed: int = 0,
    per_kind: int = 10,
    judges: Sequence[Judge] | None = None,
    planner: Planner | None = None,
    config: Any = None,
    injector: str = "seeded",
) -> dict[str, Any]:
    """Catch rate per defect kind and drop rate of clean items (see the module docstring).

    ``injector`` says who makes the defects: ``seeded`` (this module) or ``independent``
    (:mod:`kopa_replay.filter.adversary`, written without the filter's code, measured by
    :func:`kopa_replay.filter.recall.measure_independent`, each kind in its own pool).
    """
    from kopa_replay.filter.pipeline import default_planner, run_filter

    if injector not in ("seeded", "independent"):
        raise UsageError(f"unknown injector {injector!r} (known: seeded, independent)")
    planner = planner if planner is not None else default_planner()
    if injector == "independent":
        from kopa_replay.filter.recall import measure_independent

        return measure_independent(
            clean, catalog, env, seed=seed, per_kind=per_kind, judges=judges, planner=planner, config=config
        )
    injected = inject_defects(clean, catalog, env, seed=seed, per_kind=per_kind, planner=planner)
    pool, labels = defect_pool(clean, injected)
    result = run_filter(pool, catalog, env, judges, config=config, planner=planner)
    reasons = result.reasons()
    report: dict[str, Any] = {"injector": "seeded", "input": len(clean), "defects": {}, "seed": seed}
    for kind in DEFECT_KINDS:
        ids = [i for i, label in labels.items() if label == kind]
        caught = [i for i in ids if i in reasons]
        by_check: dict[str, int] = {}
        for i in caught:
            by_check[reasons[i].check] = by_check.get(reasons[i].check, 0) + 1
        intended = by_check.get(INTENDED_CHECK[kind], 0)
        report["defects"][kind] = {
            "injected": len(ids),
            "caught": len(caught),
            "rate": len(caught) / len(ids) if ids else None,
            "intended_rate": intended / len(ids) if ids else None,
            "by_check": dict(sorted(by_check.items())),
            "missed": sorted(set(ids) - set(caught)),
        }
    clean_ids = [i for i, label in labels.items() if label == "clean"]
    dropped = sorted(i for i in clean_ids if i in reasons)
    report["clean"] = {
        "items": len(clean_ids),
        "dropped": len(dropped),
        "rate": len(dropped) / len(clean_ids) if clean_ids else None,
        "dropped_reasons": [tuple(reasons[i]) for i in dropped],
    }
    report["filter"] = result.report
    return report

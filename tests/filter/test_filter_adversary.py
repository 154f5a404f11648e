"""The independent defect injector, its independence, the judges reading what it writes, the filter measured."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from filter_fixtures import FakePlanner, trajectory
from hypothesis import example, given
from hypothesis import strategies as st

from kopa_replay.cli import cli
from kopa_replay.errors import UsageError
from kopa_replay.filter import adversary
from kopa_replay.filter.adversary import (
    ADVERSARY_KINDS,
    INTENDED_CHECK,
    LEAK_KINDS,
    Secret,
    craft_defects,
    digit_forms,
    embedded_forms,
    hangul_numeral,
    mixed_numeral,
    paraphrase_question,
    rescaled_forms,
    rounded_forms,
    secrets_of,
)
from kopa_replay.filter.judges import RegexJudge, TokenJudge, _date_spans, _near, _number_phrases, _tokens
from kopa_replay.filter.model import Case
from kopa_replay.filter.recall import defects_table, measure_many
from kopa_replay.synth.model import Answer
from kopa_replay.text import discloses_number, korean_numbers, number_mentions

ROOT = Path(__file__).resolve().parents[2]
JUDGES = (RegexJudge(), TokenJudge())
COMPANIES = (
    "라이트론",
    "삼성전자",
    "카카오",
    "네이버",
    "현대차",
    "기아",
    "엘지",
    "한화",
    "롯데",
    "두산",
    "에스케이",
    "포스코",
    "셀트리온",
    "하이브",
    "크래프톤",
    "엔씨소프트",
    "넷마블",
    "쿠팡",
)


# -- hand-made items ---------------------------------------------------------------------------
def _item(i: int, answer: Answer, handed: str):
    name = COMPANIES[i]
    question = f"회사명 {name}으로 조회하고, 그 회사가 2026년 1월에 결정한 전환사채의 전환가액 대비 종가는 몇 %입니까?"
    return trajectory(
        f"t{i:04d}",
        answer=answer,
        handed=(handed,),
        values=(handed,),
        question=question,
        start_args={"corp_name": name},
        meta={"page_budget": 5, "fan_out_budget": 5, "answer_spec": {"op": "pct_change"}},
    )


def _clean() -> list:
    """Items whose secrets give every kind something: integers, decimals, big sums, codes, names."""
    answers = [
        Answer("number", 1680, 0.0, "value(g1[0].clpr)", "원"),
        Answer("number", 215.789, 0.01, "pct", "%"),
        Answer("number", 36601732, 0.0, "sum(g1.x)"),
        Answer("number", 11394.87, 0.01, "sum(g1.y)", "㎡"),
        Answer("text", "서현고등학교", 0.0, "argmax"),
        Answer("number", 26, 0.0, "count(g1)"),
    ]
    handed = ["00126380", "라이트론전자", "SJB8000369", "41110", "국토교통위원회", "20260610"]
    return [_item(i, answers[i % len(answers)], handed[(i * 5) % len(handed)]) for i in range(18)]


def _planner() -> FakePlanner:
    """Answers move with the handed value unless the spec reads only the start group."""

    def answer(t, perturb, complete):
        spec = t.meta.get("answer_spec", {})
        if spec.get("group") == 0:
            return Answer("number", 2, 0.0, "count(g0)")
        if perturb is None:
            return t.answer
        return dataclasses.replace(t.answer, value=t.answer.value + 1 if t.answer.kind == "number" else "다른 값")

    return FakePlanner(answer=answer, candidates={0: ("00999999", "00888888")})


def _craft(seed=0, per_kind=3, **kw):
    return craft_defects(_clean(), None, None, seed=seed, per_kind=per_kind, planner=_planner(), **kw)


def test_secrets_are_what_is_handed_and_answered_less_what_the_user_states():
    item = trajectory(
        start_args={"corp_name": "라이트론", "bgn_de": "20260101", "pageNo": "12"},
        handed=("00126380", "20260101"),
        values=("00126380",),
        answer=Answer("number", 215.78, 0.01, "pct", "%"),
    )
    found = {(s.role, str(s.value), s.shape) for s in secrets_of(item)}
    # 20260101 is handed on, but the user typed it as the start's bgn_de; the page number is no secret
    assert found == {("handed", "00126380", "code"), ("answer", "215.78", "quantity")}
    several = dataclasses.replace(
        item,
        junctions=[dataclasses.replace(item.junctions[0], values=({"cityCode": 12, "nodeId": "SJB8000016"},))],
        handed=(),
    )
    assert {str(s.value) for s in secrets_of(several)} == {"12", "SJB8000016", "215.78"}
    yes_no = dataclasses.replace(item, answer=Answer("bool", True))
    assert all(s.role == "handed" for s in secrets_of(yes_no))


def test_each_kind_is_injected_and_labelled():
    crafted = _craft()
    assert sorted({c.kind for c in crafted}) == sorted(ADVERSARY_KINDS)
    clean = {t.id: t for t in _clean()}
    for kind in ADVERSARY_KINDS:
        mine = [c for c in crafted if c.kind == kind]
        assert len(mine) == 3 and len({c.source for c in mine}) == 3, kind  # distinct sources within a kind
    for c in crafted:
        source = clean[c.source]
        assert c.detail and INTENDED_CHECK[c.kind]
        if c.kind in LEAK_KINDS:
            assert c.trajectory.id == source.id and c.trajectory.steps == source.steps
            question = c.trajectory.question
            # inside the question, not glued on at either end
            assert question != source.question and question.startswith("회사명 ") and question.endswith("입니까?")
        elif c.kind == "paraphrase":
            assert c.trajectory.id == f"{source.id}-re" and c.trajectory.id > source.id
            assert c.trajectory.question != source.question
            for mine, theirs in zip(c.trajectory.steps, source.steps):
                assert dict(mine.args) == dict(theirs.args)
                if len(theirs.args) > 1:
                    assert list(mine.args) != list(theirs.args)  # the key order is shuffled
        else:
            assert c.trajectory.meta["answer_spec"]["group"] == 0
            assert c.trajectory.answer.value == 2 and c.trajectory.question == source.question


@pytest.mark.parametrize(
    "kind, pattern",
    [
        ("numeral", r"천육백팔십|이십육|3660만|3,660만|삼천육백육십만|1,680|1만|만 "),
        ("unit", r"1\.68천|0\.168만|3,660\.1732만|1\.139487만|3\.6601732천만|0\.36601732억"),
        ("digits", r"[０-９]|\d \d|\d-\d|\d\u202f\d"),
        ("rounded", r"215\.\d+|21[56]\b|3,660만|1139\d"),
        ("embedded", r"서현고등학교|라이트론 ?전자|국토교통 ?위원회|SJB8000369"),
    ],
)
def test_a_leak_kind_writes_its_form(kind, pattern):
    for c in _craft(kinds=(kind,)):
        assert re.search(pattern, c.trajectory.question), (kind, c.detail, c.trajectory.question)


def test_injection_is_deterministic_for_a_seed():
    def view(crafted):
        return [(c.kind, c.source, c.trajectory.question, c.detail) for c in crafted]

    assert view(_craft(seed=3)) == view(_craft(seed=3))
    assert view(_craft(seed=3)) != view(_craft(seed=4))


def test_items_nobody_could_tell_apart_are_not_made_unconstrained():
    planner = _planner()
    planner.candidates = {}
    assert craft_defects(_clean(), None, None, kinds=("unconstrained",), planner=planner) == []


def test_bad_arguments_are_refused():
    with pytest.raises(UsageError, match="unknown defect kind"):
        _craft(kinds=("typo",))
    with pytest.raises(UsageError, match="per_kind"):
        _craft(per_kind=-1)


# -- independence --------------------------------------------------------------------------------
FORBIDDEN = (
    *(f"kopa_replay.filter.{name}" for name in ("rules", "judges", "facts", "perturb")),
    "kopa_replay.synth.facts",  # the facts the filter shares with synth
    # the filter's normalizers, in the foundation's text module: canonical keys and disclosure, numbers in
    # running text (Korean numerals), text forms. (text.numbers, one number written whole, is in reach:
    # synth reads platform numbers with as_number, as it did with env.normalize's.)
    *(f"kopa_replay.text.{name}" for name in ("keys", "mentions", "normalize")),
)


def _module_path(module: str) -> Path | None:
    base = ROOT / module.replace(".", "/")
    if (base / "__init__.py").exists():
        return base / "__init__.py"
    return base.with_suffix(".py") if base.with_suffix(".py").exists() else None


def _imports(module: str, path: Path) -> set[str]:
    """Every module an ``import`` anywhere in the file names (also inside functions), relative ones resolved."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            found |= {base, *(f"{base}.{alias.name}" for alias in node.names)}
    return {name for name in found if name.startswith("kopa_replay")}


def test_the_adversary_imports_nothing_from_the_filter():
    """Neither the module nor anything it imports (packages' __init__ included, but for kopa_replay.filter, the
    namespace it lives in) imports the filter's normalizers, rules, judges, facts (synth's shared ones too) or
    perturbation evidence."""
    path = Path(adversary.__file__)
    direct = _imports("kopa_replay.filter.adversary", path)
    assert not [m for m in direct if m.startswith("kopa_replay.filter")], direct
    seen: set[str] = set()
    todo, offenders = sorted(direct), []
    while todo:
        module = todo.pop()
        if module in seen or module == "kopa_replay.filter":
            continue
        seen.add(module)
        parts = module.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        file = _module_path(module)
        if file is None:
            continue  # a name imported from a module, not a module
        for name in _imports(module, file):
            if any(name == f or name.startswith(f"{f}.") for f in FORBIDDEN):
                offenders.append((module, name))
            todo.append(name)
    assert "kopa_replay.synth.plan" in seen  # the walk did follow the imports
    assert offenders == []


# -- the judges read what the adversary writes (separate implementations on both sides) ----------
def _regex_reads(text: str) -> set[Decimal]:
    return {value for value, _ in korean_numbers(text)}


def _token_reads(text: str) -> set[Decimal]:
    tokens = _tokens(text)
    _, used = _date_spans(tokens)
    return {Decimal(v.numerator) / Decimal(v.denominator) for v, _, _ in _number_phrases(tokens, used)}


def _both_vote_disclosed(question: str, answer_value) -> list[bool]:
    item = trajectory(
        question=question, handed=("x",), values=("x",), answer=Answer("number", answer_value, 0.0, "sum(g1.x)")
    )
    return [judge.judge("disclosed", Case(item)).discard for judge in JUDGES]


@given(st.integers(min_value=11, max_value=10**15), st.booleans(), st.booleans())
def test_a_hangul_numeral_reads_back_in_both_judges(n, spaced, one_man):
    written = hangul_numeral(n, spaced=spaced, one_man=one_man)
    if len(written.replace(" ", "")) < 2:
        return  # 십, 백, 천, 만: a single syllable is a word, not a number
    assert n in _regex_reads(written) and n in _token_reads(written), written


@given(st.integers(min_value=2000, max_value=10**15), st.booleans(), st.booleans())
def test_a_mixed_numeral_reads_back_in_both_judges(n, commas, spaced):
    written = mixed_numeral(n, commas=commas, spaced=spaced)
    if written is None:
        return
    assert n in _regex_reads(written) and n in _token_reads(written), written


@given(st.integers(min_value=1000, max_value=10**14), st.integers(min_value=0, max_value=4))
def test_a_rescaled_number_reads_back_in_both_judges(n, places):
    number = Decimal(n).scaleb(-places)
    for written in rescaled_forms(number, "원"):
        assert number in _regex_reads(written) and number in _token_reads(written), written


@given(st.integers(min_value=10**4, max_value=10**12), st.integers(min_value=1, max_value=4))
def test_a_rounding_that_keeps_three_digits_discloses_in_both_judges(n, places):
    number = Decimal(n).scaleb(-places)
    for written in rounded_forms(number):
        regex = discloses_number(str(number), number_mentions(written))
        tokens = _tokens(written)
        _, used = _date_spans(tokens)
        secret = Fraction(*number.as_integer_ratio())
        token = any(value == secret or _near(secret, value, res) for value, res, _ in _number_phrases(tokens, used))
        assert regex and token, written


@given(st.integers(min_value=1000, max_value=10**12), st.integers(min_value=0, max_value=2), st.integers(0, 2**32))
@example(n=192702011, places=1, seed=0)  # １９２７０２０１．１: its first eight digits read as a date
def test_digit_styles_disclose_in_both_judges(n, places, seed):
    number = Decimal(n).scaleb(-places)
    value = int(number) if places == 0 else float(number)
    for written in digit_forms(Secret("answer", value, "quantity"), np.random.default_rng(seed)):
        assert _both_vote_disclosed(f"회사명 라이트론으로 조회하면 {written} 정도인데, 몇 원입니까?", value) == [
            True,
            True,
        ], written


@pytest.mark.parametrize(
    "text",
    [
        "동작구 사직네거리 정류소에서 일반음식점 조회",
        "삼성전자 구로구 오산시 사업연도",
        "조회 결과는 만기 전 몇 건입니까",
    ],
)
def test_words_made_of_numeral_syllables_are_not_numbers(text):
    assert _regex_reads(text) == set() and _token_reads(text) == set()


@pytest.mark.parametrize(
    "written, value, disclosed",
    [
        ("천육백팔십", 1680, True),
        ("1,680", 1681, False),
        ("약 215.8", 215.789, True),
        ("216%", 215.789, True),
        ("200", 215.789, False),
        ("약 3,660만", 36601732, True),
        ("약 4천만", 36601732, False),
        ("0.125억", 12500000, True),
        ("1,260만", 12500001, False),
        ("만 이천", 12000, True),
        ("１，６８０", 1680, True),
        ("1,6 8 0", 1680, True),
        ("11 394.87", 11394.87, True),
    ],
)
def test_both_judges_agree_on_numbers_as_written(written, value, disclosed):
    votes = _both_vote_disclosed(f"회사명 라이트론으로 조회하고, 답이 {written}인데 몇 원입니까?", value)
    assert votes == [disclosed, disclosed]


@pytest.mark.parametrize("name", ["라이트론전자", "서현고등학교", "국토교통위원회", "SJB8000369"])
def test_an_embedded_name_is_disclosed(name):
    for written in embedded_forms(name, np.random.default_rng(0)):
        item = trajectory(
            question=f"회사명 라이트론으로 조회하고, {written} 몇 건입니까?", handed=(name,), values=(name,)
        )
        assert [judge.judge("disclosed", Case(item)).discard for judge in JUDGES] == [True, True], written


def test_a_paraphrase_rewords_and_says_how():
    question, edits = paraphrase_question(
        "A 1, B 2, C 3으로 조회하고, 결과는 모두 몇 건입니까?", np.random.default_rng(1)
    )
    assert question != "A 1, B 2, C 3으로 조회하고, 결과는 모두 몇 건입니까?" and edits


# -- measurement -----------------------------------------------------------------------------------
def test_measure_many_with_the_fake_planner(catalog):
    summary = measure_many(
        _clean(), catalog, None, injectors=("independent",), seeds=(0, 1), per_kind=2, planner=_planner()
    )
    entry = summary["injectors"]["independent"]
    for kind in ADVERSARY_KINDS:
        assert entry["defects"][kind]["injected"] == 4, kind
        assert entry["defects"][kind]["rate"] == 1.0, (kind, entry["defects"][kind])
        assert entry["defects"][kind]["intended_rate"] == 1.0, kind
    assert entry["clean"]["dropped"] == 0 and entry["clean"]["items"] > 0
    table = defects_table(summary)
    assert "numeral" in table and "clean items" in table
    with pytest.raises(UsageError, match="injectors"):
        measure_many(_clean(), catalog, None, injectors=("other",), planner=_planner())


@pytest.mark.slow
def test_the_filter_catches_independent_defects_on_synthesized_trajectories(catalog, synthesized):
    """≥ 95% of each independent kind caught (by its intended check), < 2% of clean items dropped (run with -s)."""
    from kopa_replay.env import ToolEnvironment

    with ToolEnvironment.open(catalog, source="sim") as env:
        summary = measure_many(synthesized, catalog, env, injectors=("independent",), seeds=(0, 1, 2), per_kind=15)
    print("\n" + defects_table(summary))
    entry = summary["injectors"]["independent"]
    for kind, row in entry["defects"].items():
        assert row["injected"] >= 10, (kind, row)  # rounded and unit need decimals or large figures to work on
        assert row["rate"] >= 0.95, (kind, row["missed"])
        assert row["intended_rate"] >= 0.95, (kind, row)
    assert entry["clean"]["items"] >= 200
    assert entry["clean"]["rate"] < 0.02, entry["clean"]


def test_the_cli_measures_both_injectors(tmp_path, synthesized):
    folder = tmp_path / "synth"
    folder.mkdir()
    (folder / "trajectories.jsonl").write_text(
        "".join(json.dumps(t.to_dict(), ensure_ascii=False, default=str) + "\n" for t in synthesized[:24]),
        encoding="utf-8",
    )
    runner = CliRunner()
    result = runner.invoke(cli, ["filter-defects", "--in", str(folder), "--per-kind", "1", "--seed", "5", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["seeds"] == [5] and set(summary["injectors"]) == {"seeded", "independent"}
    text = runner.invoke(
        cli, ["filter-defects", "--in", str(folder), "--per-kind", "1", "--seed", "5", "--injector", "independent"]
    )
    assert text.exit_code == 0 and "unconstrained" in text.output and "seeded" not in text.output
    missing = runner.invoke(cli, ["filter-defects", "--in", str(tmp_path / "nothing")])
    assert missing.exit_code == 1
    assert (
        missing.output.strip().splitlines()[-1]
        == f"Error: no trajectories at {tmp_path / 'nothing' / 'trajectories.jsonl'}: run `kopa-replay synth` first"
    )

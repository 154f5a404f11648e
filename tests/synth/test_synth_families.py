"""Corpus families: the file format and its errors, instances drawn from executed lookups, the graph's say, the
never-expose rule, determinism, and the shipped families' shape."""

from __future__ import annotations

import textwrap

import pytest

from kopa_replay.errors import UsageError
from kopa_replay.graph import Link
from kopa_replay.synth.families import (
    FamilyConfig,
    families_digest,
    load_families,
    synthesize_families,
    uncovered_links,
    vouched_bindings,
)

#: a city's high schools, one school's classes in a grade: one lookup, a match, a list per school
CLASSES = """\
domain: education
families:
- family: grade-classes
  who: '{school} 입학을 앞둔 학생의 학부모가 학년 규모를 알아보려고'
  questions:
  - '{school}의 {year}학년도 {grade}학년은 몇 개 반입니까?'
  - '{year}학년도에 {school} {grade}학년 학급이 몇 개인지 궁금해요.'
  slots:
    from: {tool: neis_school_info, args: {LCTN_SC_NM: 서울특별시, SCHUL_KND_SC_NM: 고등학교}}
    take: {school: SCHUL_NM}
    vary:
    - {year: '2026', grade: '1'}
    - {year: '2026', grade: '2'}
  instances: 6
  plan:
  - tool: neis_school_info
    args: {LCTN_SC_NM: 서울특별시, SCHUL_KND_SC_NM: 고등학교}
  - tool: neis_class_info
    bind: {ATPT_OFCDC_SC_CODE: ATPT_OFCDC_SC_CODE, SD_SCHUL_CODE: SD_SCHUL_CODE}
    reduce: {op: match, field: SCHUL_NM, value: '{school}'}
    args: {AY: '{year}', GRADE: '{grade}'}
  answer: {op: count, group: 1}
  unit: 개
"""

#: schools' meals in a month: a figure (school days) the same at every school, so the lookup decides nothing
MEALS = """\
domain: education
families:
- family: meal-days
  who: '{school}에 아이를 보내는 학부모가 급식이 나오는 날을 세어 보려고'
  questions:
  - '{school}에서 {month_says} 점심 급식이 나온 날은 며칠이었나요?'
  - '{month_says}에 {school} 점심 급식은 모두 며칠 나왔습니까?'
  slots:
    from: {tool: neis_school_info, args: {LCTN_SC_NM: 서울특별시, SCHUL_KND_SC_NM: 고등학교}}
    take: {school: SCHUL_NM, office: JU_ORG_NM}
    vary:
    - {month: '202606', month_says: 2026년 6월}
    - {month: '202607', month_says: 2026년 7월}
  instances: 6
  plan:
  - tool: neis_school_info
    args: {LCTN_SC_NM: 서울특별시, SCHUL_KND_SC_NM: 고등학교}
  - tool: neis_meal_service_diet_info
    bind: {ATPT_OFCDC_SC_CODE: ATPT_OFCDC_SC_CODE, SD_SCHUL_CODE: SD_SCHUL_CODE}
    reduce: {op: match, field: SCHUL_NM, value: '{school}'}
    args: {MLSV_YMD: '{month}', MMEAL_SC_CODE: '2'}
  answer: {op: count, group: 1}
  unit: 일
"""

LINKS = [
    Link(
        "neis_school_info",
        target,
        {"ATPT_OFCDC_SC_CODE": "ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE": "SD_SCHUL_CODE"},
        0.9,
    )
    for target in ("neis_meal_service_diet_info", "neis_class_info")
]


def _write(tmp_path, text: str, name: str = "education.yaml"):
    (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def _make(catalog, sim_env, tmp_path, text=CLASSES, links=LINKS, **config):
    """One family's instances (all on one platform: the share cap is lifted unless a test sets it)."""
    config.setdefault("max_platform_share", 1.0)
    families = load_families(_write(tmp_path, text))
    return synthesize_families(catalog, links, sim_env, FamilyConfig(**config), families)


# -- the file format --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace("  questions:\n", "  phrasings:\n"), "'questions' must list at least one phrasing"),
        (lambda t: t.replace("{school}의", "{schul}의"), "slots schul are used but neither taken nor varied"),
        (lambda t: t.replace("    take: {school: SCHUL_NM}\n", ""), "go together"),
        (lambda t: t.replace("instances: 6", "instances: 0"), "'instances' must be a whole number"),
        (lambda t: t.replace("    bind: {ATPT", "    binds: {ATPT"), "a later call needs 'bind'"),
        (lambda t: t + t[t.index("- family") :], "family names used twice: grade-classes"),
        (lambda t: t.replace("  who:", "  whom:"), "missing 'who'"),
        (lambda t: t.replace("  instances: 6\n", "  instances: 6\n  realtime: 'no'\n"), "'realtime' is true or false"),
        (lambda t: t.replace("  answer: {op: count, group: 1}", "  answer: count"), "'answer' must be a mapping"),
        (lambda t: t.replace("args: {AY: '{year}', GRADE: '{grade}'}", "args: [AY]"), "'args' must be a mapping"),
        (lambda t: t.replace("take: {school: SCHUL_NM}", "take: SCHUL_NM"), "'slots.take' must be a mapping"),
        (lambda t: t.replace("    - {year: '2026', grade: '2'}", "    - {year: '2026'}"), "every slots.vary item sets"),
    ],
)
def test_a_bad_family_file_is_refused_naming_file_and_family(tmp_path, edit, message):
    _write(tmp_path, edit(CLASSES))
    with pytest.raises(UsageError, match=message) as caught:
        load_families(tmp_path)
    assert "education.yaml" in str(caught.value) or "used twice" in message


def test_vary_as_a_mapping_is_every_combination_and_an_unknown_domain_is_named(tmp_path):
    text = CLASSES.replace(
        "    vary:\n    - {year: '2026', grade: '1'}\n    - {year: '2026', grade: '2'}\n",
        "    vary: {year: ['2025', '2026'], grade: ['1', '2', '3']}\n",
    )
    [family] = load_families(_write(tmp_path, text))
    assert len(family.vary) == 6 and {v["grade"] for v in family.vary} == {"1", "2", "3"}
    assert all(set(v) == {"year", "grade"} for v in family.vary)
    with pytest.raises(UsageError, match="no family file for educaton"):
        load_families(tmp_path, domains=("educaton",))


def test_a_lookup_that_gives_nothing_to_take_is_reported(catalog, sim_env, tmp_path):
    text = CLASSES.replace("take: {school: SCHUL_NM}", "take: {school: SCHOOL_NAME}")
    result = _make(catalog, sim_env, tmp_path, text, trajectories=2)
    assert result.trajectories == [] and "gave no candidate" in result.left_out["grade-classes"]


def test_bad_yaml_and_an_empty_directory_are_refused(tmp_path):
    with pytest.raises(UsageError, match="no family file"):
        load_families(tmp_path)
    _write(tmp_path, "families: [\n")
    with pytest.raises(UsageError, match="education.yaml: not valid YAML"):
        load_families(tmp_path)


# -- instances ----------------------------------------------------------------------------------------
def test_instances_come_from_the_lookup_each_phrasing_in_turn_and_answers_are_computed(catalog, sim_env, tmp_path):
    result = _make(catalog, sim_env, tmp_path, trajectories=6)
    made = result.trajectories
    assert len(made) == 6 and [t.id for t in made] == [f"t{k:04d}" for k in range(1, 7)]
    assert result.attempts >= 6 and sum(result.skipped.values()) == result.attempts - 6
    schools = [t.meta["slots"]["school"] for t in made]
    assert len(set(schools)) == 6  # each instance another school of the lookup's records
    for k, t in enumerate(made):
        assert t.meta["phrasing"] == k % 2 and t.meta["family"] == "grade-classes" and t.meta["domain"] == "education"
        assert t.meta["slots"]["school"] in t.question and t.meta["who"].startswith(t.meta["slots"]["school"])
        # the answer is what the classes call returned: one record a class
        assert t.answer.value == t.steps[1].records > 0 and t.answer.unit == "개"
        # the lookup's list is the junction's source: one school out of many (one-to-many, a match)
        junction = t.junctions[0]
        assert junction.kind == "sequential" and junction.reduction.op == "match"
        assert junction.cardinality == t.steps[0].records >= 2
        assert t.pattern == "chain"


def test_generation_is_deterministic_and_the_seed_reorders(catalog, sim_env, tmp_path):
    one = _make(catalog, sim_env, tmp_path, trajectories=4)
    two = _make(catalog, sim_env, tmp_path, trajectories=4)
    other = _make(catalog, sim_env, tmp_path, trajectories=4, seed=1)
    assert [t.to_dict() for t in one.trajectories] == [t.to_dict() for t in two.trajectories]
    assert [t.question for t in one.trajectories] != [t.question for t in other.trajectories]


def test_every_hand_off_must_be_vouched_for_by_a_retained_link(catalog, sim_env, tmp_path):
    families = load_families(_write(tmp_path, CLASSES))
    pruned = [Link(**{**link.__dict__, "pruned": True}) for link in LINKS]
    other_binding = [Link("neis_school_info", "neis_class_info", {"AY": "LOAD_DTM"}, 0.9)]
    assert uncovered_links(families[0], vouched_bindings(LINKS)) == []
    for links in (pruned, other_binding, []):
        assert uncovered_links(families[0], vouched_bindings(links))
        result = synthesize_families(
            catalog, links, sim_env, FamilyConfig(trajectories=3, max_platform_share=1.0), families
        )
        assert result.trajectories == [] and "no retained link vouches" in result.left_out["grade-classes"]


def test_real_time_and_excluded_platforms_are_left_out(catalog, sim_env, tmp_path):
    realtime = CLASSES.replace("  instances: 6\n", "  instances: 6\n  realtime: true\n")
    result = _make(catalog, sim_env, tmp_path, realtime, trajectories=2)
    assert result.trajectories == [] and "real-time" in result.left_out["grade-classes"]
    assert len(_make(catalog, sim_env, tmp_path, realtime, trajectories=2, realtime=True).trajectories) == 2
    # a family calling a tool the intent table marks real-time is real-time whatever its file says
    arrivals = CLASSES.replace("  - tool: neis_class_info", "  - tool: tago_get_sttn_accto_arvl_prearnge_info_list")
    result = _make(catalog, sim_env, tmp_path, arrivals, trajectories=2)
    assert result.trajectories == [] and "real-time" in result.left_out["grade-classes"]
    result = _make(catalog, sim_env, tmp_path, trajectories=2, exclude_platforms=("neis",))
    assert result.trajectories == [] and "excluded platform (neis)" in result.left_out["grade-classes"]


def test_a_question_that_states_a_handed_code_is_refused_with_the_reason(catalog, sim_env, tmp_path):
    leaky = CLASSES.replace("  questions:\n  - '{school}의", "  questions:\n  - '학교 {code}번 {school}의").replace(
        "take: {school: SCHUL_NM}", "take: {school: SCHUL_NM, code: SD_SCHUL_CODE}"
    )
    result = _make(catalog, sim_env, tmp_path, leaky, trajectories=4)
    assert result.skipped.get("question breaks the never-expose rule", 0) >= 1
    assert all("학교 " not in t.question for t in result.trajectories)  # only the other phrasing got through
    case = result.examples["question breaks the never-expose rule"][0]
    assert "a value a call returns" in case


def test_an_answer_no_hand_off_moves_is_not_kept(catalog, sim_env, tmp_path):
    """Every school has the same number of school days in a month: a month's count is the same whichever school
    the lookup hands on, so the lookup decides nothing and the instance goes (the filter's check, run here)."""
    result = _make(catalog, sim_env, tmp_path, MEALS, trajectories=3)
    assert result.skipped.get("answer not moved by a hand-off", 0) > 0
    assert "other values at junction 0" in result.examples["answer not moved by a hand-off"][0]
    unchecked = _make(catalog, sim_env, tmp_path, MEALS, trajectories=3, require_constrained=False)
    assert len(unchecked.trajectories) == 3 and "answer not moved by a hand-off" not in unchecked.skipped


def test_the_digest_follows_the_files(tmp_path):
    _write(tmp_path, CLASSES)
    before = families_digest(tmp_path)
    _write(tmp_path, CLASSES.replace("instances: 6", "instances: 5"))
    assert families_digest(tmp_path) != before


# -- the shipped families ------------------------------------------------------------------------------
def test_the_shipped_families_load_and_spread_over_the_non_held_out_domains(catalog):
    families = load_families()
    domains = {f.domain for f in families}
    assert domains == {"district", "education", "finance", "law", "politics", "traffic"}
    for family in families:
        platforms = {catalog.get(tool).platform for tool in family.tools}
        assert not platforms & {"dart", "krx", "seoul"}, family.name
        assert len(family.questions) >= 3, f"{family.name}: at least three phrasings"
        assert family.instances <= 30, family.name


def test_no_platform_takes_more_than_its_share_while_another_can_fill(catalog, sim_env, tmp_path):
    """Two families on NEIS, one on TAGO: the NEIS pair stops at its share while the TAGO one still gives; when it
    runs out, the share gives way to the number asked for."""
    tago = """\
    - family: city-routes
      who: '{city}로 이사 온 사람이 시내버스 노선이 얼마나 되는지 알아보려고'
      questions:
      - '{city} 시내버스 노선은 모두 몇 개인가요?'
      - '{city}에는 버스 노선이 몇 개나 있나요?'
      - '버스 노선 수가 궁금합니다. {city} 기준으로요.'
      slots:
        from: {tool: tago_get_cty_code_list, args: {}}
        take: {city: cityname}
      instances: 2
      plan:
      - tool: tago_get_cty_code_list
        args: {}
      - tool: tago_get_route_no_list
        bind: {cityCode: citycode}
        reduce: {op: match, field: cityname, value: '{city}'}
        args: {}
      answer: {op: count, group: 1}
      unit: 개
    """
    second = CLASSES.split("families:\n", 1)[1].replace("family: grade-classes", "family: grade-classes-2")
    second = second.replace("'2026'", "'2025'").replace("2026학년도", "2025학년도")
    text = CLASSES + second + textwrap.indent(textwrap.dedent(tago), "")
    links = [*LINKS, Link("tago_get_cty_code_list", "tago_get_route_no_list", {"cityCode": "citycode"}, 0.9)]
    # (the small world gives every city as many routes: the probe is not what this test is about)
    result = _make(
        catalog, sim_env, tmp_path, text, links, trajectories=6, max_platform_share=0.5, require_constrained=False
    )
    platforms = [t.steps[0].tool.split("_")[0] for t in result.trajectories]
    assert platforms.count("tago") == 2 and result.skipped["platform holds its share"] >= 1
    # the TAGO family ran out (2 instances): the NEIS families fill the rest beyond their share
    assert len(result.trajectories) == 6 and platforms.count("neis") == 4
    with pytest.raises(UsageError, match="max_platform_share must be in"):
        FamilyConfig(max_platform_share=0)


def test_the_walks_knobs_and_the_families_knobs_do_not_mix(tmp_path, cli_error):
    from click.testing import CliRunner

    from kopa_replay.cli import cli

    def error(*args):
        return cli_error(CliRunner().invoke(cli, ["synth", "--graph-dir", str(tmp_path), *args]))

    assert "--page-budget, --streams steer the random walk" in error("--page-budget", "3", "--streams", "attempt")
    assert "use them with --generator families" in error("--generator", "walk", "--realtime")
    assert "--writer template phrases walks" in error("--writer", "template")

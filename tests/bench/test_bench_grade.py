"""The three grading axes, each passing and failing with a reason that names the thing; the answer parser."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.bench import (
    AxisResult,
    Grade,
    RequiredAction,
    Rollout,
    Task,
    grade,
    grade_action,
    grade_all,
    grade_environment,
    grade_response,
    parse_bool,
    parse_items,
    parse_numbers,
    same_value,
)
from kopa_replay.bench.grade import call_window, first_unread
from kopa_replay.bench.report import markdown, report
from kopa_replay.env.environment import LogEntry
from kopa_replay.errors import UsageError
from kopa_replay.synth.model import Answer

LIGHTRON_PREMIUM = (1680 - 532) / 532 * 100  # 215.789…%, printed 215.78% in the paper
CORP = ("dart_corp_code", {"corp_name": "라이트론"})
PRICE = ("krx_stock_price", {"isuCd": "00126380", "basDd": "20260831"})
OFFER = ("dart_offering", {"corp_code": "00126380", "pageNo": 1})


def lightron(**changes: object) -> Task:
    fields: dict[str, object] = dict(
        id="lightron-premium",
        question_ko="라이트론의 종가는 공모가 대비 몇 퍼센트 높은가?",
        answer=Answer("number", LIGHTRON_PREMIUM, 0.01, "pct_change(close, offer)", "%"),
        required_actions=(
            RequiredAction("dart_corp_code", {"corp_name": "라이트론"}, "the code lookup was skipped"),
            RequiredAction("krx_stock_price", {"isuCd": "00126380"}),
        ),
        reference_calls=(CORP, PRICE, OFFER),
        reference_state_digest="ref-digest",
        platforms=("dart", "krx"),
        domain="finance",
        split="held_out",
        tags=("lookup",),
    )
    fields.update(changes)
    return Task(**fields)  # type: ignore[arg-type]


def rollout(
    answer: str | None = "215.79%",
    calls: tuple = (CORP, PRICE, OFFER),
    digest: str = "ref-digest",
    task_id: str = "lightron-premium",
    index: int = 0,
) -> Rollout:
    return Rollout(task_id, "oracle", index, answer, tuple((tool, dict(args), "ok") for tool, args in calls), digest)


def answer_task(kind: str, value: object, tolerance: float = 0.0, unit: str = "") -> Task:
    return lightron(id=f"t-{kind}", answer=Answer(kind, value, tolerance, "", unit))


# -- the answer parser ----------------------------------------------------------------
def _with_commas(value: Decimal, places: int) -> str:
    return f"{value:,.{places}f}"


@st.composite
def written_numbers(draw: st.DrawFn) -> tuple[Decimal, str]:
    """A number and one way a Korean answer might write it."""
    places = draw(st.integers(0, 3))
    units = draw(st.integers(-(10**9), 10**9))
    value = Decimal(units).scaleb(-places)
    style = draw(st.sampled_from(["plain", "commas", "won", "percent", "approx", "sentence", "man", "eok"]))
    if style == "man":  # 1.68만 = 16800
        value = value.copy_abs()
        return value * 10**4, f"{value:f}만"
    if style == "eok":  # 3억 2천만원 = 320000000
        eok, man = abs(units) % 1000, abs(units) % 10000
        text = f"{eok}억 {man}만원" if man else f"{eok}억원"
        return Decimal(eok * 10**8 + man * 10**4), text
    plain = f"{value:.{places}f}"
    commas = _with_commas(value, places)
    text = {
        "plain": plain,
        "commas": commas,
        "won": f"{commas}원",
        "percent": f"{plain}%",
        "approx": f"약 {plain}",
        "sentence": f"답은 {commas}건입니다.",
    }[style]
    return value, text


@settings(max_examples=300, deadline=None)
@given(written_numbers())
def test_any_written_number_parses_back(case: tuple[Decimal, str]) -> None:
    value, text = case
    mentions = parse_numbers(text)
    assert len(mentions) == 1, (text, mentions)
    assert mentions[0].value == value


@settings(max_examples=200, deadline=None)
@given(written_numbers(), st.sampled_from([0.0, 0.01, 0.5]))
def test_any_written_number_passes_the_response_axis(case: tuple[Decimal, str], tolerance: float) -> None:
    value, text = case
    task = answer_task("number", str(value), tolerance)
    result = grade_response(task, rollout(text))
    assert result.passed, result.reason


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_garbage_never_raises(text: str) -> None:
    parse_numbers(text)
    parse_bool(text)
    parse_items(text)
    for task in (
        answer_task("number", 1680),
        answer_task("text", "라이트론"),
        answer_task("set", ["강남구"]),
        answer_task("bool", True),
    ):
        assert isinstance(grade_response(task, rollout(text)), AxisResult)


@pytest.mark.parametrize(
    "text, value, unit",
    [
        ("215.79%", Decimal("215.79"), "%"),
        ("1,680원", Decimal(1680), "원"),
        ("약 215.8", Decimal("215.8"), ""),
        ("1.68만", Decimal(16800), ""),
        ("3억 2천만원", Decimal(320000000), "원"),
        ("−12.5 퍼센트", Decimal("-12.5"), "%"),
    ],
)
def test_parse_numbers_examples(text: str, value: Decimal, unit: str) -> None:
    (mention,) = parse_numbers(text)
    assert (mention.value, mention.unit) == (value, unit)


def test_malformed_comma_groups_and_identifiers_are_not_numbers() -> None:
    assert parse_numbers("1,2345") == ()
    assert parse_numbers("KR7142390004") == ()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("예", True),
        ("네, 맞습니다.", True),
        ("Yes, it does.", True),
        ("그렇습니다", True),
        ("아니오", False),
        ("아니요, 초과하지 않습니다.", False),
        ("No.", False),
        ("그렇지 않습니다", False),
        ("모르겠습니다", None),
        ("", None),
    ],
)
def test_parse_bool(text: str, expected: bool | None) -> None:
    assert parse_bool(text) is expected


def test_parse_items_splits_lists() -> None:
    assert parse_items("정답: 강남구, 서초구 및 송파구") == ("강남구", "서초구", "송파구")
    assert parse_items("강남구와 서초구") == ("강남구", "서초구")


def test_same_value_normalizes_numbers_and_dates_but_keeps_code_zeros() -> None:
    assert same_value("1,680", 1680)
    assert same_value("2026-08-31", "20260831")
    assert same_value(" 라이트론 ", "라이트론")
    assert not same_value("00126380", "126380")


# -- RESPONSE -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "answer", ["215.79%", "215.78%", "약 215.8%", "종가 1,680원은 공모가 532원 대비 215.79% 높습니다."]
)
def test_response_number_passes(answer: str) -> None:
    result = grade_response(lightron(), rollout(answer))
    assert result.passed, result.reason
    assert "expected 215.789" in result.reason


@pytest.mark.parametrize(
    "answer, found",
    [
        ("216%", "found 216%"),  # too coarse to count as rounding
        ("1,680원에서 532원으로", "found 1,680원, 532원"),  # no percent given: every number is listed
        ("알 수 없습니다", "found no number"),
    ],
)
def test_response_number_fails_naming_what_was_found(answer: str, found: str) -> None:
    result = grade_response(lightron(), rollout(answer))
    assert not result.passed
    assert "expected 215.789" in result.reason and found in result.reason


@pytest.mark.parametrize(
    "answer, passed",
    [
        ("3,726,900만원", True),
        ("372억 6,900만원", True),
        ("37,269,000,000원", True),  # the same amount written out in 원
        ("3,726,900", True),  # no unit: read in the task's
        ("3,726,800만원", False),
        ("3,726,900원", False),  # ten thousand times too little
    ],
)
def test_response_in_a_unit_with_a_korean_multiplier(answer: str, passed: bool) -> None:
    """실거래가 amounts are published in 만원: an answer may write them in 만원 or in 원, never a wrong amount."""
    result = grade_response(answer_task("number", 3_726_900, unit="만원"), rollout(answer, task_id="t-number"))
    assert result.passed is passed, result.reason


def test_response_guess_list_fails() -> None:
    result = grade_response(answer_task("number", 3), rollout("1, 2, 3, 4, 5"))
    assert not result.passed and "guess list" in result.reason


def test_response_missing_answer() -> None:
    result = grade_response(lightron(), rollout(None))
    assert not result.passed and "no final answer" in result.reason


def test_response_text() -> None:
    task = answer_task("text", "라이트론")
    assert grade_response(task, rollout("가장 높은 종목은 라이트론입니다.")).passed
    result = grade_response(task, rollout("삼성전자"))
    assert not result.passed and "'라이트론'" in result.reason and "삼성전자" in result.reason


def test_response_set() -> None:
    task = answer_task("set", ["서초구", "강남구"])
    assert grade_response(task, rollout("강남구와 서초구입니다.")).passed
    missing = grade_response(task, rollout("강남구"))
    assert not missing.passed and "missing 서초구" in missing.reason
    extra = grade_response(task, rollout("강남구, 서초구, 송파구"))
    assert not extra.passed and "extra 송파구" in extra.reason


def test_response_bool() -> None:
    task = answer_task("bool", True)
    assert grade_response(task, rollout("네, 초과합니다.")).passed
    result = grade_response(task, rollout("아니요"))
    assert not result.passed and "expected yes" in result.reason and "found no" in result.reason
    assert "neither" in grade_response(task, rollout("글쎄요")).reason


def test_response_rejects_a_task_with_a_non_numeric_answer() -> None:
    with pytest.raises(UsageError, match="not a number"):
        grade_response(answer_task("number", "many"), rollout("3"))


# -- ACTION ---------------------------------------------------------------------------
def test_action_passes_with_normalized_values() -> None:
    calls = (("dart_corp_code", {"corp_name": " 라이트론"}), ("krx_stock_price", {"isuCd": "00126380", "x": 1}))
    result = grade_action(lightron(), rollout(calls=calls))
    assert result.passed and "all 2 required actions" in result.reason


def test_action_names_the_skipped_lookup() -> None:
    result = grade_action(lightron(), rollout(calls=(PRICE, OFFER)))
    assert not result.passed
    assert result.reason == "no call to dart_corp_code(corp_name=라이트론): the code lookup was skipped"


def test_action_says_how_the_tool_was_called_instead() -> None:
    calls = (CORP, ("krx_stock_price", {"isuCd": "126380"}))
    result = grade_action(lightron(), rollout(calls=calls))
    assert not result.passed
    assert "no call to krx_stock_price(isuCd=00126380)" in result.reason and "first with isuCd=126380" in result.reason


def _graded_action(agent: str, task: str, out) -> str:
    """The ACTION reason of one real rollout: ``bench run`` of ``agent`` on the shipped snapshot and task."""
    from click.testing import CliRunner

    from kopa_replay.cli import cli

    result = CliRunner().invoke(cli, ["bench", "run", "--agent", agent, "--task", task, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)["tasks"]
    (graded,) = row["rollouts"]
    assert not graded["action"]["passed"]
    return graded["action"]["reason"]


def test_a_skipped_lookup_is_not_blamed_on_paging_and_a_first_page_is(tmp_path) -> None:
    # the task reads every page of a month's trades of one district, whose code a lookup gives
    task, read = (
        "kopa-district-dong-trade-count-1",
        "datagokr_get_rtms_data_svc_apt_trade(DEAL_YMD=202606, LAWD_CD=11305)",
    )
    skipped = _graded_action("skip-lookup", task, tmp_path / "skip").split("; ")
    assert skipped == [
        "no call to seoul_tb_ln_opendata_rent_v(CGG_NM=강북구, END=1000, RCPT_YR=2026, START=1): the code lookup was "
        "skipped",
        # nothing of the read was read: the call went out with the district's name where its code goes
        f"no call read records 1–121 of {read} (datagokr_get_rtms_data_svc_apt_trade was called 1 time, first with "
        "DEAL_YMD=202606, LAWD_CD=강북구)",
    ]
    first_page = _graded_action("first-page", task, tmp_path / "first")
    assert first_page == f"record 11 of {read} was never read: only the first page was read (records 1–10 were)"


# -- ENVIRONMENT ----------------------------------------------------------------------
def test_environment_passes_on_the_reference_digest() -> None:
    result = grade_environment(lightron(), rollout(calls=()))
    assert result.passed and "digest matches" in result.reason


def test_environment_passes_on_the_same_calls_in_another_order() -> None:
    result = grade_environment(lightron(), rollout(calls=(OFFER, PRICE, CORP), digest="other"))
    assert result.passed and "call order" in result.reason


def test_environment_lists_missing_and_extra_calls() -> None:
    calls = (CORP, PRICE, ("dart_offering", {"corp_code": "00126380", "pageNo": 2}), CORP)
    result = grade_environment(lightron(), rollout(calls=calls, digest="other"))
    assert not result.passed
    assert "1 reference call missing: dart_offering(corp_code=00126380, pageNo=1)" in result.reason
    assert (
        "2 extra calls: dart_corp_code(corp_name=라이트론); dart_offering(corp_code=00126380, pageNo=2)"
        in result.reason
    )


def test_environment_ignores_calls_that_never_reached_the_data() -> None:
    run = Rollout(
        "lightron-premium",
        "a",
        0,
        "x",
        (
            ("krx_stock_price", {"isuCd": "bad"}, "structural_error"),
            *((tool, args, "ok") for tool, args in (CORP, PRICE, OFFER)),
        ),
        "other",
    )
    result = grade_environment(lightron(), run)
    assert result.passed and "1 failed call not counted" in result.reason


# -- grade ----------------------------------------------------------------------------
def test_grade_combines_the_three_axes() -> None:
    assert grade(lightron(), rollout()).passed
    failed = grade(lightron(), rollout(calls=(PRICE, OFFER), digest="other"))
    assert not failed.passed
    assert failed.response.passed and failed.failing_axes() == ("action", "environment")
    assert "dart_corp_code" in failed.environment.reason


def test_grade_refuses_a_rollout_for_another_task() -> None:
    with pytest.raises(UsageError, match="not lightron-premium"):
        grade(lightron(), rollout(task_id="other"))


def test_grade_all_sorts_and_checks_task_ids() -> None:
    grades = grade_all([lightron()], [rollout(index=1), rollout(index=0)])
    assert [g.index for g in grades] == [0, 1]
    with pytest.raises(UsageError, match="unknown task"):
        grade_all([lightron()], [rollout(task_id="nope")])


# -- model ----------------------------------------------------------------------------
def test_task_rollout_grade_round_trip_through_json() -> None:
    task, run = lightron(), rollout()
    assert Task.from_dict(json.loads(json.dumps(task.to_dict()))) == task
    assert Rollout.from_dict(json.loads(json.dumps(run.to_dict()))) == run
    graded = grade(task, run)
    assert Grade.from_dict(json.loads(json.dumps(graded.to_dict()))) == graded


def test_task_rejects_an_unknown_split() -> None:
    with pytest.raises(UsageError, match="split"):
        lightron(split="test")


def test_rollout_from_environment_log() -> None:
    class Env:
        log = (LogEntry("dart_corp_code", (("corp_name", "라이트론"),), "ok", "d1"),)

        def state_digest(self) -> str:
            return "s"

    run = Rollout.from_environment("lightron-premium", "oracle", 0, "215.79%", Env())
    assert run.calls == (("dart_corp_code", {"corp_name": "라이트론"}, "ok"),) and run.state_digest == "s"


# -- read actions: windows of records and what they cover ---------------------------------------------------
PAGE = {"style": "page", "page": "pageNo", "size": "numOfRows", "default_size": 10, "max_size": 1000}
RANGE = {"style": "range", "start": "START_INDEX", "end": "END_INDEX", "default_size": 100, "max_size": 1000}


@given(size=st.integers(1, 50), through=st.integers(1, 500), data=st.data())
def test_pages_cover_a_read_exactly_when_none_is_missing(size, through, data):
    needed = -(-through // size)  # pages holding records 1..through
    pages = list(range(1, needed + 1))
    windows = [call_window({"pageNo": p, "numOfRows": size}, PAGE) for p in pages]
    assert first_unread(windows, through) is None
    dropped = data.draw(st.sampled_from(pages))
    rest = [w for p, w in zip(pages, windows) if p != dropped]
    assert first_unread(rest, through) == (dropped - 1) * size


@given(cuts=st.lists(st.integers(1, 400), unique=True, max_size=6), through=st.integers(1, 400))
def test_ranges_of_any_widths_cover_what_they_span(cuts, through):
    bounds = [0, *sorted(cuts), 400]
    windows = [
        call_window({"START_INDEX": low + 1, "END_INDEX": high}, RANGE)
        for low, high in zip(bounds, bounds[1:])
        if high > low
    ]
    assert first_unread(windows, through) is None
    assert first_unread(windows[1:], through) == (0 if bounds[1] > 0 else None)


def test_call_windows_follow_defaults_caps_and_refuse_nonsense():
    assert call_window({}, PAGE) == (0, 10)  # page 1 of the default size
    assert call_window({"pageNo": "3", "numOfRows": "100"}, PAGE) == (200, 300)
    assert call_window({"pageNo": 2, "numOfRows": 5000}, PAGE) == (1000, 2000)  # the server cuts the page
    assert call_window({"START_INDEX": 1, "END_INDEX": 5000}, RANGE) == (0, 1000)
    assert call_window({"START_INDEX": 101}, RANGE) == (100, 200)
    for bad in ({"pageNo": 0}, {"pageNo": "x"}, {"numOfRows": -1}):
        assert call_window(bad, PAGE) is None
    assert call_window({"START_INDEX": 5, "END_INDEX": 4}, RANGE) is None
    assert call_window({"pageNo": 1}, {"style": "none"}) is None
    assert first_unread([(0, 10), (20, 30)], 25) == 10 and first_unread([], 1) == 0


def test_a_read_action_needs_a_paging_style():
    with pytest.raises(UsageError, match="paging style"):
        RequiredAction.from_dict({"tool": "t", "args_subset": {}, "through": 5, "paging": {"style": "cursor"}})


def test_a_failing_reason_writes_the_expected_number_as_a_person_does() -> None:
    """A float answer and tolerance read as written (77660명 ± 0.07766), not as their binary expansions."""
    result = grade_response(
        answer_task("number", 77660.0, 0.07766 * 1.0000000000000001 - 1e-17, unit="명"),
        rollout("62,114 명", task_id="t-number"),
    )
    assert not result.passed
    assert "expected 77660명 (±0.07766)" in result.reason, result.reason


@pytest.mark.parametrize(
    "value, shown",
    [
        (77660.0, "77660"),
        (0.07765999999999999, "0.07766"),
        (1e-7, "0.0000001"),
        (3.14159265, "3.14159265"),
        (0.1234567891, "0.1234567891"),
        (1234567.5, "1234567.5"),
        (12, "12"),
    ],
)
def test_a_number_in_a_reason_keeps_its_digits_and_drops_the_float_noise(value, shown) -> None:
    from kopa_replay.bench.grade import _plain

    assert _plain(value) == shown


def test_a_read_the_platform_blocked_is_said_to_be_the_platforms_and_counted() -> None:
    """The agent asked for the list, the platform answered a bot wall's page twice: the ACTION reason names the
    incident, not a skipped read, the grade counts the calls that met one, and the report says how many failed so."""
    paging = {"style": "page", "page": "pageNo", "size": "numOfRows", "default_size": 10, "max_size": 100}
    listing = RequiredAction("dart_offering", {"corp_code": "00126380"}, "the offer list", through=3, paging=paging)
    task = lightron(required_actions=(listing,))
    walled = Rollout(
        task.id,
        "oracle",
        0,
        None,
        (
            (*CORP, "ok"),
            ("dart_offering", {"corp_code": "00126380", "pageNo": 1}, "blocked_error"),
            ("dart_offering", {"corp_code": "00126380", "pageNo": 1}, "blocked_error"),
        ),
        "other",
    )
    graded = grade(task, walled)
    assert not graded.action.passed and graded.incidents == 2
    assert "the platform blocked 2×" in graded.action.reason and "not the agent's choice" in graded.action.reason
    # the same rollout with the read simply never made is the agent's miss, said as before
    skipped = grade(task, Rollout(task.id, "oracle", 1, None, ((*CORP, "ok"),), "other"))
    assert skipped.incidents == 0 and "no call read records 1–3" in skipped.action.reason
    data = report([task], [graded, skipped])
    assert data["incidents"] == {"rollouts": 1, "failed": 1}
    assert "1 rollout(s) met an incident" in markdown(data)
    assert Grade.from_dict(json.loads(json.dumps(graded.to_dict()))).incidents == 2

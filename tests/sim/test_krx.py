"""KRX Open API as simulated: AUTH_KEY header, a whole date in OutBlock_1, the ISU_CD trap, error shapes."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import httpx

from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.world.finance import isin_for

KEY = {"AUTH_KEY": "sim-key"}
API = "https://data-dbg.krx.co.kr/svc/apis/"
TRADE_FIELDS = [
    "BAS_DD",
    "ISU_CD",
    "ISU_NM",
    "MKT_NM",
    "SECT_TP_NM",
    "TDD_CLSPRC",
    "CMPPREVDD_PRC",
    "FLUC_RT",
    "TDD_OPNPRC",
    "TDD_HGPRC",
    "TDD_LWPRC",
    "ACC_TRDVOL",
    "ACC_TRDVAL",
    "MKTCAP",
    "LIST_SHRS",
]


def _rows(client: httpx.Client, service: str, day: str = "20260831") -> list[dict]:
    response = client.get(API + service, params={"basDd": day}, headers=KEY)
    assert response.status_code == 200
    body = response.json()
    assert list(body) == ["OutBlock_1"]
    return body["OutBlock_1"]


def test_a_whole_market_day_comes_in_one_response(client, sim, call):
    rows = _rows(client, "sto/stk_bydd_trd")
    kospi = [c for c in sim.world.finance.listed if c.market == "KOSPI"]
    assert len(rows) == len(kospi) > 20
    assert list(rows[0]) == TRADE_FIELDS and all(isinstance(v, str) for v in rows[0].values())
    assert all(re.fullmatch(r"\d{6}", r["ISU_CD"]) and r["MKT_NM"] == "KOSPI" for r in rows)
    result = call("krx_stk_bydd_trd", basDd="20260831")
    assert result.outcome == "ok" and len(result.records) == len(kospi) and result.total_count is None
    kosdaq = _rows(client, "sto/ksq_bydd_trd")
    assert any(r["ISU_CD"] == "069540" and r["TDD_CLSPRC"] == "1680" and r["SECT_TP_NM"] for r in kosdaq)
    assert {r["MKT_NM"] for r in _rows(client, "sto/knx_bydd_trd")} == {"KONEX"}


def test_isu_cd_is_an_isin_in_base_info(client):
    trades = {r["ISU_CD"] for r in _rows(client, "sto/ksq_bydd_trd")}
    base = _rows(client, "sto/ksq_isu_base_info")
    assert {r["ISU_SRT_CD"] for r in base} == trades
    for row in base:
        assert re.fullmatch(r"KR7\d{6}00\d", row["ISU_CD"]) and row["ISU_CD"] == isin_for(row["ISU_SRT_CD"])
        assert row["ISU_NM"] == row["ISU_ABBRV"] + "보통주"
    assert not trades & {r["ISU_CD"] for r in base}  # the same field name, never the same values


def test_holidays_weekends_and_today_are_empty_lists(client, call):
    for day in ("20260830", "20260817", "20260901", "20240105"):  # Sunday, holiday, as-of day, before the data
        assert _rows(client, "sto/stk_bydd_trd", day) == [], day
    assert call("krx_stk_bydd_trd", basDd="20260830").outcome == "empty"


def test_invalid_key_is_401_unauthorized_key(client, call):
    for headers in ({"AUTH_KEY": "nope"}, {}):
        response = client.get(API + "sto/stk_bydd_trd", params={"basDd": "20260831"}, headers=headers)
        assert response.status_code == 401
        assert response.json() == {"respCode": "401", "respMsg": "Unauthorized Key"}
    assert call("krx_stk_bydd_trd", key="nope", basDd="20260831").outcome == "environmental_error"


def test_other_errors_keep_the_same_shape(client, call):
    missing = client.get(API + "sto/stk_bydd_trd", headers=KEY)
    assert missing.status_code == 400 and missing.json()["respCode"] == "400"
    # A date is the only entity this API takes: a name in its place is a bad request, not data.
    assert call("krx_stk_bydd_trd", basDd="라이트론").outcome == "structural_error"
    unknown = client.get(API + "sto/nothing_here", params={"basDd": "20260831"}, headers=KEY)
    assert unknown.status_code == 404 and unknown.json() == {"respCode": "404", "respMsg": "Not Found"}


def test_xml_answer_reads_with_a_real_parser(client):
    response = client.get(API + "idx/kospi_dd_trd.xml", params={"basDd": "20260831"}, headers=KEY)
    root = ElementTree.fromstring(response.content)
    blocks = root.findall("OutBlock_1")
    assert root.tag == "response" and len(blocks) == len(_rows(client, "idx/kospi_dd_trd"))
    assert blocks[0].findtext("IDX_NM") == "코스피"
    close, change = float(blocks[0].findtext("CLSPRC_IDX")), float(blocks[0].findtext("CMPPREVDD_IDX"))
    assert blocks[0].findtext("FLUC_RT") == f"{change / (close - change) * 100:.2f}"


def test_krx_and_the_fsc_service_agree_on_prices(client):
    krx = {r["ISU_CD"]: r for r in _rows(client, "sto/ksq_bydd_trd", "20260828")}
    body = client.get(
        "https://apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo",
        params={
            "serviceKey": "sim-key",
            "resultType": "json",
            "basDt": "20260828",
            "mrktCls": "KOSDAQ",
            "numOfRows": "1000",
        },
    ).json()
    fsc = body["response"]["body"]["items"]["item"]
    assert len(fsc) == len(krx)
    for item in fsc:
        row = krx[item["srtnCd"]]
        assert (row["TDD_CLSPRC"], row["CMPPREVDD_PRC"], row["ACC_TRDVOL"]) == (item["clpr"], item["vs"], item["trqu"])


def test_the_block_rename_breaks_the_catalog_envelope(catalog):
    from kopa_replay.env import execute

    tool = catalog.get("krx_stk_bydd_trd")
    outcomes = {}
    for as_of in ("2026-11-09", "2026-11-10"):
        with httpx.Client(transport=SimTransport(Simulator(seed=0, as_of=as_of))) as client:
            outcomes[as_of] = execute(tool, {"basDd": "20261106"}, client, "sim-key")
            raw = client.get(API + "sto/stk_bydd_trd", params={"basDd": "20261106"}, headers=KEY).json()
        assert list(raw) == (["OutBlock_1"] if as_of == "2026-11-09" else ["OutBlock_2"])
    assert outcomes["2026-11-09"].outcome == "ok" and outcomes["2026-11-10"].outcome == "empty"


def test_same_seed_same_bytes_other_seed_other_world():
    def bodies(seed: int) -> list[bytes]:
        with httpx.Client(transport=SimTransport(Simulator(seed=seed))) as client:
            return [
                client.get(API + service, params={"basDd": "20260831"}, headers=KEY).content
                for service in ("sto/stk_bydd_trd", "sto/stk_isu_base_info", "idx/kosdaq_dd_trd")
            ]

    first, again, other = bodies(0), bodies(0), bodies(1)
    assert first == again and all(a != b for a, b in zip(first, other))


def test_loopback_server(server_url, client):
    over_socket = httpx.get(
        server_url + "/data-dbg.krx.co.kr/svc/apis/sto/knx_bydd_trd", params={"basDd": "20260831"}, headers=KEY
    )
    assert over_socket.status_code == 200 and over_socket.json()["OutBlock_1"]
    assert (
        over_socket.content == client.get(API + "sto/knx_bydd_trd", params={"basDd": "20260831"}, headers=KEY).content
    )
    denied = httpx.get(server_url + "/data-dbg.krx.co.kr/svc/apis/sto/knx_bydd_trd", params={"basDd": "20260831"})
    assert denied.status_code == 401 and denied.json()["respMsg"] == "Unauthorized Key"


def test_the_key_is_also_taken_as_a_query_parameter_and_the_header_wins(server_url, client):
    """Several public KRX clients send AUTH_KEY in the query string: the platform answers them as it does the header."""
    url = server_url + "/data-dbg.krx.co.kr/svc/apis/sto/stk_bydd_trd"
    by_header = httpx.get(url, params={"basDd": "20260831"}, headers=KEY)
    by_query = httpx.get(url, params={"basDd": "20260831", "AUTH_KEY": "sim-key"})
    assert by_query.status_code == 200 and by_query.content == by_header.content and by_query.json()["OutBlock_1"]
    wrong_query = httpx.get(url, params={"basDd": "20260831", "AUTH_KEY": "nope"})
    assert wrong_query.status_code == 401 and wrong_query.json()["respMsg"] == "Unauthorized Key"
    # a header is what the platform reads first: a wrong header is refused whatever the query says
    wrong_header = httpx.get(url, params={"basDd": "20260831", "AUTH_KEY": "sim-key"}, headers={"AUTH_KEY": "nope"})
    assert wrong_header.status_code == 401

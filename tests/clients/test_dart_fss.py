"""dart-fss (josw123), the most used OpenDART client, run unchanged against `sim serve` — when it is installed.

It is not in the ``test`` extra: dart-fss needs arelle-release, which caps python-dateutil below 3 (the environment has
4.x), so installing it changes a package the project already has. ``pip install dart-fss==0.4.17`` next to the test
extra runs these. Only the host changes (conftest.py: its requests session goes through the transport adapter), and
its own 0.2 s pause between calls is set to 0 through its ``set_delay``.
"""

from __future__ import annotations

import pytest

KEY = "sim-key"  # the key `sim serve` takes (conftest.KEY)
SAMSUNG = "00126380"
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    # it warns that KIND (kind.krx.co.kr, not simulated) gave no market lists, and goes on without them
    pytest.mark.filterwarnings("ignore:Failed to fetch:UserWarning"),
]


@pytest.fixture
def dart(rerouted):
    dart_fss = pytest.importorskip("dart_fss")
    from dart_fss.utils import request

    request.set_delay(0)
    dart_fss.enable_spinner(False)
    # Setting the key checks it first: company.json for Samsung Electronics (00126380) must answer status 000.
    dart_fss.set_api_key(KEY)
    assert rerouted == ["opendart.fss.or.kr/api/company.json"]
    return dart_fss


def test_dart_fss_checks_its_key_on_samsung_and_refuses_a_wrong_one(dart):
    from dart_fss.errors import APIKeyError

    with pytest.raises(APIKeyError):
        dart.set_api_key("not-a-key")  # status 010, turned into its own error


def test_dart_fss_reads_the_register_filings_and_statements(dart):
    corps = dart.get_corp_list()  # corpCode.xml (KIND's market lists, a host the simulator does not serve, aside)
    samsung = corps.find_by_corp_code(SAMSUNG)
    assert samsung.corp_name == "삼성전자" and samsung.stock_code == "005930"
    assert [c.corp_code for c in corps.find_by_corp_name("삼성전자", exactly=True)] == [SAMSUNG]
    found = dart.search(corp_code=SAMSUNG, bgn_de="20260101", end_de="20260831")
    assert found.total_count >= len(found.report_list) > 0
    assert {r.corp_code for r in found.report_list} == {SAMSUNG}
    from dart_fss.api import finance, info

    accounts = finance.fnltt_singl_acnt(corp_code=SAMSUNG, bsns_year="2025", reprt_code="11011")
    assert accounts["status"] == "000" and {a["sj_div"] for a in accounts["list"]} >= {"BS", "IS"}
    dividends = info.alot_matter(corp_code=SAMSUNG, bsns_year="2025", reprt_code="11011")
    annual = {r.rcp_no for r in found.report_list if r.report_nm.startswith("사업보고서")}
    assert {d["rcept_no"] for d in dividends["list"]} == annual

"""열린국회정보 Open API (open.assembly.go.kr/portal/openapi/{service}).

The same portal software as NEIS (:class:`HeadRowProtocol`): ``KEY``, ``Type``,
``pIndex``/``pSize``, the head/row envelope, bare ``{"RESULT": …}`` errors and
always HTTP 200. Service ids are the real ones: nwvrqwxyaytdsfvhu (국회의원
인적사항), nzmimeepazxkubdpn (국회의원 발의법률안, AGE required),
nojepdqqaweusdfbi (국회의원 본회의 표결정보, AGE and BILL_ID required),
BILLINFOPPSR (의안 제안자정보, BILL_ID required), nxrvzonlafugpqjuh (위원회 현황
정보), negnlnyvatsjwocar (국회의원 SNS정보) and nekcaiymatialqlxr (본회의 일정,
UNIT_CD required). Filters are exact except BILL_NAME and PROPOSER, which
the portal matches partially. A bill *name* in BILL_ID matches nothing
(INFO-200): votes and proposers need the ``PRC_…`` id from the bill search.
Dates are ``YYYY-MM-DD``; VOTE_DATE is ``YYYYMMDD HHMMSS``.

Those seven are hand-written here; the portal's other 269 services are rows of the operation table
(kopa_replay/sim/tables/assembly.yaml) over the world tables of :mod:`assembly_tables`. OPENSRVAPI lists all
276 and the keyless spec download (``downloadOpenApiSpec.do?infId=…``) answers each one's workbook, whose
요청주소 row is the only place a client finds a service's endpoint code.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from kopa_replay.sim.core import Doc, Endpoint, NoData, Query
from kopa_replay.sim.platforms import assembly_tables
from kopa_replay.sim.platforms.assembly_xlsx import workbook
from kopa_replay.sim.protocols import HeadRowProtocol
from kopa_replay.sim.spec import endpoint_specs
from kopa_replay.sim.tables import Operation, endpoints, load_table
from kopa_replay.sim.world import stable_int
from kopa_replay.sim.world.assembly import Bill, Member
from kopa_replay.sim.world.calendar import dashed
from kopa_replay.sim.world.finance import LazyRows

HOST = "open.assembly.go.kr"
#: the service specification workbook clients download to find a service's request URL (no key needed)
SPEC_DOWNLOAD = "/portal/data/openapi/downloadOpenApiSpec.do"
_XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


class AssemblyProtocol(HeadRowProtocol):
    """:class:`HeadRowProtocol` as it is, plus the keyless spec download, which answers an .xlsx."""

    def _download(self, ctx_or_request) -> bool:
        request = getattr(ctx_or_request, "request", ctx_or_request)
        return request.path.rstrip("/") == SPEC_DOWNLOAD

    def keyless(self, request, path_params) -> bool:
        return self._download(request) or super().keyless(request, path_params)

    def window(self, ctx, params):
        if self._download(ctx):
            return 0, 1, {}
        return super().window(ctx, params)

    def ok(self, ctx, records, total, meta):
        if self._download(ctx) and records:
            info = records[0]
            return Doc(
                info["xlsx"],
                content_type=_XLSX,
            )
        return super().ok(ctx, records, total, meta)

    def error(self, ctx, kind, detail=""):
        if self._download(ctx):
            # an unknown or missing infId: the portal's error page, not a workbook
            return Doc(
                "<html><body><p>잘못된 요청입니다.</p></body></html>".encode(),
                status=404,
                content_type="text/html;charset=UTF-8",
            )
        return super().error(ctx, kind, detail)


PROTOCOL = AssemblyProtocol(prefix="/portal/openapi/")
#: how far ahead the plenary calendar is announced
_SCHEDULE_LEAD = dt.timedelta(days=14)


def _on(day: dt.date | None, as_of: dt.date) -> str | None:
    """A stage date as the portal writes it, or null while the stage has not happened."""
    return dashed(day) if day is not None and day <= as_of else None


def _exact(record: dict[str, Any], q: Query, names: Iterable[str]) -> bool:
    return all(q.get(name) is None or str(record.get(name)) == q.get(name) for name in names)


def _nonempty(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not rows:
        raise NoData()
    return rows


def _age(q: Query) -> int:
    text = q.require("AGE")
    if not text.isdigit():
        raise NoData()
    return int(text)


# -- members ---------------------------------------------------------------------
def member_info(world, q: Query) -> list[dict[str, Any]]:
    assembly = world.assembly
    rows = []
    for m in assembly.members:
        staff, secretary, secretary2 = assembly.staff[m.mona_cd]
        record = {
            "HG_NM": m.name,
            "HJ_NM": m.hanja,
            "ENG_NM": m.english,
            "BTH_GBN_NM": "음" if m.lunar else "양",
            "BTH_DATE": dashed(m.birth),
            "JOB_RES_NM": assembly.role(m),
            "POLY_NM": m.party,
            "ORIG_NM": m.district,
            "ELECT_GBN_NM": m.elected_by,
            "CMIT_NM": m.committee,
            "CMITS": ", ".join(m.committees),
            "REELE_GBN_NM": m.reelection,
            "UNITS": ", ".join(f"제{u}대" for u in m.units),
            "SEX_GBN_NM": m.sex,
            "TEL_NO": m.tel,
            "E_MAIL": f"{m.handle}@assembly.go.kr",
            "HOMEPAGE": f"https://blog.naver.com/{m.handle}",
            "STAFF": staff,
            "SECRETARY": secretary,
            "SECRETARY2": secretary2,
            "MONA_CD": m.mona_cd,
            "MEM_TITLE": f"현) 제22대 국회의원({m.party})\r\n현) 국회 {m.committee} 위원",
            "ASSEM_ADDR": m.room,
        }
        if _exact(record, q, ("HG_NM", "POLY_NM", "ORIG_NM", "MONA_CD")):
            rows.append(record)
    return _nonempty(rows)


def member_sns(world, q: Query) -> list[dict[str, Any]]:
    rows = []
    for m in world.assembly.members:
        flags = world.assembly.sns_flags(m)
        record = {
            "HG_NM": m.name,
            "MONA_CD": m.mona_cd,
            "T_URL": f"https://x.com/{m.handle}" if flags[0] else None,
            "F_URL": f"https://www.facebook.com/{m.handle}" if flags[1] else None,
            "Y_URL": f"https://www.youtube.com/@{m.handle}" if flags[2] else None,
            "B_URL": f"https://blog.naver.com/{m.handle}" if flags[3] else None,
        }
        if _exact(record, q, ("HG_NM", "MONA_CD")):
            rows.append(record)
    return _nonempty(rows)


def committee_info(world, q: Query) -> list[dict[str, Any]]:
    assembly = world.assembly
    rows = []
    for c in assembly.committees:
        sitting = [assembly.by_code[code] for code in c.members]
        negotiating = sum(1 for m in sitting if m.party in ("더불어민주당", "국민의힘"))
        record = {
            "CMT_DIV_NM": c.division,
            "HR_DEPT_CD": c.dept_cd,
            "COMMITTEE_NAME": c.name,
            "HG_NM": assembly.by_code[c.chair].name if c.chair else None,
            "HG_NM_LIST": ", ".join(assembly.by_code[code].name for code in c.secretaries),
            "LIMIT_CNT": str(c.limit),
            "CURR_CNT": str(len(sitting)),
            "POLY99_CNT": str(len(sitting) - negotiating),
            "POLY_CNT": str(negotiating),
            "ORDER_NUM": str(c.order),
        }
        if _exact(record, q, ("COMMITTEE_NAME", "CMT_DIV_NM")):
            rows.append(record)
    return _nonempty(rows)


# -- bills -----------------------------------------------------------------------
def _proposer_text(world, bill: Bill) -> str:
    return f"{world.assembly.by_code[bill.proposer].name}의원 등 {len(bill.co_proposers) + 1}인"


def _bill_record(world, bill: Bill, as_of: dt.date) -> dict[str, Any]:
    assembly = world.assembly
    proposer = assembly.by_code[bill.proposer]
    co = [assembly.by_code[code].name for code in bill.co_proposers]
    fate = bill.fate_at(as_of)
    committee_result = (
        fate
        if fate in ("원안가결", "수정가결", "대안반영폐기", "부결")
        and bill.committee_done
        and bill.committee_done <= as_of
        else None
    )
    judiciary = bill.judiciary or (None, None, None)
    committee = assembly.committee_by_name.get(bill.committee)
    referred = bill.referred <= as_of
    return {
        "BILL_ID": bill.bill_id,
        "BILL_NO": bill.bill_no,
        "BILL_NAME": bill.name,
        "COMMITTEE": bill.committee if referred else None,
        "PROPOSE_DT": dashed(bill.proposed),
        "PROC_RESULT": fate,
        "AGE": str(bill.age),
        "DETAIL_LINK": f"https://likms.assembly.go.kr/bill/billDetail.do?billId={bill.bill_id}",
        "PROPOSER": _proposer_text(world, bill),
        "MEMBER_LIST": f"https://likms.assembly.go.kr/bill/coactorListPopup.do?billId={bill.bill_id}",
        "LAW_PROC_DT": _on(judiciary[2], as_of),
        "LAW_PRESENT_DT": _on(judiciary[1], as_of),
        "LAW_SUBMIT_DT": _on(judiciary[0], as_of),
        "CMT_PROC_RESULT_CD": "원안가결" if committee_result == "부결" else committee_result,
        "CMT_PROC_DT": _on(bill.committee_done, as_of),
        "CMT_PRESENT_DT": _on(bill.presented, as_of),
        "COMMITTEE_DT": _on(bill.referred, as_of),
        "PROC_DT": _on(bill.decided, as_of) if fate else None,
        "COMMITTEE_ID": committee.dept_cd if committee and referred else None,
        "PUBL_PROPOSER": ",".join(co),
        "LAW_PROC_RESULT_CD": fate if bill.voted and fate else None,
        "RST_PROPOSER": proposer.name,
        "RST_MONA_CD": proposer.mona_cd,
    }


def bill_search(world, q: Query) -> Sequence[dict[str, Any]]:
    """An Assembly's bills, newest bill number first. Each filter is tested on the bill itself, as its record
    would show it, and only the served page's records are made: 25,855 records per call cost a second."""
    age, as_of = _age(q), q.as_of
    name, proposer, number = q.get("BILL_NAME"), q.get("PROPOSER"), q.get("BILL_NO")
    committee, result, wanted = q.get("COMMITTEE"), q.get("PROC_RESULT"), q.get("BILL_ID")
    bills = (
        world.assembly.bills
        if wanted is None
        else [b for b in (world.assembly.bill_by_id.get(wanted),) if b is not None]
    )
    kept = []
    for bill in reversed(bills):  # newest bill number first
        if bill.age != age or bill.proposed > as_of:
            continue
        if (name is not None and name not in bill.name) or (number is not None and str(bill.bill_no) != number):
            continue
        if committee is not None and str(bill.committee if bill.referred <= as_of else None) != committee:
            continue
        if result is not None and str(bill.fate_at(as_of)) != result:
            continue
        if proposer is not None and proposer not in _proposer_text(world, bill):
            continue
        kept.append(bill)
    if not kept:
        raise NoData()
    return LazyRows(kept, lambda bill: _bill_record(world, bill, as_of))


def _bill(world, q: Query) -> Bill:
    bill = world.assembly.bill_by_id.get(q.require("BILL_ID"))
    if bill is None or bill.proposed > q.as_of:
        raise NoData()
    return bill


def bill_votes(world, q: Query) -> list[dict[str, Any]]:
    age, bill = _age(q), _bill(world, q)
    if bill.age != age or not bill.voted or bill.fate_at(q.as_of) is None:
        raise NoData()
    assembly = world.assembly
    committee = assembly.committee_by_name.get(bill.committee)
    rows = []
    for number, (member, result, seconds) in enumerate(assembly.votes(bill), start=1):
        clock = dt.datetime.combine(bill.decided, dt.time(14)) + dt.timedelta(seconds=seconds)
        record = {
            "HG_NM": member.name,
            "HJ_NM": member.hanja,
            "POLY_NM": member.party,
            "ORIG_NM": member.district,
            "MEMBER_NO": str(number),
            "MONA_CD": member.mona_cd,
            "VOTE_DATE": clock.strftime("%Y%m%d %H%M%S"),
            "BILL_NO": bill.bill_no,
            "BILL_NAME": bill.name,
            "BILL_ID": bill.bill_id,
            "LAW_TITLE": bill.law,
            "CURR_COMMITTEE": bill.committee,
            "CURR_COMMITTEE_ID": committee.dept_cd if committee else None,
            "RESULT_VOTE_MOD": result,
            "DEPT_CD": committee.dept_cd if committee else None,
            "BILL_URL": f"https://likms.assembly.go.kr/bill/billDetail.do?billId={bill.bill_id}",
            "BILL_NAME_URL": f"https://likms.assembly.go.kr/bill/billDetail.do?billId={bill.bill_id}",
            "AGE": str(bill.age),
        }
        if _exact(record, q, ("HG_NM", "POLY_NM", "MONA_CD", "RESULT_VOTE_MOD")):
            rows.append(record)
    return _nonempty(rows)


def bill_proposers(world, q: Query) -> list[dict[str, Any]]:
    bill = _bill(world, q)
    assembly = world.assembly
    people: list[tuple[Member, str]] = [(assembly.by_code[bill.proposer], "대표발의")]
    people += sorted(((assembly.by_code[c], "공동발의") for c in bill.co_proposers), key=lambda p: p[0].name)
    return [
        {
            "ERACO": f"제{bill.age}대",
            "BILL_ID": bill.bill_id,
            "BILL_NO": bill.bill_no,
            "BILL_NM": bill.name,
            "PPSR_KIND": "의원",
            "PPSR_NM": member.name,
            "PPSR_POLY_NM": member.party,
            "REP_DIV": role,
        }
        for member, role in people
    ]


def plenary_schedule(world, q: Query) -> list[dict[str, Any]]:
    unit = q.require("UNIT_CD")
    if not (unit.startswith("1000") and unit[4:].isdigit()) or int(unit[4:]) not in world.assembly.sittings:
        raise NoData()
    age = int(unit[4:])
    rows = []
    for s in reversed(world.assembly.sittings[age]):  # latest sitting first
        if s.day > q.as_of + _SCHEDULE_LEAD:
            continue
        record = {
            "MEETINGSESSION": f"제{s.session}회",
            "CHA": f"제{s.number}차",
            "TITLE": f"제{s.session}회 국회({s.kind}) 제{s.number}차 본회의",
            "MEETTING_DATE": dashed(s.day),
            "MEETTING_TIME": "14:00",
            "LINK_URL": f"https://w3.assembly.go.kr/main/player.do?menu=1&mc=10&ct1={age}&ct2={s.session}"
            f"&ct3={s.number:02d}",
            "UNIT_CD": unit,
            "UNIT_NM": f"제{age}대",
        }
        if _exact(record, q, ("MEETINGSESSION",)):
            rows.append(record)
    return _nonempty(rows)


# -- the world tables of the operation table (kopa_replay/sim/tables/assembly.yaml) ------------
#: days a bill stays in 입법예고 after its referral (국회법 제82조의2: ten days or more)
_NOTICE_DAYS = 10


def registry() -> list[dict[str, Any]]:
    """Every service the portal lists: the table's operations and the hand-written ones, by INF_ID."""
    table = load_table("assembly")
    rows = [
        {
            "code": op.route,
            "tool": op.tool,
            "inf_id": op.options["inf_id"],
            "name": op.name,
            "category": op.category,
            "org": op.options.get("org", "국회사무처"),
        }
        for op in table.operations
    ]
    return sorted(rows + list(table.extra["registry"]), key=lambda r: r["inf_id"])


def _notices(world, q: Query) -> Iterator[dict[str, Any]]:
    assembly = world.assembly
    earliest = q.as_of - dt.timedelta(days=_NOTICE_DAYS)
    for bill in reversed(assembly.bills):
        if not earliest <= bill.referred <= q.as_of or bill.fate_at(q.as_of) is not None:
            continue
        committee = assembly.committee_by_name.get(bill.committee)
        proposer = assembly.by_code[bill.proposer]
        yield {
            "BILL_ID": bill.bill_id,
            "BILL_NO": bill.bill_no,
            "BILL_NAME": bill.name,
            "PROPOSER": f"{proposer.name}의원 등 {len(bill.co_proposers) + 1}인",
            "PROPOSER_KIND_CD": "의원",
            "CURR_COMMITTEE_ID": committee.dept_cd if committee else None,
            "CURR_COMMITTEE": bill.committee,
            "NOTI_ED_DT": dashed(bill.referred + dt.timedelta(days=_NOTICE_DAYS)),
            "LINK_URL": f"https://pal.assembly.go.kr/napal/lgsltpa/lgsltpaOngoing/view.do?lgsltPaId={bill.bill_id}",
            "AGE": str(bill.age),
        }


def _committee_members(world, q: Query) -> Iterator[dict[str, Any]]:
    assembly = world.assembly
    for c in assembly.committees:
        for code in c.members:
            m = assembly.by_code[code]
            role = "위원장" if code == c.chair else "간사" if code in c.secretaries else "위원"
            staff, secretary, secretary2 = assembly.staff[code]
            yield {
                "DEPT_CD": c.dept_cd,
                "DEPT_NM": c.name,
                "JOB_RES_NM": role,
                "HG_NM": m.name,
                "ORIG_NM": m.district,
                "POLY_NM": m.party,
                "ASSEM_TEL": m.tel,
                "ASSEM_EMAIL": f"{m.handle}@assembly.go.kr",
                "HJ_NM": m.hanja,
                "ROOM_NO": m.room.split(" ", 1)[-1].replace("층 ", ""),
                "STAFF": staff,
                "SECRETARY": secretary,
                "SECRETARY2": secretary2,
                "MONA_CD": m.mona_cd,
            }


def spec_url(inf_id: str) -> str:
    return f"https://{HOST}/portal/data/openapi/downloadOpenApiSpec.do?infId={inf_id}&infSeq=2"


def _services(world, q: Query) -> Iterator[dict[str, Any]]:
    """OPENSRVAPI: every service by INF_ID. SRV_URL is the service's page on the portal, not its request URL; the
    request URL (with the endpoint code) is only in the specification sheet DDC_URL downloads."""
    for row in registry():
        yield {
            "INF_ID": row["inf_id"],
            "INF_NM": row["name"]["ko"],
            "INF_EXP": f"{row['name']['ko']} 정보를 제공합니다.",
            "CATE_NM": row["category"],
            "OPEN_DTTM": "2019-11-14",
            "ORG_NM": row["org"],
            "LOAD_DTTM": dashed(q.as_of - dt.timedelta(days=stable_int("assembly.load", row["inf_id"]) % 60)),
            "SRC_EXP": f"{row['org']} 홈페이지",
            "DDC_URL": spec_url(row["inf_id"]),
            "SRV_URL": f"https://{HOST}/portal/data/service/selectAPIServicePage.do/{row['inf_id']}",
            "CCL_NM": "출처표시",
            "LOAD_NM": "수시",
            "LOAD_CONT": "자료 발생시",
        }


def _spec_rows(op: Operation) -> list[list[str]]:
    """The specification sheet of one service, laid out as the portal's: 요청주소, 기본인자, 요청인자, 출력값."""
    required = set(op.required)
    rows = [
        [f"{op.name['ko']} Open API 명세서"],
        [""],
        ["요청주소"],
        [f"https://{HOST}/portal/openapi/{op.route}"],
        [""],
        ["기본인자"],
        ["변수명", "타입", "변수 설명", "값설명"],
        ["KEY", "STRING(필수)", "인증키", "기본값 : sample key"],
        ["Type", "STRING(필수)", "호출 문서(xml, json)", "기본값 : xml"],
        ["pIndex", "INTEGER(필수)", "페이지 위치", "기본값 : 1(sample key는 1 고정)"],
        ["pSize", "INTEGER(필수)", "페이지 당 요청 숫자", "기본값 : 100(sample key는 5 고정)"],
        [""],
        ["요청인자"],
        ["변수명", "타입", "변수 설명", "값설명"],
    ]
    for name, param in op.params.items():
        rows.append([name, "STRING(필수)" if name in required else "STRING(선택)", param["ko"], ""])
    rows += [[""], ["출력값"], ["No", "출력명", "출력설명"]]
    for number, (name, field_) in enumerate(op.fields.items(), start=1):
        rows.append([str(number), name, field_["ko"]])
    return rows


def _handwritten_operation(row: Mapping[str, Any]) -> Operation:
    """A hand-written service as a table operation, from its endpoint and its published response spec."""
    endpoint = next(e for e in ENDPOINTS if e.route == row["code"])
    spec = endpoint_specs()[endpoint.tool]
    names = list(dict.fromkeys([*endpoint.required, *endpoint.inputs]))
    return Operation(
        platform="assembly",
        tool=endpoint.tool,
        route=endpoint.route,
        name=row["name"],
        table="",
        fields={f.name: {"ko": f.name} for f in spec.fields},
        example={},
        sources=spec.sources,
        params={name: {"ko": name} for name in names},
        required=endpoint.required,
    )


def spec_download(world, q: Query) -> list[dict[str, Any]]:
    wanted = q.get("infId")
    table = load_table("assembly")
    found = [op for op in table.operations if op.options["inf_id"] == wanted]
    found += [_handwritten_operation(r) for r in table.extra["registry"] if r["inf_id"] == wanted]
    if not found:
        raise NoData()
    return [{"infId": wanted, "xlsx": workbook("Sheet1", _spec_rows(found[0]))}]


#: the world tables a service row can name
TABLES = assembly_tables.TABLES
TABLES.update(notices=_notices, committee_members=_committee_members, services=_services)


# -- endpoints -------------------------------------------------------------------------
def _endpoint(tool: str, service: str, handler, required=(), inputs=None, outputs=None) -> Endpoint:
    return Endpoint(
        tool=tool,
        platform="assembly",
        host=HOST,
        route=service,
        protocol=PROTOCOL,
        handler=handler,
        required=tuple(required),
        inputs=dict(inputs or {}),
        outputs=dict(outputs or {}),
    )


ENDPOINTS = [
    _endpoint(
        "assembly_member_info",
        "nwvrqwxyaytdsfvhu",
        member_info,
        inputs={"HG_NM": "member_name", "POLY_NM": "party_name", "MONA_CD": "mona_cd"},
        outputs={"HG_NM": "member_name", "POLY_NM": "party_name", "MONA_CD": "mona_cd", "CMIT_NM": "committee_name"},
    ),
    _endpoint(
        "assembly_bill_search",
        "nzmimeepazxkubdpn",
        bill_search,
        required=("AGE",),
        inputs={"AGE": "assembly_age", "BILL_ID": "bill_id", "BILL_NO": "bill_no", "COMMITTEE": "committee_name"},
        outputs={
            "BILL_ID": "bill_id",
            "BILL_NO": "bill_no",
            "COMMITTEE": "committee_name",
            "AGE": "assembly_age",
            "RST_PROPOSER": "member_name",
            "RST_MONA_CD": "mona_cd",
        },
    ),
    _endpoint(
        "assembly_bill_votes",
        "nojepdqqaweusdfbi",
        bill_votes,
        required=("AGE", "BILL_ID"),
        inputs={
            "AGE": "assembly_age",
            "BILL_ID": "bill_id",
            "HG_NM": "member_name",
            "POLY_NM": "party_name",
            "MONA_CD": "mona_cd",
        },
        outputs={
            "HG_NM": "member_name",
            "POLY_NM": "party_name",
            "MONA_CD": "mona_cd",
            "BILL_ID": "bill_id",
            "BILL_NO": "bill_no",
            "CURR_COMMITTEE": "committee_name",
            "AGE": "assembly_age",
        },
    ),
    _endpoint(
        "assembly_bill_proposers",
        "BILLINFOPPSR",
        bill_proposers,
        required=("BILL_ID",),
        inputs={"BILL_ID": "bill_id"},
        outputs={"BILL_ID": "bill_id", "BILL_NO": "bill_no", "PPSR_NM": "member_name", "PPSR_POLY_NM": "party_name"},
    ),
    _endpoint(
        "assembly_committee_info",
        "nxrvzonlafugpqjuh",
        committee_info,
        inputs={"COMMITTEE_NAME": "committee_name"},
        outputs={"COMMITTEE_NAME": "committee_name", "HG_NM": "member_name"},
    ),
    _endpoint(
        "assembly_member_sns",
        "negnlnyvatsjwocar",
        member_sns,
        inputs={"HG_NM": "member_name", "MONA_CD": "mona_cd"},
        outputs={"HG_NM": "member_name", "MONA_CD": "mona_cd"},
    ),
    _endpoint("assembly_plenary_schedule", "nekcaiymatialqlxr", plenary_schedule, required=("UNIT_CD",)),
]

ENDPOINTS += endpoints("assembly", HOST, PROTOCOL, TABLES)
ENDPOINTS.append(
    Endpoint(
        tool="assembly_openapi_spec_download",
        platform="assembly",
        host=HOST,
        route=SPEC_DOWNLOAD,
        protocol=PROTOCOL,
        handler=spec_download,
        required=("infId",),
    )
)

HOSTS = {HOST: PROTOCOL}

"""The dated timeline of API changes the simulator applies at later as-of dates.

Each :class:`DriftEvent` is one change on one tool, in force from its date on.
Serving at an as-of date applies every event dated on or before it, so a
snapshot recorded at 2026-09-01 and a refresh at 2026-12-01 differ exactly by
the events in between. Record-level kinds edit records before pagination;
envelope, page-cap and result-code kinds edit the protocol's output.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kopa_replay.sim.core import Doc

__all__ = ["DRIFT_KINDS", "DriftEvent", "HISTORY", "TIMELINE", "ActiveDrift", "current_names", "events_between"]

DRIFT_KINDS = (
    "field_renamed",
    "field_removed",
    "field_added",
    "type_changed",
    "became_nullable",
    "envelope_changed",
    "page_size_cap_changed",
    "result_code_changed",
)


@dataclass(frozen=True)
class DriftEvent:
    """One dated API change. ``field`` is a record field, or an envelope key/code for doc-level kinds."""

    date: dt.date
    platform: str
    tool: str
    field: str
    kind: str
    # dataclasses.field: the bare name is shadowed by the ``field`` attribute above
    detail: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "date": self.date.isoformat(),
            "platform": self.platform,
            "tool": self.tool,
            "field": self.field,
            "kind": self.kind,
            "detail": dict(self.detail),
            "note": self.note,
        }


def _event(date: str, platform: str, tool: str, field_name: str, kind: str, note: str, **detail: Any) -> DriftEvent:
    return DriftEvent(dt.date.fromisoformat(date), platform, tool, field_name, kind, detail, note)


def _renames(date: str, platform: str, tool: str, note: str, names: Mapping[str, str]) -> tuple[DriftEvent, ...]:
    return tuple(_event(date, platform, tool, old, "field_renamed", note, to=new) for old, new in names.items())


# Seoul's card-ridership datasets replaced their field names (older clients read USE_DT/RIDE_PASGR_NUM, current
# clients and a 2026-03-27 live response read USE_YMD/GTON_TNOPE). The date was not announced: PublicDataReader
# still used the old names at its last change (2023-01-19), clients used the new ones by 2026-02-09. It is placed
# in the middle of that span; a date is needed so that an as-of date before it serves the old names.
_SEOUL_RIDERSHIP_RENAMED = "2024-08-01"
_RIDERSHIP_NOTE = "승하차 인원 항목명 표준화 | ridership field names standardised"

#: Renames from before the snapshot window (2026-09-01): the simulated datasets are built with the names they were
#: first published under, and these events give them the names the platforms use today.
HISTORY: tuple[DriftEvent, ...] = (
    *_renames(
        _SEOUL_RIDERSHIP_RENAMED,
        "seoul",
        "seoul_card_subway_stats_new",
        _RIDERSHIP_NOTE,
        {
            "USE_DT": "USE_YMD",
            "LINE_NUM": "SBWY_ROUT_LN_NM",
            "SUB_STA_NM": "SBWY_STNS_NM",
            "RIDE_PASGR_NUM": "GTON_TNOPE",
            "ALIGHT_PASGR_NUM": "GTOFF_TNOPE",
            "WORK_DT": "REG_YMD",
        },
    ),
    *_renames(
        _SEOUL_RIDERSHIP_RENAMED,
        "seoul",
        "seoul_card_bus_statistics_service_new",
        _RIDERSHIP_NOTE,
        {
            "USE_DT": "USE_YMD",
            "BUS_ROUTE_ID": "RTE_ID",
            "BUS_ROUTE_NO": "RTE_NO",
            "BUS_ROUTE_NM": "RTE_NM",
            "STND_BSST_ID": "STOPS_ID",
            "BSST_ARS_NO": "STOPS_ARS_NO",
            "BUS_STA_NM": "SBWY_STNS_NM",
            "RIDE_PASGR_NUM": "GTON_TNOPE",
            "ALIGHT_PASGR_NUM": "GTOFF_TNOPE",
            "WORK_DT": "REG_YMD",
        },
    ),
)


def current_names(tool: str, names: Mapping[str, Any], history: Iterable[DriftEvent] = HISTORY) -> dict[str, Any]:
    """``names`` (field → anything) with each field under the name it has today, after the historical renames."""
    renamed = dict(names)
    for event in history:
        if event.tool == tool and event.kind == "field_renamed" and event.field in renamed:
            renamed = {(event.detail["to"] if k == event.field else k): v for k, v in renamed.items()}
    return renamed


#: The simulated API changes: the historical renames, then those between 2026-09-01 and 2026-12-01, oldest first.
TIMELINE: tuple[DriftEvent, ...] = HISTORY + (
    _event(
        "2026-09-15",
        "datagokr",
        "datagokr_get_stock_price_info",
        "fltRt",
        "type_changed",
        "등락률이 문자열에서 숫자로 바뀜 | fluctuation rate sent as a JSON number",
        to="number",
    ),
    _event(
        "2026-09-22",
        "dart",
        "dart_company",
        "ir_url",
        "field_removed",
        "IR 홈페이지 항목 삭제 | IR URL no longer returned",
    ),
    _event(
        "2026-10-01",
        "neis",
        "neis_school_info",
        "SCHUL_ABRV_NM",
        "field_added",
        "학교 약칭 항목 추가 | school short name added",
        copy="SCHUL_NM",
    ),
    _event(
        "2026-10-13",
        "tago",
        "tago_get_sttn_accto_arvl_prearnge_info_list",
        "vehicletp",
        "became_nullable",
        "차량유형이 비어 올 수 있음 | vehicle type may be null",
        share=0.4,
    ),
    _event(
        "2026-10-20",
        "assembly",
        "assembly_member_info",
        "ENG_NM",
        "field_renamed",
        "영문 이름 항목명 변경 | English name field renamed",
        to="HG_ENG_NM",
    ),
    _event(
        "2026-11-02",
        "seoul",
        "seoul_card_subway_stats_new",
        "END",
        "page_size_cap_changed",
        "한 번에 요청 가능한 건수 1000 → 500 | page size cap lowered",
        max_size=500,
    ),
    _event(
        "2026-11-10",
        "krx",
        "krx_stk_bydd_trd",
        "OutBlock_1",
        "envelope_changed",
        "응답 블록 이름 변경 | response block renamed",
        to="OutBlock_2",
    ),
    _event(
        "2026-11-17",
        "tago",
        "tago_get_route_no_list",
        "resultCode",
        "result_code_changed",
        "정상 코드 00 → 0 | normal result code changed",
        **{"from": "00", "to": "0"},
    ),
    _event(
        "2026-11-24",
        "gg",
        "gg_gen_anmal_hosptl",
        "BIZPLC_NM",
        "field_renamed",
        "사업장명 항목명 변경 | business name field renamed",
        to="BIZPLC_NM_INFO",
    ),
)


def events_between(
    since: dt.date | None = None, until: dt.date | None = None, timeline: Iterable[DriftEvent] = TIMELINE
) -> list[DriftEvent]:
    """Events with ``since < date <= until`` (either bound optional), oldest first."""
    return sorted(
        (e for e in timeline if (since is None or e.date > since) and (until is None or e.date <= until)),
        key=lambda e: (e.date, e.platform, e.tool, e.field),
    )


def _nullable_pick(tool: str, field_name: str, record: Mapping[str, Any], share: float) -> bool:
    import hashlib

    text = json.dumps(record, ensure_ascii=False, sort_keys=True, default=str)
    digest = hashlib.sha256(f"{tool}|{field_name}|{text}".encode()).digest()
    return digest[0] / 256 < share


def _to_number(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    text = value.replace(",", "").strip()
    try:
        number = float(text)
    except ValueError:
        return value
    return int(number) if number.is_integer() and "." not in text else number


class ActiveDrift:
    """The events in force for one tool at one as-of date."""

    def __init__(self, tool: str | None, events: Iterable[DriftEvent]) -> None:
        self.tool = tool
        self.events = tuple(events)

    @classmethod
    def at(cls, tool: str | None, as_of: dt.date, timeline: Iterable[DriftEvent] = TIMELINE) -> "ActiveDrift":
        return cls(tool, (e for e in timeline if e.tool == tool and e.date <= as_of) if tool else ())

    def __bool__(self) -> bool:
        return bool(self.events)

    def result_code(self, code: str) -> str:
        for event in self.events:
            if event.kind == "result_code_changed" and event.detail.get("from") == code:
                code = event.detail["to"]
        return code

    def page_cap(self, default: int | None) -> int | None:
        cap = default
        for event in self.events:
            if event.kind == "page_size_cap_changed":
                cap = int(event.detail["max_size"])
        return cap

    def _record_steps(self) -> list[DriftEvent | dict[str, str]]:
        """The record-level events in order, each run of renames folded into one old → new map, so a dataset
        renamed field by field (Seoul's ridership: ten events) costs one pass per record, not ten."""
        steps: list[DriftEvent | dict[str, str]] = []
        for event in self.events:
            if event.kind not in ("field_renamed", "field_removed", "field_added", "type_changed", "became_nullable"):
                continue
            if event.kind != "field_renamed":
                steps.append(event)
                continue
            renames = steps[-1] if steps else None
            if not isinstance(renames, dict):
                renames = {}
                steps.append(renames)
            earlier = next((old for old, new in renames.items() if new == event.field), None)
            renames[event.field if earlier is None else earlier] = event.detail["to"]  # a → b then b → c: a → c
        return steps

    def apply_records(self, records: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
        """The records as the record-level events in force shape them, each made as it is read: a page of a
        long answer costs its own rows, not the whole list's (the simulator keeps the result for its pages)."""
        steps = self._record_steps()
        if not steps:
            return records
        return _Drifted(records, steps)

    def apply_doc(self, doc: Doc) -> Doc:
        for event in self.events:
            if event.kind == "envelope_changed" and isinstance(doc.body, dict) and event.field in doc.body:
                doc.body = {(event.detail["to"] if k == event.field else k): v for k, v in doc.body.items()}
        return doc


def _drifted(record: dict[str, Any], steps: list[DriftEvent | dict[str, str]]) -> dict[str, Any]:
    """One record after the record-level drift steps (:meth:`ActiveDrift._record_steps`)."""
    new = dict(record)
    for event in steps:
        if isinstance(event, dict):
            new = {event.get(k, k): v for k, v in new.items()}
            continue
        name = event.field
        if event.kind == "field_removed":
            new.pop(name, None)
        elif event.kind == "field_added":
            source = event.detail.get("copy")
            new[name] = new.get(source, "") if source else event.detail.get("value", "")
        elif event.kind == "type_changed" and name in new:
            new[name] = _to_number(new[name])
        elif (
            event.kind == "became_nullable"
            and name in new
            and _nullable_pick(event.tool, name, record, float(event.detail.get("share", 0.3)))
        ):
            new[name] = None
    return new


class _Drifted(Sequence):
    """Records with the drift in force applied as they are read (a page at a time)."""

    def __init__(self, records: Sequence[dict[str, Any]], steps: list[DriftEvent | dict[str, str]]) -> None:
        self._records, self._steps = records, steps

    def __len__(self) -> int:
        return len(self._records)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [_drifted(r, self._steps) for r in self._records[index]]
        return _drifted(self._records[index], self._steps)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (_drifted(r, self._steps) for r in self._records)

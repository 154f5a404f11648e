"""What a field of a tool's output is good for: a measure to compute with, a label to name an entity by.

Read from the catalog's signatures (name, Korean/English description, the
concept groups of :mod:`kopa_replay.text.concepts`) *and* from the records a
call returned: a field is a measure only if its values parse as platform
numbers. Identifiers, dates, coordinates and codes are numbers too, but an
answer that adds up corporate codes or takes the "largest" latitude is not a
question anyone asks, so the signature rules them out. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kopa_replay.catalog.model import Tool
from kopa_replay.text.concepts import CONCEPTS, NAME, concepts_of, shape_of
from kopa_replay.text.numbers import as_number

__all__ = ["numbers_of", "measure_fields", "label_fields", "unit_of", "is_measure", "quantity_class", "ADDITIVE"]

# The description's words for values that are numbers without being quantities.
_NOT_A_QUANTITY = re.compile(
    r"코드|번호|일자|일시|날짜|년도|연도|년월|순서|순번|정렬|위도|경도|좌표|우편|전화|팩스|시각|기준일|결산월|차수|대수"
    r"|여부|유형|구분|교시|학기|키"
    r"|\b(code|id|ids|identifier|number(?! of)|no\.|date|day|year|month|time of|order|sequence|row|rank"
    r"|latitude|longitude|coordinate|zip|postal|phone|fax|series|version|flag|type|whether|key|period|semester)\b",
    re.IGNORECASE,
)
# Name endings that say the same when the description is terse.
_NOT_A_QUANTITY_NAME = re.compile(
    r"(_?cd|code|_?id|_?no|_?sn|_?seq|ymd|_?dt|_?de|_?dd|date|year|_?yr|lat|lng|lnt|logt|long|gpsx|gpsy|posx|posy"
    r"|tmx|tmy|zip\w*|ord|order|gbn|yn|flag|tp|type\d?|_se)$|^is[A-Z_]|congest|congetion",
    re.IGNORECASE,
)
# Units as the descriptions write them, in the order they are looked for.
_UNITS = tuple(
    (re.compile(pattern, re.IGNORECASE), unit)
    for pattern, unit in (
        (r"%", "%"),
        (r"만원", "만원"),
        (r"\(원|\bwon\b", "원"),
        (r"\bppm\b", "ppm"),
        (r"㎍/㎥|µg/m³", "㎍/㎥"),
        (r"㎡", "㎡"),
        (r"\(초\)|\bseconds?\b", "s"),
        (r"\(명\)", "명"),
        (r"\bkm\b", "km"),
    )
)
_NAME_CONCEPTS = frozenset(c.name for c in CONCEPTS if c.strength == NAME)


def numbers_of(records: Iterable[Mapping[str, Any]], field: str) -> list[float | int] | None:
    """The field's values as numbers (blanks skipped), or None when any value is not a platform number."""
    out: list[float | int] = []
    for record in records:
        value = record.get(field)
        if isinstance(value, (dict, list)):
            return None
        try:
            number = as_number(value)
        except ValueError:
            return None
        if number is not None:
            out.append(number)
    return out


def is_measure(tool: Tool, field: str) -> bool:
    """The signature allows reading ``field`` as a quantity (not an identifier, date, code or coordinate)."""
    schema = tool.output_field_schema(field)
    if schema.get("type") == "boolean" or concepts_of(field, schema) or shape_of(schema) is not None:
        return False
    if _NOT_A_QUANTITY_NAME.search(field):
        return False
    return not _NOT_A_QUANTITY.search(str(schema.get("description", "")))


def measure_fields(tool: Tool, records: Sequence[Mapping[str, Any]], *, min_values: int = 1) -> list[str]:
    """Output fields of ``tool`` that are quantities here: allowed by the signature, numeric in every record
    that has them, and present in at least ``min_values`` records. Sorted."""
    present = sorted({key for record in records for key in record})
    out = []
    for field in present:
        if field not in tool.output_fields or not is_measure(tool, field):
            continue
        numbers = numbers_of(records, field)
        if numbers is not None and len(numbers) >= min_values:
            out.append(field)
    return out


def label_fields(tool: Tool, records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Fields that name an entity (a company, district, route, stop, school, member …) and are filled. Sorted."""
    present = sorted(
        {key for record in records for key, value in record.items() if isinstance(value, str) and value.strip()}
    )
    return [
        field
        for field in present
        if field in tool.output_fields and _NAME_CONCEPTS & set(concepts_of(field, tool.output_field_schema(field)))
    ]


def _parts(tool: Tool, field: str) -> tuple[str, str]:
    """The description's Korean head and English tail (they are written ``한국어 | English``)."""
    text = str(tool.output_field_schema(field).get("description", ""))
    korean, _, english = text.partition("|")
    return korean, english or korean


def unit_of(tool: Tool, field: str) -> str:
    """The unit the field's description names (``원``, ``%``, ``ppm`` …), or ``""``.

    The last unit written in the Korean head wins — units trail the name (``잔여 발행한도(원)``
    is in won even though it mentions 70%) — else the English tail's.
    """
    for text in _parts(tool, field):
        found = [(match.start(), unit) for pattern, unit in _UNITS for match in pattern.finditer(text)]
        if found:
            return max(found)[1]
    return ""


# What a quantity is, from the English tail of its description (the unit decides first, see quantity_class).
_CLASSES = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        ("change", r"\bchange\b|\bfrom the previous\b"),
        ("rate", r"\brate\b|\bratio\b|\bshare of\b|%"),
        ("price", r"\bprice\b|\bclose\b|\bopen\b|\bhigh\b|\blow\b|\bpar value\b"),
        ("time", r"\bseconds?\b|\bminutes?\b|\bheadway\b|\binterval\b|\bhours?\b"),
        ("distance", r"\bkm\b|\blength\b|\bdistance\b|\bmetres?\b|\bmeters?\b"),
        ("area", r"\barea\b|㎡"),
        (
            "amount",
            r"\bamount\b|\bvalue\b|\bvolume\b|\bcapital\b|\bassets\b|\bdebt\b|\bsales\b|\bprofit|"
            r"\bdeposit\b|\brent\b|\bfunds?\b|\blimit\b|\bmarket cap|\bsalary|\bdividend",
        ),
        (
            "count",
            r"\bcount\b|\bnumber of\b|\bboardings\b|\balightings\b|\bpopulation\b|\bseats\b|\bbooks\b|"
            r"\bmembers\b|\bhouseholds\b|\bemployees\b|\bshares\b|\bresidents\b|\bstops\b|\bdiners\b|"
            r"\bbikes\b|\bracks\b|\bpeople\b|\bdirectors\b|\bmales\b|\bfemales\b",
        ),
    )
)
_BY_UNIT = {
    "%": "rate",
    "ppm": "concentration",
    "㎍/㎥": "concentration",
    "㎡": "area",
    "s": "time",
    "명": "count",
    "km": "distance",
}
#: classes whose values add up to something (a total of boardings, of won, of ㎡); prices, rates and times do not
ADDITIVE = frozenset({"amount", "count", "area", "distance"})


def quantity_class(tool: Tool, field: str) -> str:
    """What kind of quantity the field is: rate, change, price, concentration, area, time, distance, amount,
    count — or ``""``. A unit decides where it can (won is a price or an amount; % a rate), words otherwise."""
    unit = unit_of(tool, field)
    english = _parts(tool, field)[1]
    if unit in _BY_UNIT and not (unit == "%" and _CLASSES[0][1].search(english)):
        return _BY_UNIT[unit]
    classes = dict(_CLASSES)
    if unit in ("원", "만원"):  # won: a change, a price, or else an amount of money
        return next((name for name in ("change", "price") if classes[name].search(english)), "amount")
    return next((name for name, pattern in _CLASSES if pattern.search(english)), "")

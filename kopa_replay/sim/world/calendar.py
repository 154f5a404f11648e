"""Korean business-day calendar and the date formats the platforms use."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

__all__ = [
    "HOLIDAYS",
    "is_business_day",
    "business_days",
    "previous_business_day",
    "ymd",
    "parse_ymd",
    "korean_date",
    "dashed",
]

#: Korean public holidays (incl. substitutes and the Lunar New Year / Chuseok
#: three-day breaks) that close the exchange, 2024-2027.
HOLIDAYS = frozenset(
    dt.date.fromisoformat(d)
    for d in (
        "2024-01-01",
        "2024-02-09",
        "2024-02-12",
        "2024-03-01",
        "2024-04-10",
        "2024-05-01",
        "2024-05-06",
        "2024-05-15",
        "2024-06-06",
        "2024-08-15",
        "2024-09-16",
        "2024-09-17",
        "2024-09-18",
        "2024-10-01",
        "2024-10-03",
        "2024-10-09",
        "2024-12-25",
        "2024-12-31",
        "2025-01-01",
        "2025-01-27",
        "2025-01-28",
        "2025-01-29",
        "2025-01-30",
        "2025-03-03",
        "2025-05-01",
        "2025-05-05",
        "2025-05-06",
        "2025-06-03",
        "2025-06-06",
        "2025-08-15",
        "2025-10-03",
        "2025-10-06",
        "2025-10-07",
        "2025-10-08",
        "2025-10-09",
        "2025-12-25",
        "2025-12-31",
        "2026-01-01",
        "2026-02-16",
        "2026-02-17",
        "2026-02-18",
        "2026-03-02",
        "2026-05-01",
        "2026-05-05",
        "2026-05-25",
        "2026-06-03",
        "2026-08-17",
        "2026-09-24",
        "2026-09-25",
        "2026-10-05",
        "2026-10-09",
        "2026-12-25",
        "2026-12-31",
        "2027-01-01",
        "2027-02-08",
        "2027-02-09",
        "2027-03-01",
        "2027-05-05",
        "2027-05-13",
        "2027-06-07",
        "2027-08-16",
        "2027-09-14",
        "2027-09-15",
        "2027-09-16",
        "2027-10-04",
        "2027-10-11",
        "2027-12-27",
        "2027-12-31",
    )
)


def is_business_day(day: dt.date) -> bool:
    """Weekday and not a public holiday: the exchange trades and prices exist."""
    return day.weekday() < 5 and day not in HOLIDAYS


@lru_cache(maxsize=64)
def business_days(start: dt.date, end: dt.date) -> tuple[dt.date, ...]:
    """Business days in [start, end], both inclusive, ascending."""
    days = []
    day = start
    while day <= end:
        if is_business_day(day):
            days.append(day)
        day += dt.timedelta(days=1)
    return tuple(days)


def previous_business_day(day: dt.date) -> dt.date:
    """The last business day strictly before ``day``."""
    day -= dt.timedelta(days=1)
    while not is_business_day(day):
        day -= dt.timedelta(days=1)
    return day


def ymd(day: dt.date) -> str:
    """``YYYYMMDD``, the format of basDt, rcept_dt, MLSV_YMD …"""
    return day.strftime("%Y%m%d")


def dashed(day: dt.date) -> str:
    """``YYYY-MM-DD`` (Assembly, some Seoul datasets)."""
    return day.isoformat()


def parse_ymd(text: str) -> dt.date | None:
    """``YYYYMMDD`` (or ``YYYY-MM-DD``) to a date; None when it is not a real calendar date."""
    text = (text or "").strip().replace("-", "")
    if len(text) != 8 or not text.isdigit():
        return None
    try:
        return dt.date(int(text[:4]), int(text[4:6]), int(text[6:]))
    except ValueError:
        return None


def korean_date(day: dt.date) -> str:
    """``2029년 12월 24일``, as DART writes dates inside event reports."""
    return f"{day.year}년 {day.month:02d}월 {day.day:02d}일"

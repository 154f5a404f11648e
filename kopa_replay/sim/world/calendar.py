"""Korean business-day calendar and the date formats the platforms use."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

from kopa_replay.sim.world.fmt import data

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

HOLIDAYS = frozenset(data("calendar")["HOLIDAYS"])  # public holidays that close the exchange, 2024-2027


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

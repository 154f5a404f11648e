"""The report's Korean font: NanumGothic from the koreanize-matplotlib package, subset for the page and used by the
plots, without touching matplotlib's global settings."""

from __future__ import annotations

import base64
import importlib.util
import io
import re

import pytest
from fontTools.ttLib import TTFont

from kopa_replay.errors import UsageError
from kopa_replay.graph import fonts
from kopa_replay.graph.fonts import FAMILY, font_face_css, font_path, korean_font, subset_font
from kopa_replay.graph.plots import Bars, bar_chart

TEXT = "서울 구로구 2814910.8㎡ → 등록일시 ≥ 2 «없는 글자 ✓»"
ASCII = {chr(code) for code in range(0x20, 0x7F)}


def cmap(data: bytes) -> set[str]:
    with TTFont(io.BytesIO(data)) as font:
        return set(map(chr, font.getBestCmap()))


def test_the_font_is_nanum_gothic_from_the_package_found_without_importing_it():
    import sys

    path = font_path()
    assert path.name == "NanumGothic.ttf" and path.parent.parent.name == "koreanize_matplotlib"
    assert "koreanize_matplotlib" not in sys.modules  # its import would set matplotlib's rcParams


def test_a_subset_holds_the_texts_characters_the_font_has_and_ascii(tmp_path):
    with TTFont(str(font_path()), lazy=True) as nanum:
        full = set(map(chr, nanum.getBestCmap()))
    assert "✓" not in full  # a character NanumGothic lacks: left to the page's fallback fonts
    has = cmap(subset_font(TEXT))
    assert has == (set(TEXT) | ASCII) & full
    assert {"서", "㎡", "→", "≥"} <= has and "가" not in has


def test_the_same_text_gives_the_same_bytes_another_text_others():
    uncached = subset_font.__wrapped__  # the cache would hand back the very same object
    first, again = uncached(TEXT), uncached(TEXT)
    assert first == again and first.startswith(b"wOFF")
    assert uncached(TEXT + "가") != first
    with TTFont(io.BytesIO(first)) as font, TTFont(str(font_path()), lazy=True) as nanum:
        assert font["head"].modified == nanum["head"].modified  # no timestamp recalculated on saving


def test_the_subset_is_renamed_and_keeps_its_notice_and_licence():
    with TTFont(io.BytesIO(subset_font(TEXT))) as font:
        names = {record.nameID: str(record) for record in font["name"].names}
    assert names[1] == FAMILY and all("Nanum" not in value for value in names.values())  # the OFL's reserved name
    assert "NHN Corporation" in names[0]  # the copyright notice stays
    assert "SIL Open Font License" in names[13]


def test_the_css_rule_embeds_the_subset():
    css = font_face_css(TEXT)
    assert f'font-family: "{FAMILY}"' in css and "SIL Open Font License 1.1" in css
    found = re.search(r"url\(data:font/woff;base64,([A-Za-z0-9+/=]+)\)", css)
    assert found and base64.b64decode(found.group(1)) == subset_font(TEXT)


def test_a_missing_font_package_is_a_usage_error_naming_it(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(fonts.importlib.util, "find_spec", lambda name: None if "koreanize" in name else real(name))
    with pytest.raises(UsageError, match="pip install koreanize-matplotlib"):
        font_path()


def _hangul_chart() -> bytes:
    return bar_chart([Bars("서울 구로구 ㎡", ("등록일시", "부칙"), (("ours", (0.5, None)), ("paper", (0.25, 0.75))))])


def test_plots_draw_hangul_in_the_font_and_leave_rcparams_alone():
    import matplotlib

    before = dict(matplotlib.rcParams)
    # the suite turns warnings into errors: a glyph missing from the fonts would fail here
    png = _hangul_chart()
    assert png.startswith(b"\x89PNG") and png == _hangul_chart()
    assert dict(matplotlib.rcParams) == before
    with korean_font():
        assert matplotlib.rcParams["font.family"][0] == "NanumGothic"
    assert dict(matplotlib.rcParams) == before


def test_without_the_font_matplotlib_would_miss_the_glyphs(monkeypatch):
    from contextlib import nullcontext

    from kopa_replay.graph import plots

    monkeypatch.setattr(plots, "korean_font", nullcontext)  # matplotlib's own font: no Hangul
    with pytest.warns(UserWarning, match="missing from font"):
        _hangul_chart()


def test_a_series_of_the_wrong_length_is_a_usage_error():
    with pytest.raises(UsageError, match="'ours' of 'x' has 1 values for 2 categories"):
        bar_chart([Bars("x", ("a", "b"), (("ours", (0.5,)),))])
    with pytest.raises(UsageError, match="at least one panel"):
        bar_chart([])

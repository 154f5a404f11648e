"""The Korean font the plots draw with and the pipeline report embeds: NanumGothic from a package registry.

Hangul and symbols such as ㎡ show as boxes on a machine without a CJK font, so nothing relies on the system's
fonts. The font comes from the PyPI package ``koreanize-matplotlib`` (MIT), which ships NanumGothic (NHN/Naver,
SIL Open Font License 1.1); it is located on disk and never imported, as importing it sets matplotlib's global
rcParams.

* :func:`korean_font` — a context in which matplotlib draws with NanumGothic (DejaVu Sans for what it lacks);
  the font is registered with matplotlib's font manager, the rcParams change only inside the context;
* :func:`subset_font` — the font cut to the characters of a text, as WOFF bytes: the same text gives the same
  bytes (no timestamp is recalculated), so a report holding it stays byte-identical from run to run;
* :func:`font_face_css` — the ``@font-face`` rule embedding such a subset as a ``data:`` URL.

A subset is a modified version under the OFL, which reserves the font's name: the subset is named
:data:`FAMILY` and keeps the copyright notice and the licence's name.
"""

from __future__ import annotations

import base64
import importlib.util
import io
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from kopa_replay.errors import UsageError

__all__ = ["FAMILY", "FONT_FILE", "FONT_LICENSE", "font_face_css", "font_path", "korean_font", "subset_font"]

#: the family name of the embedded subset (the page's CSS names it first)
FAMILY = "KopaReport"
#: the font's file inside the koreanize_matplotlib package
FONT_FILE = "fonts/NanumGothic.ttf"
FONT_LICENSE = "NanumGothic (NHN/Naver), SIL Open Font License 1.1, from the PyPI package koreanize-matplotlib"
_PACKAGE = "koreanize_matplotlib"
_INSTALL = "pip install koreanize-matplotlib==0.1.1"
#: name table records kept in a subset: copyright, family, style, unique id, full name, licence, licence URL
_NAMES = {
    1: FAMILY,
    3: f"{FAMILY}-subset",
    4: FAMILY,
    6: FAMILY,
    13: "This Font Software is licensed under the SIL Open Font License, Version 1.1.",
    14: "https://openfontlicense.org",
}
#: printable ASCII, always in a subset: text the page adds later (a figure's alt text, a number) still renders
_ASCII = "".join(chr(code) for code in range(0x20, 0x7F))
#: the fallback for what NanumGothic lacks (matplotlib's own font, always there)
_FALLBACK = "DejaVu Sans"


def font_path() -> Path:
    """NanumGothic.ttf inside the installed ``koreanize_matplotlib`` package (found without importing it)."""
    spec = importlib.util.find_spec(_PACKAGE)  # a top-level package: nothing of it is executed
    locations = list(spec.submodule_search_locations or ()) if spec else []
    for location in locations:
        path = Path(location) / FONT_FILE
        if path.is_file():
            return path
    raise UsageError(f"the report's Korean font ({FONT_FILE} of {_PACKAGE}) is not installed: {_INSTALL}")


@lru_cache(maxsize=1)
def _matplotlib_name() -> str:
    from matplotlib import font_manager

    path = font_path()
    font_manager.fontManager.addfont(str(path))  # the manager's list of fonts, not rcParams
    return str(font_manager.FontProperties(fname=str(path)).get_name())


@contextmanager
def korean_font() -> Iterator[None]:
    """Inside: matplotlib draws text with NanumGothic, DejaVu Sans for the glyphs it lacks. Hold it while a figure
    is built *and* saved: tick labels are made when the figure is drawn."""
    try:
        import matplotlib
    except ImportError as exc:
        raise UsageError(f"plotting needs matplotlib (pip install matplotlib): {exc}") from exc

    with matplotlib.rc_context({"font.family": [_matplotlib_name(), _FALLBACK]}):
        yield


@lru_cache(maxsize=8)
def subset_font(text: str) -> bytes:
    """NanumGothic cut to the characters of ``text`` (and printable ASCII) it has glyphs for, as WOFF bytes.

    WOFF (zlib) rather than WOFF2: WOFF2 needs the brotli package, and the bytes must not depend on whether it is
    installed. Hinting and layout features are dropped (a screen font of plain text needs neither).
    """
    from fontTools import subset
    from fontTools.ttLib import TTFont

    options = subset.Options()
    options.flavor = "woff"
    options.hinting = False
    options.layout_features = []
    options.bidi_closure = False  # no right-to-left text: "≥" brings no mirrored "≤" along, the subset is the text's
    options.name_IDs = sorted({0, 2, *_NAMES})
    options.name_languages = [0x409]
    # the font's VTT sources, which the subsetter would drop with a warning on the log
    options.drop_tables = [*options.drop_tables, "TSI0", "TSI1", "TSI2", "TSI3", "TSI5"]
    buffer = io.BytesIO()
    with TTFont(str(font_path()), recalcTimestamp=False, lazy=True) as font:  # recalcTimestamp: no clock in the bytes
        codes = sorted({ord(ch) for ch in set(text) | set(_ASCII)} & set(font.getBestCmap()))
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=codes)
        subsetter.subset(font)
        name = font["name"]
        for name_id, value in sorted(_NAMES.items()):
            name.removeNames(nameID=name_id)
            name.setName(value, name_id, 3, 1, 0x409)
        font.flavor = "woff"
        font.save(buffer, reorderTables=True)
    return buffer.getvalue()


def font_face_css(text: str) -> str:
    """An ``@font-face`` rule for :data:`FAMILY`: :func:`subset_font` of ``text`` inlined as a ``data:`` URL."""
    data = base64.b64encode(subset_font(text)).decode("ascii")
    return (
        f"/* {FONT_LICENSE}; subset to this page's characters */\n"
        f'@font-face {{ font-family: "{FAMILY}"; font-style: normal; font-weight: 400; '
        f'src: url(data:font/woff;base64,{data}) format("woff"); }}'
    )

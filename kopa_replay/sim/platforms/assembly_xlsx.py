"""A minimal .xlsx (Office Open XML spreadsheet) written by hand: one sheet of inline strings.

Deterministic bytes (fixed member order and timestamps), no dependency beyond ``zipfile``: enough for
openpyxl, pandas and the portal's own clients to read the 열린국회정보 service specification
(``downloadOpenApiSpec.do``).
"""

from __future__ import annotations

import io
import zipfile
from xml.sax.saxutils import escape

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    "</Types>"
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="xl/workbook.xml"/></Relationships>'
)
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" '
    'Target="worksheets/sheet1.xml"/></Relationships>'
)
_NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_R_NS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'


def _column(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def _sheet(rows: list[list[str]]) -> str:
    out = []
    for r, row in enumerate(rows, start=1):
        cells = "".join(
            f'<c r="{_column(c)}{r}" t="inlineStr"><is><t xml:space="preserve">{escape(value)}</t></is></c>'
            for c, value in enumerate(row)
            if value != ""
        )
        out.append(f'<row r="{r}">{cells}</row>')
    return (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet {_NS}><sheetData>'
        + "".join(out)
        + "</sheetData></worksheet>"
    )


def workbook(sheet_name: str, rows: list[list[str]]) -> bytes:
    """The bytes of a one-sheet workbook holding ``rows`` (strings; "" leaves a cell empty)."""
    book = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook {_NS} {_R_NS}><sheets>'
        f'<sheet name="{escape(sheet_name, {chr(34): "&quot;"})}" sheetId="1" r:id="rId1"/></sheets></workbook>'
    )
    parts = (
        ("[Content_Types].xml", _CONTENT_TYPES),
        ("_rels/.rels", _RELS),
        ("xl/workbook.xml", book),
        ("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS),
        ("xl/worksheets/sheet1.xml", _sheet(rows)),
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o600 << 16
            archive.writestr(info, text.encode("utf-8"))
    return buffer.getvalue()

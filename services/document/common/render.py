"""Blocks to Markdown (the page) and to DOCX (the file a person prints and signs)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from datetime import datetime

from docx import Document
from docx.oxml.ns import qn
from docx.shared import Pt

from services.document.common.layout import Block, Heading, Paragraph, Table

KOREAN_FONT = "맑은 고딕"
# A fixed moment for the DOCX's timestamps: the same contract must give the same bytes, so the
# content hash (the artifact id) is stable and a retried step stores nothing new.
FIXED_TIME = datetime(2020, 1, 1)
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def to_markdown(blocks: Sequence[Block]) -> str:
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            lines += [f"{'#' * block.level} {block.text}", ""]
        elif isinstance(block, Paragraph):
            lines += [block.text, ""]
        else:
            lines += [_md_row(block.header), _md_row(tuple("---" for _ in block.header))]
            lines += [_md_row(row) for row in block.rows] + [""]
    return "\n".join(lines)


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") or " " for cell in cells) + " |"


def to_docx(blocks: Sequence[Block], title: str) -> bytes:
    document = Document()
    _use_korean_font(document)
    props = document.core_properties
    props.title, props.author, props.created, props.modified = title, "Jipsa", FIXED_TIME, FIXED_TIME
    props.last_modified_by, props.revision = "Jipsa", 1
    for block in blocks:
        if isinstance(block, Heading):
            document.add_heading(block.text, level=block.level)
        elif isinstance(block, Paragraph):
            document.add_paragraph(block.text)
        else:
            _add_table(document, block)
    raw = io.BytesIO()
    document.save(raw)
    return _stable_zip(raw.getvalue())


def _add_table(document, table: Table) -> None:
    docx_table = document.add_table(rows=1 + len(table.rows), cols=len(table.header))
    docx_table.style = "Table Grid"
    for r, row in enumerate((table.header, *table.rows)):
        for c, text in enumerate(row):
            docx_table.cell(r, c).text = text
    document.add_paragraph()


def _use_korean_font(document) -> None:
    """Hangul needs an East Asian font named in the style, or Word falls back to one without it."""
    for style_name in ("Normal", "Title", "Heading 1", "Heading 2", "Heading 3"):
        font = document.styles[style_name].font
        font.name = KOREAN_FONT
        font.element.rPr.rFonts.set(qn("w:eastAsia"), KOREAN_FONT)
    document.styles["Normal"].font.size = Pt(10)


def _stable_zip(docx: bytes) -> bytes:
    """python-docx stamps each zip entry with the current time; rewrite them with a fixed one."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(docx)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for entry in src.infolist():
            stamped = zipfile.ZipInfo(entry.filename, date_time=ZIP_TIME)
            dst.writestr(stamped, src.read(entry.filename), compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()

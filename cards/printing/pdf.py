"""Print-ready PDF sheets of a series' cards (R18, SPEC §1: "generated cards can be printed").

Every card shows the hall, the series (letter and order number, R16-R18), the card number, the
price in the hall's currency, the series colour (the band and border: the back colour) and the
price colour (the price box: the face colour), the check code and a QR code that leads to the
public card check: ``{BINGO_PUBLIC_URL}/verificar/?serie={series}&cartao={number}&codigo={code}``.

Speed (a K series of 1,680 cards in well under a second) comes from three choices:

* everything that is the same on every card of a series (frame, band, hall, series, price, grid
  lines, B I N G O heads, free centre, pre-drawn pattern) is drawn once, as a PDF form that each
  card reuses;
* what changes from card to card (numbers, blank cells, card number, check code, QR) is written
  as PDF operators from pre-formatted pieces, through ReportLab's ``Canvas.addLiteral``;
* the QR codes of the whole run are encoded at once with numpy (:func:`qr_matrices`), checked
  module for module against segno by the tests, and drawn as one path of merged dark runs each.

The cards are read once (``card_set_cells``) and no database lock is held while rendering. The
page (A4) and the fonts are the other PDFs' (``bingo.common.pdf``); the sheet is drawn here.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

import numpy as np
import segno
from django.utils.translation import gettext as _
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from segno import consts as qr_consts

from bingo.common.money import money_display
from bingo.common.pdf import FONT, FONT_BOLD, PAGE_HEIGHT, PAGE_WIDTH
from bingo.engine import Variant, geometry
from cards.models import Series
from cards.payload import card_check_url
from cards.selectors import card_check_code, card_set_cells

Progress = Callable[[int], None]

MARGIN = 10 * mm
GAP = 3 * mm  # between cards: room to cut
FOOTER = 12.0  # height kept for the page footer under the cards

FONT_CODE = "Courier-Bold"
#: Advance widths (in ems) of a digit in Helvetica-Bold and of any character in Courier: the
#: fonts are fixed, so a number is centred without measuring it.
DIGIT_EM = 0.556
COURIER_EM = 0.6

INK = (0.08, 0.08, 0.1)
GRID_GREY = 0.55
BLANK_GREY = 0.82  # 90-ball cells with no number
#: R64: the four lines of an 80-ball card each in a colour of its own (light, under dark numbers).
ROW_COLOURS_80 = ("#FFCDD2", "#C8E6C9", "#BBDEFB", "#FFE0B2")


@dataclass(frozen=True)
class SheetLayout:
    """How many cards a sheet holds (across x down) and where the QR code and card details go:
    ``"row"`` puts details and QR side by side right of the grid (wide 90-ball cards),
    ``"stack"`` piles them up right of the grid."""

    across: int
    down: int
    panel: str


#: 90-ball: a strip of six across the page; 80 and 75: six; 30: eight.
SHEETS = {
    Variant.B90: SheetLayout(1, 6, "row"),
    Variant.B80: SheetLayout(2, 3, "stack"),
    Variant.B75: SheetLayout(2, 3, "stack"),
    Variant.B30: SheetLayout(2, 4, "stack"),
}


# --- public helpers ---------------------------------------------------------------------------


def cards_per_page(variant: Variant | str) -> int:
    """How many cards of ``variant`` one A4 sheet holds."""
    sheet = SHEETS[Variant(variant)]
    return sheet.across * sheet.down


def page_count(variant: Variant | str, cards: int) -> int:
    """Sheets needed to print ``cards`` cards of ``variant``."""
    per_page = cards_per_page(variant)
    return -(-cards // per_page)


# --- QR codes, many at once -------------------------------------------------------------------

#: Error correction level M (15 % of the symbol may be lost: a fold, a smudge, a pen mark).
QR_ERROR = qr_consts.ERROR_LEVEL_M
#: One fixed data mask for every code. Any mask is valid (readers take it from the format
#: information); searching the best of the eight per code would cost more than the whole sheet.
QR_MASK = 2
QR_QUIET = 2  # modules of white kept around each code inside its square (the card is white too)

#: Error correction blocks per version and level (ISO/IEC 18004 table 9), typed for mypy.
_QR_BLOCKS = cast(dict[int, dict[int, tuple[Any, ...]]], qr_consts.ECC)
_GF_EXP = np.array(qr_consts.GALIOS_EXP, dtype=np.intp)
_GF_LOG = np.array(qr_consts.GALIOS_LOG, dtype=np.intp)
_MASKS: dict[int, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    0: lambda i, j: (i + j) % 2 == 0,
    1: lambda i, j: i % 2 == 0,
    2: lambda i, j: j % 3 == 0,
    3: lambda i, j: (i + j) % 3 == 0,
    4: lambda i, j: (i // 2 + j // 3) % 2 == 0,
    5: lambda i, j: (i * j) % 2 + (i * j) % 3 == 0,
    6: lambda i, j: ((i * j) % 2 + (i * j) % 3) % 2 == 0,
    7: lambda i, j: ((i + j) % 2 + (i * j) % 3) % 2 == 0,
}


@dataclass(frozen=True)
class _QrPlan:
    """What is the same in every QR code of one version: its fixed modules and where data goes."""

    version: int
    size: int
    capacity: int  # data codewords
    count_bits: int  # width of the byte-mode character count
    blocks: tuple[tuple[int, int], ...]  # (first data codeword, data codewords) per block
    ec_per_block: int
    fixed: np.ndarray  # (size * size,) bool: finder, timing, alignment, format... dark modules
    positions: np.ndarray  # flat indices of the data modules, in placement order
    mask: np.ndarray  # the data mask at those positions
    data_order: np.ndarray  # interleaving of the data codewords (ISO/IEC 18004 7.6)
    ec_order: np.ndarray  # interleaving of the error correction codewords


def _qr_capacity(version: int) -> int:
    return sum(ec.num_blocks * ec.num_data for ec in _QR_BLOCKS[version][QR_ERROR])


def _qr_version(length: int) -> int:
    """The smallest version that holds ``length`` bytes in byte mode at level M."""
    for version in range(1, 41):
        count_bits = 8 if version < 10 else 16
        if 4 + count_bits + 8 * length <= 8 * _qr_capacity(version):
            return version
    raise ValueError(f"a QR code cannot hold {length} bytes")


def _qr_function_modules(version: int, size: int) -> np.ndarray:
    """The modules that carry no data (ISO/IEC 18004 6.3): finders with their separators, format
    and version information, timing and alignment patterns."""
    used = np.zeros((size, size), dtype=bool)
    used[:9, :9] = used[:9, size - 8 :] = used[size - 8 :, :9] = True  # finders, format, dark module
    used[6, :] = used[:, 6] = True  # timing
    if version >= 2:
        centres = qr_consts.ALIGNMENT_POS[version - 2]
        corners = {(centres[0], centres[0]), (centres[0], centres[-1]), (centres[-1], centres[0])}
        for row in centres:
            for col in centres:
                if (row, col) not in corners:
                    used[row - 2 : row + 3, col - 2 : col + 3] = True
    if version >= 7:
        used[:6, size - 11 : size - 8] = used[size - 11 : size - 8, :6] = True
    return used


@functools.cache
def _qr_plan(version: int) -> _QrPlan:
    # segno draws the fixed patterns (and the format information for QR_MASK); we place the data.
    template = segno.make(
        b"0", version=version, error="m", mask=QR_MASK, mode="byte", boost_error=False, micro=False
    )
    dark = np.array(template.matrix, dtype=bool)
    size = dark.shape[0]
    is_data = ~_qr_function_modules(version, size)
    fixed = dark & ~is_data

    # ISO/IEC 18004 7.7.3: two-module columns, right to left, alternately up and down,
    # stepping over the vertical timing pattern in column 6.
    order: list[int] = []
    upward, right = True, size - 1
    while right > 0:
        if right == 6:
            right = 5
        rows = range(size - 1, -1, -1) if upward else range(size)
        order.extend(i * size + j for i in rows for j in (right, right - 1) if is_data[i, j])
        upward, right = not upward, right - 2
    positions = np.array(order, dtype=np.intp)
    i, j = np.divmod(positions, size)

    blocks: list[tuple[int, int]] = []
    ec_per_block, start = 0, 0
    for ec in _QR_BLOCKS[version][QR_ERROR]:
        for _block in range(ec.num_blocks):
            blocks.append((start, ec.num_data))
            start += ec.num_data
            ec_per_block = ec.num_total - ec.num_data
    longest = max(k for _s, k in blocks)
    data_order = [s + n for n in range(longest) for s, k in blocks if n < k]
    ec_order = [b * ec_per_block + n for n in range(ec_per_block) for b in range(len(blocks))]
    return _QrPlan(
        version=version,
        size=size,
        capacity=start,
        count_bits=8 if version < 10 else 16,
        blocks=tuple(blocks),
        ec_per_block=ec_per_block,
        fixed=fixed.reshape(-1),
        positions=positions,
        mask=_MASKS[QR_MASK](i, j),
        data_order=np.array(data_order, dtype=np.intp),
        ec_order=np.array(ec_order, dtype=np.intp),
    )


def _qr_data_codewords(payloads: np.ndarray, plan: _QrPlan) -> np.ndarray:
    """Byte-mode data codewords, padded (ISO/IEC 18004 7.4.10), of equal-length payloads (n, L)."""
    n, length = payloads.shape
    head = 4 + plan.count_bits
    used = head + 8 * length
    total = used + min(4, 8 * plan.capacity - used)  # the terminator, cut short when full
    bits = np.zeros((n, total + (-total) % 8), dtype=np.uint8)
    bits[:, :4] = (0, 1, 0, 0)  # byte mode
    bits[:, 4:head] = [(length >> k) & 1 for k in reversed(range(plan.count_bits))]
    bits[:, head:used] = np.unpackbits(payloads, axis=1)
    codewords = np.packbits(bits, axis=1)
    pad = np.resize(np.array([0xEC, 0x11], dtype=np.uint8), plan.capacity - codewords.shape[1])
    return np.concatenate([codewords, np.broadcast_to(pad, (n, pad.size))], axis=1)


def _rs_remainders(data: np.ndarray, ec: int) -> np.ndarray:
    """Reed-Solomon error correction codewords of each row of ``data`` (n, k), ``ec`` of them."""
    n, k = data.shape
    generator = np.array(qr_consts.GEN_POLY[ec], dtype=np.intp)  # as logarithms
    work = np.zeros((n, k + ec), dtype=np.uint8)
    work[:, :k] = data
    for step in range(k):
        coefficient = work[:, step]
        terms = _GF_EXP[_GF_LOG[coefficient][:, None] + generator].astype(np.uint8)
        terms[coefficient == 0] = 0
        work[:, step + 1 : step + 1 + ec] ^= terms
    return work[:, k:]


def qr_matrices(payloads: list[bytes]) -> np.ndarray:
    """QR codes (level M, byte mode, one version for all: the smallest that holds the longest)
    of many payloads at once, as an array (n, size, size) of booleans, True = dark.

    The fixed patterns come from segno; the data follow ISO/IEC 18004 (segno differs only in
    adding one zero codeword before the padding). Some hundred times faster than segno code by
    code; tests/cards/printing/test_pdf.py reads codes of every version back with a decoder.
    """
    plan = _qr_plan(_qr_version(max(len(p) for p in payloads)))
    n = len(payloads)
    data = np.empty((n, plan.capacity), dtype=np.uint8)
    by_length: dict[int, list[int]] = {}
    for index, payload in enumerate(payloads):
        by_length.setdefault(len(payload), []).append(index)
    for length, indexes in by_length.items():
        joined = np.frombuffer(b"".join(payloads[i] for i in indexes), dtype=np.uint8)
        data[indexes] = _qr_data_codewords(joined.reshape(len(indexes), length), plan)
    ec = np.concatenate(
        [_rs_remainders(data[:, s : s + k], plan.ec_per_block) for s, k in plan.blocks], axis=1
    )
    message = np.unpackbits(np.concatenate([data[:, plan.data_order], ec[:, plan.ec_order]], axis=1), axis=1)
    bits = np.zeros((n, plan.positions.size), dtype=bool)
    bits[:, : message.shape[1]] = message  # the remainder bits stay 0
    modules = np.broadcast_to(plan.fixed, (n, plan.fixed.size)).copy()
    modules[:, plan.positions] = bits ^ plan.mask
    return modules.reshape(n, plan.size, plan.size)


_RUN_TOKENS: dict[int, np.ndarray] = {}


def _run_tokens(size: int, keys: np.ndarray) -> np.ndarray:
    """``x y width 1 re`` for runs ``keys`` = (row * size + x) * size + width - 1 of a ``size`` code
    (rows from the top); formatted once per process, only for the runs that occur."""
    table = _RUN_TOKENS.setdefault(size, np.full(size**3, None, dtype=object))
    missing = np.flatnonzero((np.bincount(keys, minlength=size**3) > 0) & (table == None))  # noqa: E711
    for key in missing.tolist():
        rest, width = divmod(key, size)
        row, x = divmod(rest, size)
        table[key] = f"{x} {size - 1 - row} {width + 1} 1 re"
    tokens: np.ndarray = table[keys]
    return tokens


def qr_paths(matrices: np.ndarray) -> list[str]:
    """For each code, its dark modules as PDF rectangles (in module units, origin bottom left),
    one per horizontal run; filled as a single path they leave no seams between modules."""
    n, size, _size = matrices.shape
    padded = np.zeros((n, size, size + 2), dtype=np.int8)
    padded[:, :, 1:-1] = matrices
    steps = np.diff(padded, axis=2)
    card, row, start = np.nonzero(steps == 1)
    end = np.nonzero(steps == -1)[2]
    tokens = _run_tokens(size, (row * size + start) * size + (end - start - 1))
    bounds = np.searchsorted(card, np.arange(n + 1))
    return [" ".join(tokens[a:b].tolist()) for a, b in itertools.pairwise(bounds)]


# --- colours ----------------------------------------------------------------------------------

RGB = tuple[float, float, float]


def _rgb(hex_colour: str) -> RGB:
    value = hex_colour.lstrip("#")
    return (int(value[0:2], 16) / 255, int(value[2:4], 16) / 255, int(value[4:6], 16) / 255)


def _on(colour: RGB) -> RGB:
    """Text colour that reads on ``colour``: white on dark colours, ink on light ones."""
    r, g, b = colour
    return (1.0, 1.0, 1.0) if 0.299 * r + 0.587 * g + 0.114 * b < 0.6 else INK


def _tint(colour: RGB, amount: float) -> RGB:
    """``colour`` mixed with white: ``amount`` of the colour."""
    return (
        1 - amount * (1 - colour[0]),
        1 - amount * (1 - colour[1]),
        1 - amount * (1 - colour[2]),
    )


def _fit(text: str, font: str, size: float, width: float) -> str:
    """``text`` cut (with an ellipsis) to fit ``width`` points."""
    if stringWidth(text, font, size) <= width:
        return text
    while text and stringWidth(text + "…", font, size) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


# --- one card's geometry ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Box:
    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        return self.x + self.w / 2


@dataclass(frozen=True)
class _CardLayout:
    width: float
    height: float
    band: _Box
    heads: _Box | None
    grid: _Box
    cell_w: float
    cell_h: float
    number_size: float
    card_no: _Box  # the card number (big) with its label above
    price: _Box
    qr: _Box
    code: _Box  # the check code with its label above


def _card_layout(variant: Variant, width: float, height: float, panel: str) -> _CardLayout:
    geo = geometry(variant)
    pad = 7.0
    band = _Box(0, height - 19, width, 19)
    body_top = band.y - pad
    body_h = body_top - pad
    if panel == "row":
        qr_side = min(body_h, 104.0)
        info_w = 100.0
        qr = _Box(width - pad - qr_side, pad + (body_h - qr_side) / 2, qr_side, qr_side)
        info_x = qr.x - 6 - info_w
        grid_w = info_x - 8 - pad
        card_no = _Box(info_x, body_top - 36, info_w, 36)
        price = _Box(info_x, card_no.y - 6 - 22, info_w, 22)
        code = _Box(info_x, pad, info_w, price.y - 6 - pad)
    else:
        info_w = 88.0 if variant != Variant.B30 else 84.0
        info_x = width - pad - info_w
        grid_w = info_x - 8 - pad
        card_no = _Box(info_x, body_top - 34, info_w, 34)
        price = _Box(info_x, card_no.y - 6 - 20, info_w, 20)
        code = _Box(info_x, pad, info_w, 24)
        room = price.y - 4 - (code.y + code.h + 2)
        qr_side = min(info_w, room)
        qr = _Box(
            info_x + (info_w - qr_side) / 2, code.y + code.h + 2 + (room - qr_side) / 2, qr_side, qr_side
        )
    heads = None
    grid_h = body_h
    if geo.headers:
        heads_h = 18.0
        grid_h -= heads_h
        heads = _Box(pad, pad + grid_h, grid_w, heads_h)
    grid = _Box(pad, pad, grid_w, grid_h)
    cell_w, cell_h = grid.w / geo.cols, grid.h / geo.rows
    number_size = min(cell_h * 0.56, cell_w * 0.62, 30.0)
    return _CardLayout(
        width=width,
        height=height,
        band=band,
        heads=heads,
        grid=grid,
        cell_w=cell_w,
        cell_h=cell_h,
        number_size=number_size,
        card_no=card_no,
        price=price,
        qr=qr,
        code=code,
    )


# --- rendering --------------------------------------------------------------------------------


class _Sheet:
    """Draws the cards of one series on a ReportLab canvas."""

    def __init__(
        self,
        canvas: Canvas,
        series: Series,
        *,
        pattern: frozenset[tuple[int, int]],
        symbols: Mapping[int, str] | None,
    ) -> None:
        self.canvas = canvas
        self.series = series
        self.variant = Variant(series.card_set.variant)
        self.geo = geometry(self.variant)
        self.sheet = SHEETS[self.variant]
        self.card_w = (PAGE_WIDTH - 2 * MARGIN - (self.sheet.across - 1) * GAP) / self.sheet.across
        self.card_h = (PAGE_HEIGHT - 2 * MARGIN - FOOTER - (self.sheet.down - 1) * GAP) / self.sheet.down
        self.layout = _card_layout(self.variant, self.card_w, self.card_h, self.sheet.panel)
        self.pattern = pattern
        self.symbols = symbols
        self.back = _rgb(series.back_colour)
        self.face = _rgb(series.face_colour)
        self.font_bold = canvas._doc.getInternalFontName(FONT_BOLD)
        self.font_code = canvas._doc.getInternalFontName(FONT_CODE)
        self.shade_tokens, self.text_tokens = self._cell_tokens()

    # The static part, drawn once per document as a form.

    def draw_template(self, name: str) -> None:
        c, lay, series = self.canvas, self.layout, self.series
        c.beginForm(name, 0, 0, lay.width, lay.height)
        c.setLineJoin(1)
        frame = c.beginPath()
        frame.roundRect(0, 0, lay.width, lay.height, 6)
        c.saveState()
        c.clipPath(frame, stroke=0, fill=0)
        c.setFillColorRGB(*self.back)
        c.rect(0, lay.band.y, lay.width, lay.band.h, stroke=0, fill=1)
        c.restoreState()
        c.setStrokeColorRGB(*self.back)
        c.setLineWidth(1.6)
        c.roundRect(0.8, 0.8, lay.width - 1.6, lay.height - 1.6, 5.5, stroke=1, fill=0)

        on_back = _on(self.back)
        c.setFillColorRGB(*on_back)
        # The reference is what a player types on the card-check page (the QR link carries it).
        label = _("Series %(label)s (ref. %(ref)d)") % {"label": series.label, "ref": series.pk}
        c.setFont(FONT_BOLD, 10)
        label_w = stringWidth(label, FONT_BOLD, 10)
        c.drawRightString(lay.width - 8, lay.band.y + 6, label)
        extra = _("Double card: two games") if series.double else ""
        extra_w = stringWidth(extra, FONT, 7.5) + 10 if extra else 0
        c.setFont(FONT_BOLD, 9)
        c.drawString(
            8, lay.band.y + 6.3, _fit(series.hall.name, FONT_BOLD, 9, lay.width - label_w - extra_w - 28)
        )
        if extra:
            c.setFont(FONT, 7.5)
            c.drawRightString(lay.width - 8 - label_w - 10, lay.band.y + 6.6, extra)

        self._draw_grid()
        self._draw_panel()
        c.endForm()

    def _draw_grid(self) -> None:
        c, lay, geo = self.canvas, self.layout, self.geo
        grid, cw, ch = lay.grid, lay.cell_w, lay.cell_h

        def cell(row: int, col: int) -> _Box:
            return _Box(grid.x + col * cw, grid.y + grid.h - (row + 1) * ch, cw, ch)

        if self.variant == Variant.B80:  # R64: each of the four lines in a colour of its own
            for row, colour in enumerate(ROW_COLOURS_80):
                c.setFillColorRGB(*_rgb(colour))
                c.rect(grid.x, grid.y + grid.h - (row + 1) * ch, grid.w, ch, stroke=0, fill=1)
        if self.pattern:  # R76: the pattern of this game pre-drawn on the card
            c.setFillColorRGB(*_tint(self.back, 0.28))
            for row, col in self.pattern:
                box = cell(row, col)
                c.rect(box.x, box.y, box.w, box.h, stroke=0, fill=1)
        for row, col in geo.free_cells:  # R71 c), R72: the free centre counts as marked
            box = cell(row, col)
            c.setFillColorRGB(*self.back)
            c.setStrokeColorRGB(*self.back)
            star = c.beginPath()
            radius = min(box.w, box.h) * 0.3
            cx, cy = box.cx, box.y + box.h * 0.58
            points = [
                (
                    cx + (radius if k % 2 == 0 else radius * 0.42) * np.sin(np.pi * k / 5),
                    cy + (radius if k % 2 == 0 else radius * 0.42) * np.cos(np.pi * k / 5),
                )
                for k in range(10)
            ]
            star.moveTo(*points[0])
            for point in points[1:]:
                star.lineTo(*point)
            star.close()
            c.drawPath(star, stroke=0, fill=1)
            size = min(box.h * 0.2, box.w * 0.2)
            c.setFont(FONT_BOLD, size)
            c.drawCentredString(box.cx, box.y + box.h * 0.1, _("FREE"))
        if lay.heads is not None and geo.headers:
            heads = lay.heads
            c.setFillColorRGB(*self.back)
            c.rect(heads.x, heads.y, heads.w, heads.h, stroke=0, fill=1)
            c.setFillColorRGB(*_on(self.back))
            c.setFont(FONT_BOLD, 14)
            for col, head in enumerate(geo.headers):
                c.drawCentredString(heads.x + (col + 0.5) * cw, heads.y + 4.2, head)
        c.setStrokeGray(GRID_GREY)
        c.setLineWidth(0.6)
        for col in range(1, geo.cols):
            c.line(grid.x + col * cw, grid.y, grid.x + col * cw, grid.y + grid.h)
        for row in range(1, geo.rows):
            c.line(grid.x, grid.y + row * ch, grid.x + grid.w, grid.y + row * ch)
        c.setStrokeColorRGB(*self.back)
        c.setLineWidth(1.2)
        top = lay.heads.y + lay.heads.h if lay.heads is not None else grid.y + grid.h
        c.rect(grid.x, grid.y, grid.w, top - grid.y, stroke=1, fill=0)

    def _draw_panel(self) -> None:
        c, lay, series = self.canvas, self.layout, self.series
        c.setFillGray(0.35)
        c.setFont(FONT, 7)
        c.drawCentredString(lay.card_no.cx, lay.card_no.y + lay.card_no.h - 7, _("Card no."))
        c.drawCentredString(lay.code.cx, lay.code.y + lay.code.h - 7, _("Check code"))
        price = lay.price
        c.setFillColorRGB(*self.face)
        c.setStrokeColorRGB(*_tint(INK, 0.25))
        c.setLineWidth(0.5)
        c.roundRect(price.x, price.y, price.w, price.h, 3, stroke=1, fill=1)
        c.setFillColorRGB(*_on(self.face))
        text = money_display(series.price, series.hall.currency)
        size = min(12.0, price.h * 0.55)
        while size > 6 and stringWidth(text, FONT_BOLD, size) > price.w - 6:
            size -= 0.5
        c.setFont(FONT_BOLD, size)
        c.drawCentredString(price.cx, price.y + (price.h - size * 0.72) / 2, text)

    # The dynamic part: pieces of PDF operators, formatted once and reused for every card.

    def _cell_tokens(self) -> tuple[np.ndarray, np.ndarray]:
        """``shade[cell, value]`` and ``text[cell, value]``: what to draw in cell ``cell`` (row-major)
        when it holds ``value`` — a grey fill for a blank 90-ball cell, the number (or symbol)."""
        lay, geo = self.layout, self.geo
        size = lay.number_size
        shade = np.full((geo.rows * geo.cols, geo.balls + 1), "", dtype=object)
        text = np.full((geo.rows * geo.cols, geo.balls + 1), "", dtype=object)
        for row in range(geo.rows):
            for col in range(geo.cols):
                x0 = lay.grid.x + col * lay.cell_w
                y0 = lay.grid.y + lay.grid.h - (row + 1) * lay.cell_h
                index = row * geo.cols + col
                if self.variant == Variant.B90:
                    inset = 0.9
                    shade[index, 0] = (
                        f"{_num(x0 + inset)} {_num(y0 + inset)} "
                        f"{_num(lay.cell_w - 2 * inset)} {_num(lay.cell_h - 2 * inset)} re\n"
                    )
                baseline = _num(y0 + (lay.cell_h - size * 0.72) / 2)
                for value in range(1, geo.balls + 1):
                    if self.symbols is not None:
                        text[index, value] = self._symbol_token(self.symbols.get(value, str(value)), x0, y0)
                        continue
                    digits = str(value)
                    x = _num(x0 + (lay.cell_w - len(digits) * DIGIT_EM * size) / 2)
                    text[index, value] = (
                        f"BT {self.font_bold} {_num(size)} Tf {x} {baseline} Td ({digits}) Tj ET\n"
                    )
        return shade, text

    def _symbol_token(self, symbol: str, x0: float, y0: float) -> str:
        lay = self.layout
        size = lay.number_size
        width = stringWidth(symbol, FONT_BOLD, size)
        if width > lay.cell_w * 0.88:
            size *= lay.cell_w * 0.88 / width
            width = stringWidth(symbol, FONT_BOLD, size)
        text = self.canvas.beginText(x0 + (lay.cell_w - width) / 2, y0 + (lay.cell_h - size * 0.72) / 2)
        text.setFont(FONT_BOLD, size)
        text.textOut(symbol)
        return f"{text.getCode()}\n"

    def card_operators(self, cells: np.ndarray, number: int, code: str, qr_path: str, qr_size: int) -> str:
        """PDF operators for what is particular to one card, in the card's own coordinates."""
        lay = self.layout
        flat = cells.reshape(-1)
        cell_index = np.arange(flat.size)
        shades = "".join(self.shade_tokens[cell_index, flat].tolist())
        texts = "".join(self.text_tokens[cell_index, flat].tolist())
        digits = str(number)
        number_size = min(22.0, lay.card_no.h - 12)
        number_x = lay.card_no.cx - len(digits) * DIGIT_EM * number_size / 2
        code_size = 10.5
        code_x = lay.code.cx - len(code) * COURIER_EM * code_size / 2
        module = lay.qr.w / (qr_size + 2 * QR_QUIET)
        qr_x = lay.qr.x + QR_QUIET * module
        qr_y = lay.qr.y + QR_QUIET * module
        return (
            (f"{BLANK_GREY} g\n{shades}f\n" if shades else "")
            + f"{INK[0]} {INK[1]} {INK[2]} rg\n"
            + texts
            + f"BT {self.font_bold} {_num(number_size)} Tf {_num(number_x)} {_num(lay.card_no.y + 2)} Td "
            + f"({digits}) Tj ET\n"
            + f"BT {self.font_code} {code_size} Tf {_num(code_x)} {_num(lay.code.y + 2)} Td ({code}) Tj ET\n"
            + f"q {module:.4f} 0 0 {module:.4f} {_num(qr_x)} {_num(qr_y)} cm {qr_path} f Q\n"
        )


def render_series_pdf(
    series: Series,
    first: int,
    last: int,
    out: BinaryIO,
    *,
    pattern: Iterable[tuple[int, int]] | None = None,
    symbols: Mapping[int, str] | None = None,
    progress: Progress | None = None,
) -> int:
    """Write cards ``first``..``last`` of ``series`` to ``out`` as an A4 PDF; return its page count.

    ``pattern``: cells (row, column) pre-drawn on every card (R76), e.g. a 75-ball game's figure.
    ``symbols``: for 30-ball cards (R80), the short text printed for each number instead of it.
    ``progress``: called with the percentage done (0-100) after each page.
    Reads the cards once and takes no database lock. ValueError for a bad range or argument.
    """
    cells_pattern = _print_request_check(series, first, last, pattern=pattern, symbols=symbols)
    cards = _Cards.read(series, first, last)

    canvas = Canvas(out, pagesize=A4, pageCompression=1, invariant=1)
    canvas.setTitle(f"{series.hall.name} — {series.label} — {first}-{last}")
    canvas.setAuthor(series.hall.name)
    canvas.setCreator("bingo-hall")
    sheet = _Sheet(canvas, series, pattern=cells_pattern, symbols=symbols)
    sheet.draw_template("card")

    per_page = sheet.sheet.across * sheet.sheet.down
    total = len(cards.numbers)
    pages = -(-total // per_page)
    for page in range(pages):
        start = page * per_page
        _page_draw(
            canvas, sheet, cards, range(start, min(start + per_page, total)), page=page + 1, pages=pages
        )
        if progress is not None:
            progress((page + 1) * 100 // pages)
    canvas.save()
    return pages


def _print_request_check(
    series: Series,
    first: int,
    last: int,
    *,
    pattern: Iterable[tuple[int, int]] | None,
    symbols: Mapping[int, str] | None,
) -> frozenset[tuple[int, int]]:
    """The pattern's cells (R76), once the range, the pattern and the symbols (R80) are checked
    against ``series``; ValueError for a bad one."""
    if not 1 <= first <= last <= series.size:
        raise ValueError(f"cards {first}-{last} are not within 1-{series.size} of series {series.label}")
    variant = Variant(series.card_set.variant)
    geo = geometry(variant)
    cells_pattern = frozenset((int(r), int(c)) for r, c in pattern or ())
    if any(not (0 <= r < geo.rows and 0 <= c < geo.cols) for r, c in cells_pattern):
        raise ValueError(f"the pattern has cells outside the {geo.rows} x {geo.cols} card")
    if symbols is not None and variant != Variant.B30:
        raise ValueError("only 30-ball cards print symbols (R80)")
    return cells_pattern


@dataclass(frozen=True)
class _Cards:
    """What each card of the run prints of its own: its cells, number, check code and QR path."""

    cells: np.ndarray
    numbers: range
    codes: list[str]
    paths: list[str]
    qr_size: int

    @classmethod
    def read(cls, series: Series, first: int, last: int) -> _Cards:
        """Cards ``first``..``last`` of ``series``, read once, their QR codes encoded at once."""
        cells = card_set_cells(series.card_set)[first - 1 : last]
        numbers = range(first, last + 1)
        codes = [card_check_code(series=series, number=n) for n in numbers]
        payloads = [
            card_check_url(series_id=series.pk, number=n, code=code).encode("ascii")
            for n, code in zip(numbers, codes, strict=True)
        ]
        matrices = qr_matrices(payloads)
        return cls(
            cells=cells, numbers=numbers, codes=codes, paths=qr_paths(matrices), qr_size=matrices.shape[1]
        )


def _page_draw(canvas: Canvas, sheet: _Sheet, cards: _Cards, chunk: range, *, page: int, pages: int) -> None:
    """Page ``page`` of ``pages``: the cards of the run at ``chunk``, then the footer."""
    series = sheet.series
    for slot, index in enumerate(chunk):
        row, col = divmod(slot, sheet.sheet.across)
        x = MARGIN + col * (sheet.card_w + GAP)
        y = PAGE_HEIGHT - MARGIN - (row + 1) * sheet.card_h - row * GAP
        canvas.saveState()
        canvas.translate(x, y)
        canvas.doForm("card")
        canvas.addLiteral(
            sheet.card_operators(
                cards.cells[index],
                cards.numbers[index],
                cards.codes[index],
                cards.paths[index],
                cards.qr_size,
            )
        )
        canvas.restoreState()
    canvas.setFont(FONT, 7)
    canvas.setFillGray(0.4)
    canvas.drawString(
        MARGIN,
        MARGIN + 2,
        _("%(hall)s · series %(series)s · cards %(first)d-%(last)d")
        % {
            "hall": series.hall.name,
            "series": series.label,
            "first": cards.numbers[chunk[0]],
            "last": cards.numbers[chunk[-1]],
        },
    )
    canvas.drawRightString(
        PAGE_WIDTH - MARGIN,
        MARGIN + 2,
        _("page %(page)d of %(pages)d") % {"page": page, "pages": pages},
    )
    canvas.showPage()

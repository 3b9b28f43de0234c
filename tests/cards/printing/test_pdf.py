"""Printed cards: real PDFs read back — their pages, text, colours and QR codes."""

import io
import random
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pypdfium2
import pytest
import zxingcpp
from django.utils.translation import gettext as _
from pypdf import PdfReader

from cards.printing import pdf
from cards.selectors import card_check_code, card_set_cells
from tests.cards.factories import HallFactory, series_make

pytestmark = pytest.mark.django_db

SCALE = 3  # pixels per point when a page is rasterised


def render(series, first, last, **options):
    out = io.BytesIO()
    pages = pdf.render_series_pdf(series, first, last, out, **options)
    return pages, out.getvalue()


def page_texts(data):
    return [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]


def page_image(data, page=0):
    """The page as an RGB array (height, width, 3), SCALE pixels per point."""
    document = pypdfium2.PdfDocument(data)
    try:
        return np.asarray(document[page].render(scale=SCALE).to_pil().convert("RGB"))
    finally:
        document.close()


def decode_qr_codes(image):
    return [r.text for r in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)]


def pixel_in_cell(variant, slot, row, col, fx=0.12, fy=0.12):
    """Page-pixel (y, x) of a point inside cell (row, col) of the card in ``slot`` on a page,
    ``fx`` and ``fy`` of the way from the cell's top-left corner."""
    sheet = pdf.SHEETS[variant]
    card_w = (pdf.PAGE_WIDTH - 2 * pdf.MARGIN - (sheet.across - 1) * pdf.GAP) / sheet.across
    card_h = (pdf.PAGE_HEIGHT - 2 * pdf.MARGIN - pdf.FOOTER - (sheet.down - 1) * pdf.GAP) / sheet.down
    layout = pdf._card_layout(variant, card_w, card_h, sheet.panel)
    across, down = slot % sheet.across, slot // sheet.across
    left = pdf.MARGIN + across * (card_w + pdf.GAP) + layout.grid.x + (col + fx) * layout.cell_w
    top_from_bottom = pdf.PAGE_HEIGHT - pdf.MARGIN - down * (card_h + pdf.GAP) - card_h
    y = top_from_bottom + layout.grid.y + layout.grid.h - (row + fy) * layout.cell_h
    return round((pdf.PAGE_HEIGHT - y) * SCALE), round(left * SCALE)


@pytest.mark.parametrize(("variant", "size"), [("90", 13), ("80", 13), ("75", 13), ("30", 17)])
def test_page_count_follows_the_cards_per_sheet(variant, size):
    series = series_make(variant=variant, size=size)
    pages, data = render(series, 1, size)
    per_page = pdf.cards_per_page(variant)
    assert pages == len(PdfReader(io.BytesIO(data)).pages) == -(-size // per_page)
    assert pdf.page_count(variant, size) == pages
    assert render(series, 2, 2)[0] == 1


def test_every_card_prints_its_numbers_number_check_code_series_and_price():
    hall = HallFactory(name="Salão Achada")
    series = series_make(hall=hall, variant="90", size=13, price="1500.00", order_number=12)
    cells = card_set_cells(series.card_set)
    _pages, data = render(series, 1, 13)
    texts = page_texts(data)
    assert len(texts) == 3
    assert series.label == "*-12"  # 13 cards: an authorized size, no letter (R19)
    for number in range(1, 14):
        text = texts[(number - 1) // 6]
        code = card_check_code(series=series, number=number)
        rows = [" ".join(str(v) for v in row if v) for row in cells[number - 1]]
        # Each card's rows, then its number and its check code, in drawing order.
        assert "\n".join([*rows, str(number), code]) in text
    for text in texts:
        assert _("Series %(label)s") % {"label": series.label} in text
        assert "1 500 CVE" in text  # the one money format (issue 25)
        assert "Salão Achada" in text


def test_only_the_cards_asked_for_are_printed():
    series = series_make(variant="80", size=20)
    _pages, data = render(series, 5, 7)
    text = "".join(page_texts(data))
    for number in (5, 6, 7):
        assert card_check_code(series=series, number=number) in text
    for number in (4, 8):
        assert card_check_code(series=series, number=number) not in text


@pytest.mark.parametrize("variant", ["90", "80", "75", "30"])
def test_qr_codes_carry_series_number_and_check_code(variant, settings):
    settings.BINGO_PUBLIC_URL = "https://bingo.example.cv"
    series = series_make(variant=variant, size=20)
    per_page = pdf.cards_per_page(variant)
    first = 3
    last = first + per_page - 1
    _pages, data = render(series, first, last)
    found = decode_qr_codes(page_image(data))
    assert len(found) == per_page
    numbers = set()
    for url in found:
        parts = urlsplit(url)
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == "https://bingo.example.cv/verificar/"
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        assert set(query) == {"serie", "cartao", "codigo"}
        assert int(query["serie"]) == series.pk
        number = int(query["cartao"])
        assert query["codigo"] == card_check_code(series=series, number=number)
        numbers.add(number)
    assert numbers == set(range(first, last + 1))


def test_75_ball_cards_show_bingo_heads_and_the_free_centre():
    series = series_make(variant="75", size=10)
    _pages, data = render(series, 1, 6)
    lines = page_texts(data)[0].split("\n")
    assert lines.count(_("FREE")) == 6
    for head in "BINGO":
        assert lines.count(head) == 6
    # The free centre holds no number: the middle row has four.
    middle = card_set_cells(series.card_set)[0][2]
    assert " ".join(str(v) for v in middle if v) in lines
    assert sum(1 for v in middle if v) == 4


def test_blank_90_ball_cells_are_shaded_and_numbered_cells_white():
    series = series_make(variant="90", size=6)
    cells = card_set_cells(series.card_set)
    image = page_image(render(series, 1, 6)[1])
    for slot in range(6):
        for row in range(3):
            for col in range(9):
                y, x = pixel_in_cell(pdf.Variant.B90, slot, row, col)
                grey = image[y, x].mean()
                if cells[slot][row][col]:
                    assert grey > 245, (slot, row, col)
                else:
                    assert 190 < grey < 230, (slot, row, col)


def test_each_line_of_an_80_ball_card_has_a_colour_of_its_own():
    series = series_make(variant="80", size=6)
    image = page_image(render(series, 1, 6)[1])
    for slot in range(6):
        for row, colour in enumerate(pdf.ROW_COLOURS_80):
            expected = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
            for col in range(4):
                found = tuple(int(v) for v in image[pixel_in_cell(pdf.Variant.B80, slot, row, col)])
                assert found == expected, (slot, row, col)
    assert len(set(pdf.ROW_COLOURS_80)) == 4


def test_a_pattern_is_pre_drawn_in_its_cells():
    series = series_make(variant="75", size=6, back_colour="#C62828")
    corners = {(0, 0), (0, 4), (4, 0), (4, 4)}
    image = page_image(render(series, 1, 2, pattern=corners)[1])
    for row in range(5):
        for col in range(5):
            if (row, col) == (2, 2):
                continue
            r, g, b = (int(v) for v in image[pixel_in_cell(pdf.Variant.B75, 1, row, col)])
            if (row, col) in corners:
                assert r > 200, (row, col, (r, g, b))  # tinted with red
                assert max(g, b) < 200, (row, col, (r, g, b))
            else:
                assert min(r, g, b) > 245, (row, col, (r, g, b))
    with pytest.raises(ValueError, match="outside"):
        render(series, 1, 1, pattern={(5, 0)})


def test_series_and_price_colours_are_printed():
    series = series_make(variant="90", size=6, back_colour="#2E7D32", face_colour="#FF00FF")
    image = page_image(render(series, 1, 1)[1]).reshape(-1, 3).astype(int)
    colours = {tuple(c) for c in np.unique(image, axis=0)}
    assert (0x2E, 0x7D, 0x32) in colours  # the band and border
    assert (0xFF, 0x00, 0xFF) in colours  # the price box


def test_30_ball_cards_may_print_symbols():
    series = series_make(variant="30", size=8)
    symbols = {n: f"S{n:02d}" for n in range(1, 31)}
    _pages, data = render(series, 1, 8, symbols=symbols)
    text = page_texts(data)[0]
    for value in card_set_cells(series.card_set)[0].reshape(-1):
        assert f"S{value:02d}" in text
    with pytest.raises(ValueError, match="30-ball"):
        render(series_make(variant="90", size=6), 1, 1, symbols=symbols)


@pytest.mark.parametrize(("first", "last"), [(0, 3), (2, 1), (1, 7), (7, 7)])
def test_a_range_outside_the_series_is_refused(first, last):
    series = series_make(variant="90", size=6)
    with pytest.raises(ValueError, match="not within"):
        render(series, first, last)


def test_cards_are_read_once_whatever_the_run(django_assert_max_num_queries):
    series = series_make(variant="90", size=90)
    series = type(series).objects.select_related("hall", "card_set").get(pk=series.pk)
    with django_assert_max_num_queries(1):
        render(series, 1, 6)
    with django_assert_max_num_queries(1):
        render(series, 1, 90)


def test_streams_are_binary_flate_not_ascii85():
    """Issue 23: ReportLab's ASCII85 wrapping (pure Python here) cost a third of a print run;
    every stream is Flate only, and the pages still read back."""
    series = series_make(variant="75", size=12)
    _pages, data = render(series, 1, 12)
    assert b"/ASCII85Decode" not in data
    assert data.count(b"/FlateDecode") >= 3  # the two pages and the card's form
    reader = PdfReader(io.BytesIO(data))
    assert str(card_set_cells(series.card_set)[11].max()) in reader.pages[1].extract_text()


def test_progress_is_reported_per_page_up_to_100():
    series = series_make(variant="90", size=30)
    seen = []
    render(series, 1, 30, progress=seen.append)
    assert seen == [20, 40, 60, 80, 100]


def test_batch_qr_codes_read_back_in_every_version():
    rng = random.Random(20170109)
    lengths = [1, 2, 13, 14, 60, 84, 85, 150, 300, 600, 1000, 1500, 2000, 2331]
    payloads = [bytes(rng.randrange(256) for _ in range(n)) for n in lengths]
    versions = set()
    for payload in payloads:
        matrix = pdf.qr_matrices([payload])[0]
        versions.add((matrix.shape[0] - 17) // 4)
        image = np.kron(np.pad(~matrix, 4, constant_values=True), np.ones((3, 3), dtype=bool))
        found = zxingcpp.read_barcodes(
            (image * 255).astype(np.uint8),
            formats=zxingcpp.BarcodeFormat.QRCode,
            binarizer=zxingcpp.Binarizer.BoolCast,
        )
        assert [r.bytes for r in found] == [payload], len(payload)
    assert {1, 40} <= versions
    assert len(versions) >= 10


def test_batch_qr_codes_of_a_run_share_one_version_and_differ():
    payloads = [f"https://x.cv/verificar/?serie=1&cartao={n}&codigo=ABCDEFGH".encode() for n in (1, 10, 1680)]
    matrices = pdf.qr_matrices(payloads)
    assert matrices.shape[:2] == (3, matrices.shape[2])
    assert not (matrices[0] == matrices[1]).all()

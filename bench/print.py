"""Printing benchmark: a K series (1,680 cards) to an A4 PDF, per variant, and the QR codes alone.

Target on a 2-core machine: a 1,680-card series to PDF in under 1 s. Prints the first (cold:
fresh caches) and the best of several runs in milliseconds, with page count and file size.
Runs on an in-memory SQLite database of its own (migrated at start), never on yours.

    python bench/print.py [--repeat N] [--variant 90 --variant 75 ...] [--out DIR]
"""

from __future__ import annotations

import argparse
import io
import os
import pathlib
import platform
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["DATABASE_URL"] = "sqlite://:memory:"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from bingo.engine import ALGORITHM_CARDS  # noqa: E402
from cards import services  # noqa: E402
from cards.printing.pdf import card_check_url, qr_matrices, qr_paths, render_series_pdf  # noqa: E402
from cards.selectors import card_check_code  # noqa: E402
from halls.models import Hall  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--variant", action="append", choices=["90", "80", "75", "30"])
    parser.add_argument("--out", type=pathlib.Path, help="also write each PDF into this folder")
    args = parser.parse_args()
    variants = args.variant or ["90", "75", "80", "30"]

    call_command("migrate", verbosity=0)
    hall = Hall.objects.create(name="Salão de Bingo da Praia")
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}")
    for order, variant in enumerate(variants, start=1):
        card_set = services.card_set_request(
            variant=variant, size=1680, seed=20170109, algorithm=ALGORITHM_CARDS, user=None
        )
        series = services.series_create(
            hall=hall,
            order_number=order,
            card_set=card_set,
            price="100.00",
            back_colour="#1E88E5",
            face_colour="#FDD835",
            user=None,
        )
        times, size, pages = [], 0, 0
        for _run in range(args.repeat):
            out = io.BytesIO()
            start = time.perf_counter()
            pages = render_series_pdf(series, 1, 1680, out)
            times.append((time.perf_counter() - start) * 1000)
            size = out.tell()
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / f"series-{variant}-K.pdf").write_bytes(out.getvalue())
        print(
            f"{variant}-ball K series {series.label}, 1,680 cards: {pages} pages, {size / 1e6:.1f} MB; "
            f"first {times[0]:.0f} ms, best {min(times):.0f} ms"
        )

    payloads = [
        card_check_url(series_id=series.pk, number=n, code=card_check_code(series=series, number=n)).encode()
        for n in range(1, 1681)
    ]
    start = time.perf_counter()
    matrices = qr_matrices(payloads)
    encoded = time.perf_counter()
    qr_paths(matrices)
    drawn = time.perf_counter()
    print(
        f"of which QR codes (version {(matrices.shape[1] - 17) // 4}, {matrices.shape[1]} modules): "
        f"encode {(encoded - start) * 1000:.0f} ms, paths {(drawn - encoded) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()

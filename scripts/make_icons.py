"""Draw the web app's icons (static/icons/icon-192.png, icon-512.png): the site's bingo ball, a
yellow ball with a navy «B» on the header's navy, as the header's brand shows it. Run once by
hand when the design changes; the PNGs are committed (bingo/pwa/views.py names them)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

NAVY = (13, 34, 64)
YELLOW = (242, 183, 5)
SIZES = (192, 512)
OUT = Path(__file__).resolve().parent.parent / "static" / "icons"
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
SCALE = 4  # drawn larger, then scaled down: smooth edges


def icon(size: int) -> Image.Image:
    """One icon of ``size`` pixels: the ball inside the middle 80 % (a maskable icon's safe zone)."""
    big = size * SCALE
    image = Image.new("RGB", (big, big), NAVY)
    draw = ImageDraw.Draw(image)
    margin = big // 10
    draw.ellipse((margin, margin, big - margin, big - margin), fill=YELLOW)
    font = ImageFont.truetype(str(FONT), int(big * 0.45))
    draw.text((big / 2, big / 2), "B", font=font, fill=NAVY, anchor="mm")
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        icon(size).save(OUT / f"icon-{size}.png", optimize=True)


if __name__ == "__main__":
    main()

"""Rebuild the README's and the docs' picture, ``docs/assets/report.png``, from a real run.

    .venv/bin/python scripts/screenshot_report.py

Runs ``filterproof compare fixtures/freshness-lab.json --html`` on the default (embedded)
backends, renders the report with a headless Chromium (Debian: ``apt-get install chromium``)
and trims the empty page below it (with Pillow, which the ``plots`` extra brings with matplotlib), so the
picture shows what a user's browser shows, with every store compare runs by default.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image, ImageChops

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "assets" / "report.png"
WIDTH, TALLEST = 900, 2400
"""The window: wide enough for seven backends' columns; tall enough for the page, trimmed after."""
MARGIN = 16


def browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("no Chromium found: apt-get install chromium (or put chromium on PATH)")


def trimmed(path: Path) -> Image.Image:
    """The screenshot cut below its last non-white row, with a margin."""
    image = Image.open(path).convert("RGB")
    box = ImageChops.difference(image, Image.new("RGB", image.size, "white")).getbbox()
    bottom = min(image.height, (box[3] if box else image.height) + MARGIN)
    return image.crop((0, 0, image.width, bottom))


def main() -> None:
    chromium = browser()
    with tempfile.TemporaryDirectory() as tmp:
        html, shot = Path(tmp) / "report.html", Path(tmp) / "shot.png"
        subprocess.run([str(Path(sys.executable).parent / "filterproof"), "compare",
                        "fixtures/freshness-lab.json", "--html", str(html)],  # relative: the page shows it
                       check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--window-size={WIDTH},{TALLEST}", f"--screenshot={shot}", html.as_uri()],
                       check=True, capture_output=True)
        trimmed(shot).save(OUT, optimize=True)
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

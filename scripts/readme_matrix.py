"""Write the measured matrix (bench/results/matrix.json) into README.md between its matrix markers.

    .venv/bin/filterproof matrix --json bench/results/matrix.json
    .venv/bin/python scripts/readme_matrix.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from filterproof.matrix.render import to_markdown
from filterproof.matrix.run import Cell, Matrix

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- matrix:start -->", "<!-- matrix:end -->"


def main() -> None:
    data = json.loads((ROOT / "bench" / "results" / "matrix.json").read_text())
    matrix = Matrix([Cell(**cell) for cell in data["cells"]], data["versions"], data["skipped"])
    readme = ROOT / "README.md"
    text = readme.read_text()
    block = f"{START}\n{to_markdown(matrix)}{END}"
    updated, count = re.subn(re.escape(START) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    if count != 1:
        raise SystemExit(f"README.md: expected one {START} ... {END} block, found {count}")
    readme.write_text(updated)
    print(f"README.md: matrix of {len(matrix.cells)} cells written")


if __name__ == "__main__":
    main()

"""Write the measured matrix (bench/results/matrix.json) into docs/integrations/matrix.md between its markers.

    .venv/bin/filterproof matrix --json bench/results/matrix.json
    .venv/bin/python scripts/readme_matrix.py

(The name is historical: the matrix lived in README.md before the documentation site.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from filterproof.matrix.render import to_markdown
from filterproof.matrix.run import Cell, Matrix

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "integrations" / "matrix.md"
START, END = "<!-- matrix:start -->", "<!-- matrix:end -->"


def measured() -> Matrix:
    data = json.loads((ROOT / "bench" / "results" / "matrix.json").read_text())
    return Matrix([Cell(**cell) for cell in data["cells"]], data["versions"], data["skipped"])


def block(matrix: Matrix) -> str:
    return f"{START}\n{to_markdown(matrix)}{END}"


def main() -> None:
    matrix = measured()
    text = PAGE.read_text()
    updated, count = re.subn(re.escape(START) + ".*?" + re.escape(END), lambda _: block(matrix), text, flags=re.S)
    if count != 1:
        raise SystemExit(f"{PAGE.relative_to(ROOT)}: expected one {START} ... {END} block, found {count}")
    PAGE.write_text(updated)
    print(f"{PAGE.relative_to(ROOT)}: matrix of {len(matrix.cells)} cells written")


if __name__ == "__main__":
    main()

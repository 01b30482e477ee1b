"""``python -m filterproof.cli``: the same command line as ``filterproof``."""

from filterproof.cli import app

app(prog_name="filterproof")

"""The quick tier's generated budgets: the README's test command runs every engine at these, and the slow set's
full matrix runs every configuration but an engine's default at these too (``test_conformance_builtin.Budgets``).
"""

from __future__ import annotations

QUICK_EXAMPLES = 8
"""Generated examples and sequences (60 by default): the sequences draw more until the run is strong, and the
property's examples were strong under each of 100 seeds at 10 when this was written (and 100 of 100 at 8)."""
QUICK_SCALE = 400
"""Documents in the quick scale tier (5,000 by default; 2,000 for the stores whose filter is a Python loop): every
selectivity level, and a page or pool cap up to half of that."""
QUICK_LOOP_SCALE = 300
"""The same for those stores (qdrant-client's local mode and its bridges): their cost grows with its square."""

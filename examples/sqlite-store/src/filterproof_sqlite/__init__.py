"""A worked example: a SQLite-backed store tested with filterproof's conformance suite."""

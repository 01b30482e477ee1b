"""What the tests share besides fixtures (those are in ``tests/conftest.py``): helpers, never tests.

Importable as ``support.<module>`` from any test folder (``pythonpath = ["tests"]`` in pyproject.toml); pytest
collects nothing here (no ``test_*.py``).
"""

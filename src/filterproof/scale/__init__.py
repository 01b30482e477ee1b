"""Scale: a seeded corpus generator, the selectivity sweep across backends, and its report.

Nothing here is imported by ``filterproof --help``: the commands in ``commands``
import the heavy parts (numpy work, backends, matplotlib) only when they run.
"""

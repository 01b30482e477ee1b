"""``filterproof matrix``: which filter operators each framework integration really supports.

Small probes with known answers (``probes``), one per operator the policy needs,
rendered into each framework's filter language (``languages``), sent through each
application search path of each installed integration (``targets``), and classified
(``run``): works / raises / ignored (too many documents) / wrong (too few or other
documents) / unsupported (the language has no way to say it). ``render`` writes the
console table, JSON and Markdown; ``commands`` adds the command to the CLI.
"""

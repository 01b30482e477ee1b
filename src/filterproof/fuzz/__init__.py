"""``filterproof fuzz``: generated filters and worlds, judged by metamorphic and differential oracles.

``lang`` (the neutral filter language), ``generate`` (worlds and filters from a seed),
``semantics`` (the neutral evaluator), ``oracles`` (the relations), ``target`` (one
engine's language and store), ``targets`` (the built-in ones), ``finding`` (a finding and
its judge), ``run`` (the loop), ``shrink`` and ``repro`` (a minimal standalone reproducer
per finding), ``report``; the command is ``filterproof.cli.fuzz``.
"""

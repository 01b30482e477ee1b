"""``filterproof freshness``: how long a revoked document stays visible to another client's reader, under load.

``world`` builds the documents and the schedule of changes, ``load`` is a reader's
query loop, ``measure`` runs one backend, ``analysis`` judges each change from the
writer's and the readers' timestamps, ``report`` prints and writes the results.
"""

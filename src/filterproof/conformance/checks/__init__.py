"""The suite's checks: each a ``...Checks`` class mixed into ``AdapterConformanceTests``."""

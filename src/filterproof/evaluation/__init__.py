"""The evaluation pipeline: prepare (truth), search (strategies, runner), judge and score, compare."""

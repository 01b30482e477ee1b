"""The worlds the checks ask: scenarios, twin worlds, generated corpora and sequences, the scale corpus."""

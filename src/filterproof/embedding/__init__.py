"""Vectors: the shared spaces fitted per fixture, the embedders a run chooses from, a user's function."""

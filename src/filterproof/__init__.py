"""filterproof: does a vector store's metadata filter keep the access and freshness policy?"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("filterproof")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

__all__ = ["__version__"]

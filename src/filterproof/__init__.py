"""filterproof: does a vector store's metadata filter keep the access and freshness policy?"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("filterproof")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"



def installed_versions(packages: tuple[str, ...]) -> dict[str, str]:
    """Each distribution's installed version ("not installed" if absent): what a matrix cell or a finding records."""
    found = {}
    for package in packages:
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = "not installed"
    return found


__all__ = ["__version__", "installed_versions"]

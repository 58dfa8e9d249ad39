"""The package version; `tests/unit_tests/test_version.py` checks it against pyproject."""

__version__ = "0.1.0"

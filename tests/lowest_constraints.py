"""Write pip constraints that pin each direct runtime dependency to its declared lower bound.

`make test-lowest` installs the package with these constraints and runs the suite,
so the floors in pyproject.toml stay true: `python tests/lowest_constraints.py > constraints.txt`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 has no tomllib; pip vendors tomli
    from pip._vendor import tomli as tomllib

PYPROJECT = Path(__file__).parents[1] / "pyproject.toml"


def lowest_pins(requirements: list[str]) -> list[str]:
    """`name==floor` for each requirement; one without a `>=` floor is an error (it has no lowest version)."""
    pins = []
    for text in requirements:
        requirement = Requirement(text)
        floors = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        if not floors:
            msg = f"dependency {text!r} has no '>=' lower bound, so there is no lowest version to test"
            raise ValueError(msg)
        pins.append(f"{requirement.name}=={floors[0]}")
    return pins


def main() -> int:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    print("\n".join(lowest_pins(project["dependencies"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Check a built wheel: it ships py.typed, the licence and every module, and no tests. Used by `make dist`."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path


def main(folder: str) -> int:
    wheels = sorted(Path(folder).glob("*.whl"))
    if len(wheels) != 1:
        print(f"expected one wheel in {folder}, found {len(wheels)}")
        return 1
    names = zipfile.ZipFile(wheels[0]).namelist()
    required = ["langchain_perplexity_strict/py.typed", "langchain_perplexity_strict/chat_models.py",
                "langchain_perplexity_strict/testing/emulator.py"]  # fmt: skip
    missing = [n for n in required if n not in names]
    if not any(n.endswith("licenses/LICENSE") for n in names):
        missing.append("the LICENSE file")
    if any(n.startswith("tests/") for n in names):
        missing.append("(tests must not be in the wheel)")
    if missing:
        print(f"{wheels[0].name}: missing {', '.join(missing)}")
        return 1
    print(f"{wheels[0].name}: {len(names)} files, py.typed and LICENSE included")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

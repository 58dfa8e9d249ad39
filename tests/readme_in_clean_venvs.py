"""`make test-readme`: run every README Python block in a fresh venv holding only what the README installs.

The README installs the package with `pip install .`; a block that needs more says
so on its first line (`# needs: pip install ".[agents]"`, `# needs: pip install ".[rag]"`)
and runs in a venv with exactly that added. The emulator is started the README's way (`perplexity-strict emulator
--background --env`) and its exports are the blocks' only environment, besides PATH.
Each block runs as a script from an empty directory, so the repository's source is
never imported in place of the installed package.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
NEEDS = re.compile(r"^# needs: pip install (.+)$", re.MULTILINE)


def extra_of(block: str) -> str | None:
    """What a block says it needs besides `pip install .` (the words after `pip install`), if anything."""
    found = NEEDS.search(block)
    return found.group(1).strip() if found else None


def fresh_venv(extra: str | None) -> Path:
    """A new venv (`.venv-readme-<what>`) with the package installed as the README says."""
    venv = ROOT / f".venv-readme-{re.sub(r'[^a-z0-9]+', '-', extra.lower()).strip('-') if extra else 'base'}"
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    targets = shlex.split(extra) if extra else ["."]
    if not any(t.startswith(".") for t in targets):  # an extra package, on top of the package itself
        targets = [".", *targets]
    print(f"== pip install {' '.join(targets)} into {venv.name}", flush=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", *targets], cwd=ROOT, check=True)
    return venv


def start_emulator(venv: Path) -> dict[str, str]:
    """The README's offline step; returns the variables it exports."""
    result = subprocess.run(
        [str(venv / "bin" / "perplexity-strict"), "emulator", "--port", "0", "--background", "--env"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return dict(re.findall(r"^export (\w+)=(\S+)$", result.stdout, re.MULTILINE))


def main() -> int:
    venvs = {extra: fresh_venv(extra) for extra in sorted({extra_of(b) for b in BLOCKS}, key=str)}
    exports = start_emulator(venvs[None])
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **exports}
    failures = 0
    try:
        with tempfile.TemporaryDirectory() as empty:
            for i, block in enumerate(BLOCKS):
                extra = extra_of(block)
                script = Path(empty) / f"example_{i}.py"
                script.write_text(block, encoding="utf-8")
                python = str(venvs[extra] / "bin" / "python")
                result = subprocess.run(
                    [python, str(script)], cwd=empty, env=env, capture_output=True, text=True, timeout=300, check=False
                )
                where = f"pip install {extra or '.'}"
                if result.returncode == 0:
                    print(f"example-{i}: ok ({where})")
                else:
                    failures += 1
                    last = (result.stderr.strip().splitlines() or ["(no output)"])[-1]
                    print(f"example-{i}: FAILED ({where}): {last}")
    finally:
        os.kill(int(exports["PERPLEXITY_EMULATOR_PID"]), signal.SIGTERM)
    print(f"{len(BLOCKS) - failures} of {len(BLOCKS)} README examples ran with only what the README installs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

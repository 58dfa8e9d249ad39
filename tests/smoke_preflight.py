"""`make smoke`'s first step: run only against Perplexity's live API, never the emulator or another server.

Exits 0 when a key is set, the base URL is Perplexity's and the server there is not
the emulator; otherwise prints why on one line and exits 2.
"""

from __future__ import annotations

import sys

from langchain_perplexity_strict.cli._which_server import PERPLEXITY_BASE_URL, why_not_perplexity


def main() -> int:
    reason = why_not_perplexity()
    if reason is None:
        print(f"make smoke: live checks against {PERPLEXITY_BASE_URL}")
        return 0
    print(f"make smoke: refused, it runs only against Perplexity's live API: {reason}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

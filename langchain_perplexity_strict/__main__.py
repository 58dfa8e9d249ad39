"""`python -m langchain_perplexity_strict`: the command line."""

from langchain_perplexity_strict.cli import main

raise SystemExit(main())

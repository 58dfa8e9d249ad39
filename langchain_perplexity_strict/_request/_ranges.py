"""The documented numeric ranges of built-in tool fields, shared by the tool checks and the search parameters."""

RANGES: dict[tuple[str, str], tuple[float, float, str]] = {
    ("fetch_url", "max_urls"): (1, 100, "an integer"),
    ("image_search", "max_results"): (1, 20, "an integer"),
    ("web_search", "max_tokens"): (1, 1_000_000, "an integer"),
    ("web_search", "max_tokens_per_page"): (1, 1_000_000, "an integer"),
    ("web_search", "user_location.latitude"): (-90, 90, "a number"),
    ("web_search", "user_location.longitude"): (-180, 180, "a number"),
}
"""(tool, field) → (lowest, highest, what): docs/perplexity-rules.md, "Built-in tool ranges"."""

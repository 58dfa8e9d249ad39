"""The documented ranges of built-in tool fields, as constrained types the tool shapes and the parameters share.

Source: docs/perplexity-rules.md, "Built-in tool ranges".
"""

# No `from __future__ import annotations`: TypedDict needs evaluated types.
from typing import Annotated

from annotated_types import Interval
from pydantic import with_config
from typing_extensions import TypedDict

from langchain_perplexity_strict._request._shape_check import PUBLISHED

MAX_SEARCH_TOKENS = 1_000_000
"""The `web_search` tool's bound on `max_tokens` and `max_tokens_per_page`."""
MaxUrls = Annotated[int, Interval(ge=1, le=100)]
MaxImages = Annotated[int, Interval(ge=1, le=20)]
SearchTokens = Annotated[int, Interval(ge=1, le=MAX_SEARCH_TOKENS)]


@with_config(PUBLISHED)
class UserLocation(TypedDict, total=False):
    """`ToolUserLocationInput`: where the search is made from; also the `user_location` parameter."""

    city: str
    country: str
    region: str
    latitude: Annotated[float, Interval(ge=-90, le=90)]
    longitude: Annotated[float, Interval(ge=-180, le=180)]

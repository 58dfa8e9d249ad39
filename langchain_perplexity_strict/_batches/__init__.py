"""Perplexity's Batch API beside the chat pipeline, on the same transport.

The chat model hands over encoded lines and its answer reader: this package never sees messages.
"""

from langchain_perplexity_strict._batches._job import BatchJob, aget, asubmit, check_key, check_metadata, get, submit
from langchain_perplexity_strict._batches._lines import MAX_FILE_BYTES, MAX_LINES, line
from langchain_perplexity_strict._batches._results import Reader

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_LINES",
    "BatchJob",
    "Reader",
    "aget",
    "asubmit",
    "check_key",
    "check_metadata",
    "get",
    "line",
    "submit",
]

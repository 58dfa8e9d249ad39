"""Perplexity's Batch API beside the chat pipeline, on the same transport.

The chat model builds each line exactly as `invoke` builds its body and hands the bytes here, with its reader
for the answers: this package knows the input files and their limits (`_lines`), the batch statuses
(`_statuses`), the output files (`_results`) and the job (`_job`), not messages.
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

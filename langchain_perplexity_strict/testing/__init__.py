"""Offline testing support: a strict Perplexity emulator on loopback."""

from langchain_perplexity_strict.testing.conversation import ConversationRules
from langchain_perplexity_strict.testing.emulator import (
    Fault,
    PerplexityEmulator,
    RecordedRequest,
)

__all__ = ["ConversationRules", "Fault", "PerplexityEmulator", "RecordedRequest"]

"""Tools the chat-model and agent tests share."""

from __future__ import annotations

from langchain_core.tools import tool


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"Sunny in {city}"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

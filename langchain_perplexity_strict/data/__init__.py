"""Static data about Perplexity's models."""

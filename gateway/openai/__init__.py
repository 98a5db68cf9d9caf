"""The OpenAI-compatible /v1 API: models, chat completions, completions."""

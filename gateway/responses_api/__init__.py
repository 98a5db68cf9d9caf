"""The OpenAI Responses API (``/v1/responses``) as a surface of the one /v1 request path, with stored responses."""

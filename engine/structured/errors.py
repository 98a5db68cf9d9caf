"""Errors of the structured-output layer; each is a 400 for the gateway (an ``InvalidRequestError``)."""

from engine.errors import InvalidRequestError


class GrammarCompileError(InvalidRequestError):
    """The constraint (JSON schema, tool spec, regex) cannot be enforced: malformed, uses a keyword the grammar
    engine does not implement, or exceeds the size/time caps. Warden refuses it rather than decode unconstrained."""

    def __init__(self, message: str, param: str | None = "response_format") -> None:
        super().__init__(message, param=param)

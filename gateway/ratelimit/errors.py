"""Errors the rate limiter raises; the HTTP edge maps RateLimiterUnavailable to 503."""


class RateLimiterUnavailable(RuntimeError):
    """The limiter's store could not be reached and the policy fails closed, so the request is refused."""

"""The service's routes, one module per concern: asking, releases and sources, health and metrics, the page.

`common` holds the request dependencies they share (JSON only, the rate limit, the release lease,
naming a generation)."""

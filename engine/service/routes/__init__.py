"""The HTTP API's routers, one per audience: visitors, operators, and the meta routes and pages."""

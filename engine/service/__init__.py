"""The HTTP service: visitor API, operator API, the embeddable chat widget and the operator console.

``engine.service.app.create_app`` builds the FastAPI application; ``grace serve`` (``engine.service.cli``)
runs it on embedded defaults or on configured goal specs, stores and origins.
"""

"""Rule bundles: loading a published, hashed bundle (loader) and the archive of published versions. Below the
kernel, which reads its rules through it; it imports nothing of the engine but engine.errors."""

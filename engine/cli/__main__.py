"""``python -m engine.cli``: the ``grace`` command."""

from engine.cli import main

raise SystemExit(main())

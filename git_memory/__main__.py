"""Allow `python -m git_memory` as an alias of the `git-memory` script."""

from git_memory.cli.main import main

raise SystemExit(main())

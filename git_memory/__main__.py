"""`python -m git_memory`: the `git-memory` script, fast path included."""

from git_memory.entry import main

raise SystemExit(main())

"""`python -m git_memory`: the same entry as the `git-memory` script, fast path included."""

from git_memory.entry import main

raise SystemExit(main())

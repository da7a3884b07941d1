"""Limits on what a command line may ask for (the click options and recall's own parser)."""

# The largest count a command line may ask for (-n/--limit, --recent, --budget): past it a
# number says nothing more, and SQLite takes no integer beyond 2**63 (an OverflowError).
MAX_COUNT = 1_000_000

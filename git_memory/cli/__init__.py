"""The click command line, one module per area; `main` builds the group (see main.py)."""

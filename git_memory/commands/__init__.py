"""One module per command: its click definition (`<name>_cmd`) beside its body."""

"""One module per command. Each exposes plain functions that take parsed values,
print through `ui`, and return an exit code; none imports click. They may call
every layer below (store, index, sanitize, capture, sync, agents, writer)."""

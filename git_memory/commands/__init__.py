"""One module per command: its click definition (`<name>_cmd`, which the group loads on
demand) beside its body, which reads and writes memory through `api.Memory` and prints
through `ui`."""

"""Storage layer: the memory branch, its record files, finding the repository, and git."""

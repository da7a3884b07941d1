"""Capture layer: outside text (import files, commit messages) as `write.append.NewEntry`."""

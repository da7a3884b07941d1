"""Capture layer: turning outside text (import files, commit messages, agent transcripts)
into `write.append.NewEntry` items. Never prints and never writes the branch itself.
"""

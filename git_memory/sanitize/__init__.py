"""Sanitize layer: every writer's text passes through `pipeline.sanitize_for_write`."""

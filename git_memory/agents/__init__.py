"""Agent integration: the session-start context block, Claude Code settings, transcript
capture, the session archive, handoffs and optional distillation.

Never prints or exits; may import `capture`, `index`, `writer`, `store`, `sanitize`, `model`.
"""

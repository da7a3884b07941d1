"""Agents: the session-start context block, each agent's install (`integrations`), transcript
capture, the session archive, handoffs and optional distillation."""

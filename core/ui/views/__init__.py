"""Render functions of the dashboard pages (pages/*.py only call these)."""

"""Cached read queries of the dashboard: all of its SQL lives in these modules."""

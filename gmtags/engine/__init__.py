"""Applies parsed tags to snapshots: one handler per tag name."""

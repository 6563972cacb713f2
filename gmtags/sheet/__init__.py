"""The character sheet in play: references, derived values, live state and wound tracks."""

"""Halls: rooms, cash desks, staff, ball sets."""

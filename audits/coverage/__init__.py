"""The coverage audit: "the event holds with probability at least 1 − ρ", from draws of the event."""

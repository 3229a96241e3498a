"""The privacy_report family of mechanisms: its core in :mod:`.mechanism`, the rest in the modules beside it (importing
one of them does not load the others)."""

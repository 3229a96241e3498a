"""Extra ``pdp-audit`` subcommands: each module here has ``add_parser(subparsers)`` (one line per command)."""
COMMANDS: list = []

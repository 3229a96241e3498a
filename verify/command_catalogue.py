"""Extra ``pdp-audit`` subcommands: each module here has ``add_parser(subparsers)`` (one line per command)."""
from verify import claims_cli

COMMANDS: list = [claims_cli]

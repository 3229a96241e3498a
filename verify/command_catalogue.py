"""Extra ``pdp-audit`` subcommands: each module here has ``add_parser(subparsers)`` (one line per command)."""
from verify import report_cli, sweep_cli
from verify import claims_cli
from verify import tau_cli
from verify import linreg_bench_cli

COMMANDS: list = [sweep_cli, report_cli, claims_cli, tau_cli, linreg_bench_cli]

"""``python -m pdp_audit.cli``: the same as the ``pdp-audit`` command."""

import sys

from pdp_audit.cli.main import main

sys.exit(main())

"""``python -m pdp_audit.verify.cli``: the same as the ``pdp-audit`` command."""

import sys

from pdp_audit.verify.cli.main import main

sys.exit(main())

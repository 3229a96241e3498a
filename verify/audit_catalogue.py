"""Imports every audit command so that each registers itself (one line per audit)."""
from verify import gaussian_cli  # noqa: F401
from verify import goe_cli  # noqa: F401
from verify import linreg_cli  # noqa: F401
from verify import objpert_cli  # noqa: F401
from verify import privacy_report_cli  # noqa: F401

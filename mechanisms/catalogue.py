"""Imports every built-in mechanism module so that each registers itself (one line per module)."""
from mechanisms import gaussian  # noqa: F401
from mechanisms import analyze_gauss  # noqa: F401
from mechanisms import objpert  # noqa: F401
from mechanisms import linreg  # noqa: F401
from mechanisms import privacy_report  # noqa: F401

"""Print the oldest NumPy release series pyproject.toml admits (``"numpy>=1.24"`` -> ``1.24``): the lane that tests
the floor reads it from the one place it is declared (a regular expression: tomllib is Python 3.11's, and the
project supports 3.10)."""

import re
from pathlib import Path

(floor,) = re.findall(r'"numpy\s*>=\s*(\d+\.\d+)[.\d]*"', Path("pyproject.toml").read_text(encoding="utf-8"))
print(floor)

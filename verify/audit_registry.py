"""Audits runnable from the CLI as ``pdp-audit run NAME``: one registration per mechanism audit."""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any, Callable

from verify.checks import Run


@dataclass(frozen=True)
class AuditCommand:
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    execute: Callable[[argparse.Namespace], Run]
    # Overrides of the common options' defaults (e.g. a smaller --trials for an expensive mechanism).
    defaults: dict[str, Any] = field(default_factory=dict)


AUDITS: dict[str, AuditCommand] = {}


def register_audit(command: AuditCommand) -> AuditCommand:
    AUDITS[command.name] = command
    return command


def load_audits() -> dict[str, AuditCommand]:
    from verify import audit_catalogue  # noqa: F401  (each import registers one audit)

    return AUDITS

"""The canary audits of a training run: membership statistics of canary scores and the one-run audit."""

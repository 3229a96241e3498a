"""A small DP-SGD training run that writes canary scores for ``pdp-audit canaries`` (see ``train.py``)."""

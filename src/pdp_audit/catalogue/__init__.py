"""Every audit plan (``plans``: the catalogue) and the command-line parsers generated from their configs
(``arguments``)."""

"""The subcommands of ``pdp-audit`` and their one-line help, in the order ``--help`` lists them: declared once, read
by each command's parser and by the top-level parser that ``pdp-audit --help`` and ``--version`` build without
importing any audit (a second and a half of scipy and the plans' mechanisms, for two lines of text)."""

COMMAND_HELP = {
    "list": "what can be audited",
    "run": "audit one mechanism and write a PDF/JSON report",
    "certify": "certify a deployment file: mechanism, exact parameters, data and (ε, δ) claim",
    "sweep": "run a parameter sweep from a TOML spec into a SQLite store",
    "report": "render a sweep store (results.sqlite) as a PDF and/or JSON report",
    "claims": "the claims ledger: every checkable claim of the papers and what the suite found",
    "tau": "τ of [RW] Lemma 20: P[‖N‖₂ ≤ τ] ≥ 1 − ρ for Algorithm 6's GOE noise",
    "benchmark": "utility benchmarks of the mechanisms (test error, not privacy)",
    "schema": "print the JSON Schema of the run and certificate JSON",
    "mutants": "the mutant zoo: plausible bugs the suite must catch, and their correct twins",
    "blackbox": "try to refute a DP claim of a mechanism that can only be sampled (never certifies)",
    "program": "audit a DP program(data, rng) as it ships: record, replay, compose, confirm",
    "canaries": "bound ε from a training run's canary scores (refutes a claim, never certifies)",
    "examples": "write the shipped examples (deployment files, sweep specs, test files) into a folder",
}

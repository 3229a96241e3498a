"""The share of rows a clip bound changes: counted, warned about above 20%, and said as it is on the report.

A raw-unit CSV (dollars, against the default C = 1) is clipped entirely: the Gaussian audit warns on stderr, in the
JSON and on the PDF's first page, and its per-instance page never claims that some rows enjoy a smaller ε.
"""

import json

import numpy as np
import pytest

from pdp_audit.cli.main import main
from pdp_audit.mechanisms.clipping import LARGE_CLIPPED_SHARE, clipped_rows
from pdp_audit.reports.cover import _identity_lines
from pdp_audit.reports.pdf import per_instance_wording
from pdp_audit.reports.records import Clipping


def test_rows_above_the_bound_are_counted_in_the_query_norm():
    rows = np.array([[0.3, 0.4], [0.6, 0.8], [0.6 * (1 + 1e-15), 0.8], [3.0, 4.0], [0.0, 0.0]])
    l2 = clipped_rows(rows, 1.0)
    assert (l2.clipped, l2.rows, l2.norm) == (1, 5, "L2")  # on the sphere up to rounding is not clipped
    l1 = clipped_rows(rows, 1.0, order=1)  # L1 norms 0.7, 1.4, 1.4, 7, 0
    assert (l1.clipped, l1.norm) == (3, "L1")
    assert l1.share == pytest.approx(0.6)


def test_warning_only_above_the_threshold():
    n = 100
    at = int(LARGE_CLIPPED_SHARE * n)
    assert clipped_rows(np.r_[np.full(at, 2.0), np.zeros(n - at)][:, None], 1.0).warning is None
    above = clipped_rows(np.r_[np.full(at + 1, 2.0), np.zeros(n - at - 1)][:, None], 1.0)
    assert above.large and f"{at + 1} of {n} rows" in above.warning
    every = clipped_rows(np.full((7, 1), 5.0), 1.0)
    assert every.share == 1.0 and "every row changes" in every.warning


def test_per_instance_wording_follows_the_numbers():
    all_clipped = Clipping(500, 500, 1.0, "L2", 1.0, "w")
    text = per_instance_wording(np.full(500, 1.0), 1.0, all_clipped)
    assert "no one a smaller ε" in text and "have a smaller ε" not in text
    count = per_instance_wording(np.full(40, 0.7), 0.7, None)  # a count: every row changes it by 1
    assert "no one a smaller ε" in count
    mixed = per_instance_wording(np.r_[np.full(9, 0.4), [1.0]], 1.0, Clipping(1, 10, 1.0, "L2", 0.1, None))
    assert "90.0% of individuals" in mixed and "the other 10.0%" in mixed and "1 of 10 rows" in mixed


@pytest.fixture(scope="module")
def dollars(tmp_path_factory):
    """500 rows of incomes and spending in dollars (tens of thousands), audited at the default C = 1."""
    folder = tmp_path_factory.mktemp("dollars")
    values = np.abs(np.random.default_rng(1).normal(50_000, 20_000, (500, 2)))
    np.savetxt(folder / "d.csv", values, delimiter=",", header="income,spend", comments="", fmt="%.2f")
    return folder


@pytest.mark.tier2
def test_a_dollars_csv_warns_everywhere(dollars, capsys):
    out = dollars / "r.json"
    args = ["run", "gaussian", "--data", str(dollars / "d.csv"), "--trials", "2000", "--json", str(out)]
    code = main(args + ["--report", str(dollars / "r.pdf")])
    err = capsys.readouterr().err
    assert code in (0, 3)  # the mechanism is still DP: the warning is about utility and per-instance claims
    assert "warning: 500 of 500 rows (100.0%) have L2 norm above the clip bound C = 1" in err
    doc = json.loads(out.read_text())
    assert doc["clipping"]["clipped_rows"] == 500 and doc["clipping"]["clipped_share"] == 1.0
    assert doc["clipping"]["warning"] is not None
    assert doc["per_instance"]["median"] == pytest.approx(doc["per_instance"]["dp_epsilon"], rel=1e-9)
    assert (dollars / "r.pdf").read_bytes().startswith(b"%PDF")


def test_the_cover_carries_the_warning_only_when_the_share_is_large(dollars):
    from pdp_audit.audits.gaussian.config import GaussianAuditConfig
    from pdp_audit.audits.gaussian.evidence import gaussian_run, setup

    warned = setup(GaussianAuditConfig(data=str(dollars / "d.csv"), trials=2000))
    shipped = setup(GaussianAuditConfig(trials=2000))
    lines = {
        name: [t for t, _ in _identity_lines(gaussian_run(c, s, []))]
        for name, c, s in (
            ("dollars", GaussianAuditConfig(data=str(dollars / "d.csv")), warned),
            ("shipped", GaussianAuditConfig(), shipped),
        )
    }
    assert any(t.startswith("Warning: 500 of 500 rows") for t in lines["dollars"])
    assert not any(t.startswith("Warning:") for t in lines["shipped"])  # diabetes: 45 of 442 clipped, by design

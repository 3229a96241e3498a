"""Black-box mode (audits/blackbox/attack.py, `pdp-audit blackbox`, `assert_dp_blackbox`): validated on white-box
mechanisms -- its ε lower bound never exceeds the exact ε (false alarm 1e-6, fixed seeds), it refutes a
deflated mechanism, and it never certifies."""

import functools
import json
import sys
import textwrap
import warnings

import numpy as np
import pytest

from pdp_audit import pytest_plugin
from pdp_audit.audits.blackbox.attack import AttackOptions, blackbox_attack
from pdp_audit.cli.main import main
from pdp_audit.mechanisms import gaussian as g

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

ALPHA, DELTA = 1e-6, 1e-5
#: The tests of the logistic test's own properties name it: the default statistic is the event test.
LOGISTIC = AttackOptions("logistic")


def gaussian_samplers(sigma, shift=1.0, d=1):
    pair = g.GaussianPair(np.zeros(d), np.eye(d)[0] * shift, sigma)
    return (lambda n, rng: pair.sample("D", n, rng)), (lambda n, rng: pair.sample("D'", n, rng))


@pytest.mark.parametrize("sigma,d", [(g.analytic_sigma(1.0, DELTA), 1), (1.0, 3), (0.5, 1)])
def test_bound_is_valid_on_white_box_mechanisms(sigma, d):
    exact = g.analytic_epsilon(DELTA, sigma)
    bound = blackbox_attack(*gaussian_samplers(sigma, d=d), 50_000, DELTA, seed=1, options=LOGISTIC)
    bound = bound.epsilon_lower_bound_at(ALPHA)
    assert 0 < bound <= exact, (bound, exact)
    if sigma <= 1.0:
        assert bound > 0.3 * exact  # a learned linear test comes within a factor ~2 of the optimal one


def test_a_variance_change_is_seen_through_the_quadratic_features():
    """D: N(0, 1), D': N(0, 3²) -- equal means; the optimal test thresholds o²."""
    d = lambda n, rng: rng.standard_normal((n, 1))  # noqa: E731
    dp = lambda n, rng: 3 * rng.standard_normal((n, 1))  # noqa: E731
    assert blackbox_attack(d, dp, 20_000, DELTA, seed=2, options=LOGISTIC).epsilon_lower_bound_at(ALPHA) > 1.0


def _audit(strict=False):
    settings = pytest_plugin.Settings(trials=20_000, seed=0, alpha=ALPHA, strict=strict)

    class Session:
        def add(self, record):
            pass

    return pytest_plugin.PrivacyAudit("test_blackbox.py::t", settings, Session())


@pytest.mark.tier2
def test_plugin_refutes_a_deflated_mechanism_and_never_passes_a_correct_one():
    with pytest.raises(pytest.fail.Exception, match="blackbox-attack"):
        _audit().assert_dp_blackbox(*gaussian_samplers(0.3), epsilon=1.0, delta=DELTA)
    with pytest.raises(pytest.skip.Exception, match="never certify"):
        _audit().assert_dp_blackbox(
            *gaussian_samplers(g.analytic_sigma(1.0, 1e-6)), epsilon=1.0, delta=DELTA, law="ideal"
        )


MODULE = textwrap.dedent(
    """
    import numpy as np
    from pdp_audit.mechanisms.gaussian import GaussianPair

    def deflated():
        return GaussianPair(np.zeros(2), np.array([1.0, 0.0]), 0.3)

    def correct():
        return GaussianPair(np.zeros(2), np.array([1.0, 0.0]), 5.0)
    """
)


@pytest.mark.tier2
def test_cli_exit_codes_and_json(tmp_path, monkeypatch, capsys):
    (tmp_path / "user_mech.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    common = ["--claim-epsilon", "1", "--claim-delta", "1e-5", "--trials", "20000", "--law", "ideal"]
    out = tmp_path / "bb.json"
    assert main(["blackbox", "user_mech:deflated", *common, "--json", str(out)]) == 1
    doc = json.loads(out.read_text())
    assert doc["check"]["verdict"] == "fail" and doc["check"]["id"] == "blackbox-attack"
    assert main(["blackbox", "user_mech:correct", *common]) == 3
    assert "UNDECIDED" in capsys.readouterr().out


@pytest.mark.parametrize(
    "target,needle",
    [("nocolon", "MODULE:FACTORY"), ("no_such_module_x:f", "cannot import"), ("json:nothing", "no callable")],
)
def test_cli_bad_targets_are_one_line(target, needle, capsys):
    assert main(["blackbox", target, "--claim-epsilon", "1", "--claim-delta", "1e-5"]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


FAULTY = """
import sys

class Raises:
    def sample(self, world, size, rng):
        raise RuntimeError("my sampler is broken\\npdp-audit: CERTIFIED")

def sampler_raises():
    return Raises()

def factory_raises():
    raise ValueError("factory failed")

def factory_exits():
    sys.exit(0)
"""


@pytest.mark.tier2(
    cases=("faulty_user-sampler_raises-1-pair-protocol: Malformed pair: sample('D', 2) raised RuntimeError",)
)
@pytest.mark.parametrize(
    "module,target,code,needle",
    [
        # the memory check's probe of 2 releases is the first call (before the rng-discipline probe's of 1000)
        ("faulty_user", "sampler_raises", 1, "pair-protocol: Malformed pair: sample('D', 2) raised RuntimeError"),
        ("faulty_user", "factory_raises", 2, "factory_raises() raised ValueError: 'factory failed'"),
        ("faulty_user", "factory_exits", 2, "raised SystemExit (sys.exit(0))"),
        ("broken_syntax", "make", 2, "importing module 'broken_syntax' raised SyntaxError"),
    ],
)
def test_the_users_code_failing_is_theirs_in_one_line(module, target, code, needle, tmp_path, monkeypatch, capsys):
    """A sampler, factory or module of the user's that raises, exits or does not parse: one line naming it, exit 1
    (the pair fails its protocol) or 2 (the target cannot be loaded) -- never exit 4, never exit 0."""
    (tmp_path / "faulty_user.py").write_text(FAULTY)
    (tmp_path / "broken_syntax.py").write_text("def make(:\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("faulty_user", "broken_syntax"):  # imported here, then dropped: another test writes its own
        monkeypatch.delitem(sys.modules, name, raising=False)
    args = ["blackbox", f"{module}:{target}", "--claim-epsilon", "1", "--claim-delta", "1e-5", "--trials", "2000"]
    assert main(args) == code
    captured = capsys.readouterr()
    text = (captured.out + captured.err).strip()
    assert needle in text and len(text.splitlines()) == 1, text  # the message's newline stays escaped: no forged line


def scaled_samplers(scale, sigma=0.3):
    """The deflated Gaussian mechanism (σ = 0.3, a shift of 1) with every release multiplied by ``scale``."""
    d, dp = gaussian_samplers(sigma)
    return (lambda n, rng: scale * d(n, rng)), (lambda n, rng: scale * dp(n, rng))


def test_no_magnitude_of_finite_release_crashes_the_black_box():
    """On main, releases ~1e160 crashed it (exit 4: the squared features overflowed).  The features are now
    computed from releases standardised on the training split (a power of two, then mean and sd), so the learned
    test -- and, the scores being ranked, the bound -- is the same at every scale."""
    bounds = {
        scale: blackbox_attack(*scaled_samplers(scale), 20_000, DELTA, seed=3, options=LOGISTIC).epsilon_lower_bound_at(
            ALPHA
        )
        for scale in (1.0, 1e160, 1e-160, 1e300)
    }
    assert bounds[1.0] > 1.0, bounds  # refuted: a shift of 1 at σ = 0.3 is far from ε = 1
    assert all(b == pytest.approx(bounds[1.0], rel=1e-6) for b in bounds.values()), bounds


def test_releases_at_the_top_of_float64_give_the_bound_of_every_other_magnitude():
    """Releases ±1e308 (|o| ≥ 2^1023) made the standardising power of two 2^1024 = inf: an overflow warning, every
    release 0 and the bound 0 where scale 1 gave 0.7647.  Signs of shifted normals, exact at every scale."""

    def signs(scale, shift):
        return lambda n, rng: scale * np.sign(rng.normal(shift, 1.0, size=(n, 1)))

    bounds = {}
    for scale in (1.0, 1e200, 1e308, float(np.finfo(float).max), 5e-324):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            attack = blackbox_attack(signs(scale, 1.0), signs(scale, 0.0), 4000, DELTA, seed=5, options=LOGISTIC)
        bounds[scale] = attack.epsilon_lower_bound_at(ALPHA)
    assert bounds[1.0] > 0.3, bounds
    assert all(b == pytest.approx(bounds[1.0], rel=1e-9) for b in bounds.values()), bounds


BIG_MODULE = textwrap.dedent(
    """
    import numpy as np

    class Scaled:
        def __init__(self, scale, poison=None):
            self.scale, self.poison = scale, poison

        def sample(self, world, size, rng):
            out = self.scale * rng.normal(0.0 if world == "D" else 1.0, 0.3, size=(size, 1))
            if self.poison is not None:
                out[size // 2, 0] = self.poison
            return out

    def huge():
        return Scaled(1e160)

    def tiny():
        return Scaled(1e-160)

    def infinite():
        return Scaled(1.0, np.inf)

    def nan():
        return Scaled(1.0, np.nan)
    """
)


@pytest.mark.tier2
def test_cli_decides_huge_and_tiny_releases_and_refuses_infinite_ones_in_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "scaled_mech.py").write_text(BIG_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    common = ["--claim-epsilon", "1", "--claim-delta", "1e-5", "--trials", "20000"]
    for factory in ("huge", "tiny"):
        assert main(["blackbox", f"scaled_mech:{factory}", *common]) == 1, capsys.readouterr()
        assert "REFUTED  ε lower bound" in capsys.readouterr().out
    for factory in ("infinite", "nan"):
        out = tmp_path / f"{factory}.json"
        assert main(["blackbox", f"scaled_mech:{factory}", *common, "--json", str(out)]) == 1
        captured = capsys.readouterr()
        lines = captured.out.strip().splitlines()
        # stderr: nothing but the budget stated before the run (the sandbox's child writes it to this process's
        # file descriptor 2, which capsys does not read)
        said = [line for line in captured.err.splitlines() if not line.startswith("pdp-audit blackbox: Budget: ")]
        assert len(lines) == 1 and not said, captured
        assert "REFUTED  pair-protocol" in lines[0] and "sample('D', 2) returned 1 of 2 releases" in lines[0]
        assert "NaN or infinite" in lines[0], lines[0]
        assert json.loads(out.read_text())["check"]["id"] == "pair-protocol"


def test_a_dimension_that_changes_with_the_block_size_is_the_pairs_fault():
    """main concatenated blocks of 1 and 2 columns: numpy's ValueError, exit 4 "please report it"."""
    import pdp_audit

    def sample(world, size, rng):
        return rng.normal(size=(size, 1 if size == 65_536 else 2))

    run = pdp_audit.audit_blackbox(
        (lambda n, r: sample("D", n, r), lambda n, r: sample("D'", n, r)), 1.0, DELTA, trials=100_000
    )
    (check,) = run.checks
    assert run.verdict == "fail" and check.id == "pair-protocol", check
    assert "sample('D', 34464) released 2 columns, sample('D', 65536) released 1" in check.note, check.note


def test_a_slow_sampler_shows_how_many_releases_are_drawn(monkeypatch):
    """On a terminal the black box shows a bar of the 4 × trials releases it draws (a user's sampler may take
    minutes; main showed nothing), named by the pass drawing them; never where stderr is a file or a pipe."""
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    from pdp_audit.verify.estimators import progress

    monkeypatch.setattr(progress, "DELAY", 0.0)  # at once: the pass may end before the delay that hides short ones
    monkeypatch.delenv(progress.ENV, raising=False)
    for terminal, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", terminal)
        blackbox_attack(*gaussian_samplers(1.0), 70_000, DELTA, seed=1, progress=True, options=LOGISTIC)
        assert ("blackbox, training releases" in terminal.getvalue()) is shown
        assert ("/280k" in terminal.getvalue()) is shown  # 4 × 70,000 releases


def test_a_run_that_names_no_budget_is_the_event_test_at_the_declared_default(tmp_path, monkeypatch, capsys):
    """The defaults of `pdp-audit blackbox` and `pdp_audit.audit_blackbox` (one declaration,
    pdp_audit.audits.blackbox.defaults): the event test on millions of fresh releases per world (the logistic test
    at 1e5 missed three incorrect variants of the peers' benchmark); a search or a report attacks with the same test
    (a witness records it), a witness's re-check on the witness's own budget.  The audit itself is replaced by one
    that reports what it was given."""
    import pdp_audit
    import pdp_audit.audits.blackbox.audit as home
    from pdp_audit.audits.blackbox.defaults import DEFAULT_TRIALS
    from pdp_audit.verify.inputs.validation import InputError

    assert DEFAULT_TRIALS >= 8_000_000  # 4e6 left SVT3 unrefuted on one seed of three (docs/how-to/blackbox.md)

    def given(samplers, trials, budget, progress, auto=False):
        raise InputError(f"given trials={trials} statistic={budget.statistic}")

    # where the kind's run fits the budget, whether pdp_audit.audit_blackbox or the command called it (here, not in
    # the sandbox's child, which this patch would not reach)
    monkeypatch.setattr(home, "_fitted", given)
    from pdp_audit import use_cases

    monkeypatch.setattr(use_cases, "run_isolated", lambda function, *args, target: function(*args))
    # no budget named: None, which the run fits to the sampler's speed (8e6 for a fast one: below)
    with pytest.raises(InputError, match="^given trials=None statistic=events$"):
        pdp_audit.audit_blackbox(gaussian_samplers(1.0), 1.0, DELTA)
    (tmp_path / "user_mech.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["blackbox", "user_mech:correct", "--claim-epsilon", "1", "--claim-delta", "1e-5"]) == 2
    assert "given trials=None statistic=events" in capsys.readouterr().err
    assert (
        main(
            [
                "blackbox",
                "user_mech:correct",
                "--claim-epsilon",
                "1",
                "--claim-delta",
                "1e-5",
                "--trials",
                "2e4",
                "--statistic",
                "logistic",
            ]
        )
        == 2
    )
    assert "given trials=20000 statistic=logistic" in capsys.readouterr().err
    from pdp_audit.catalogue.arguments import typed
    from pdp_audit.cli.blackbox import BLACKBOX_OPTIONS, resolved
    from pdp_audit.cli.main import build_parser

    argv = ["blackbox", "m:f", "--claim-epsilon", "1", "--claim-delta", "0"]
    for flags in (["--search", "patterns"], ["--report", "r.pdf"]):  # a search or a report: the plain run's test
        args = resolved(typed(build_parser().parse_args([*argv, *flags]), *BLACKBOX_OPTIONS))
        assert (args.trials, args.statistic) == (DEFAULT_TRIALS, "events")
    args = resolved(typed(build_parser().parse_args([*argv, "--witness", "w.json"]), *BLACKBOX_OPTIONS))
    assert args.trials is None  # the witness's own budget, read with the witness


def test_the_default_budget_is_fitted_to_a_slow_sampler_and_said():
    """A sampler at 100 µs a release (a library tool called once per release): the default 8e6 would draw 2.1e7
    releases in 35 minutes; it is lowered to what fits 8 minutes, and says so.  A fast sampler keeps the default."""
    import time

    from pdp_audit.audits.blackbox import time_budget as tb
    from pdp_audit.audits.blackbox.defaults import DEFAULT_TRIALS

    def slow(size, rng):
        time.sleep(size * 1e-4)
        return rng.normal(size=(size, 1))

    fitted = tb.fitted_budget((slow, slow), "events", workers=1)
    assert fitted.lowered and tb.MIN_TRIALS <= fitted.trials < DEFAULT_TRIALS / 4
    assert 2 * tb.releases_per_world(fitted.trials, "events") * fitted.seconds_per_release <= tb.TIME_BUDGET_S
    assert fitted.describe().startswith("Budget lowered to fit about 8 min:")
    fast = tb.fitted_budget(gaussian_samplers(1.0), "events", workers=1)
    assert not fast.lowered and fast.trials == DEFAULT_TRIALS


def test_a_run_that_names_no_workers_uses_the_cores_for_a_slow_sampler_that_pickles(monkeypatch):
    """Workers None (``pdp-audit blackbox`` without ``--workers``): below the measured threshold one process; above
    it the available cores where the sampler pickles, else one process and a line saying why.  The cost is given,
    not timed: the choice is what is tested."""
    from pdp_audit.audits.blackbox import time_budget as tb
    from pdp_audit.verify.evidence import user_audits

    monkeypatch.setattr(user_audits, "available_cores", lambda: 4)
    pair = g.GaussianPair(np.zeros(1), np.ones(1), 1.0)
    samplers = (functools.partial(pair.sample, "D"), functools.partial(pair.sample, "D'"))
    slow = 2 * user_audits.PARALLEL_FROM_S
    assert tb.fitted_budget(samplers, "events", None, 20_000, cost=user_audits.PARALLEL_FROM_S / 2).workers == 1
    chosen = tb.fitted_budget(samplers, "events", None, 20_000, cost=slow)
    assert chosen.workers == 4 and "Workers: 4 (the available cores)" in chosen.statement("events")
    assert "45,000 releases drawn per world in all" in chosen.statement("events")  # 2e4 + 5e3 + 2e4
    local = (lambda size, rng: rng.normal(size=(size, 1)),) * 2
    serial = tb.fitted_budget(local, "events", None, 20_000, cost=slow)
    assert serial.workers == 1 and "does not pickle" in serial.statement("events")
    assert tb.fitted_budget(samplers, "events", 3, 20_000, cost=slow).workers == 3  # named workers are kept


@pytest.mark.tier2
def test_the_command_leaves_the_workers_to_the_run_and_states_its_budget(tmp_path, monkeypatch, capfd):
    """Without --workers the command hands None to the audit (a search and a witness re-check run in one process);
    a plain run states its budget, releases and minutes, on stderr before it starts, --trials given or not."""
    from pdp_audit.catalogue.arguments import typed
    from pdp_audit.cli.blackbox import BLACKBOX_OPTIONS, PLACE_OPTIONS, resolved
    from pdp_audit.cli.main import build_parser
    from pdp_audit.verify.evidence.user_audits import PARALLEL_FROM_S

    assert f"slower than {PARALLEL_FROM_S * 1e6:.0f} µs a release" in PLACE_OPTIONS[0].help  # the one threshold
    argv = ["blackbox", "m:f", "--claim-epsilon", "1", "--claim-delta", "0"]
    for flags, workers in (([], None), (["--workers", "2"], 2), (["--search", "patterns"], 1)):
        args = resolved(typed(build_parser().parse_args([*argv, *flags]), *BLACKBOX_OPTIONS, *PLACE_OPTIONS))
        assert args.workers == workers, flags
    (tmp_path / "user_mech.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["blackbox", "user_mech:correct", "--claim-epsilon", "1", "--claim-delta", "1e-5", "--trials", "2e3"])
    assert "Budget: 2,000 fresh releases per world, about" in capfd.readouterr().err


@pytest.mark.tier2
def test_a_sampler_may_import_a_module_beside_it_lazily(tmp_path, monkeypatch):
    """``pdp-audit blackbox`` put the current folder on sys.path only while TARGET's module loaded: a sample()
    importing its sibling lazily raised ModuleNotFoundError and a correct mechanism was reported as refuted (exit
    1); it is inconclusive now, as a correct mechanism's black-box run is."""
    (tmp_path / "lazy_bb.py").write_text(
        textwrap.dedent(
            """
            import numpy as np

            class Pair:
                def sample(self, world, size, rng):
                    import lazy_bb_sibling  # imported only when the audit draws

                    return rng.normal(lazy_bb_sibling.SHIFT if world == "D" else 0.0, 5.0, size=(size, 1))

            def make():
                return Pair()
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / "lazy_bb_sibling.py").write_text("SHIFT = 1.0\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    sys.modules.pop("lazy_bb_sibling", None)
    argv = ["blackbox", "lazy_bb:make", "--claim-epsilon", "1", "--claim-delta", "1e-5", "--trials", "2e4"]
    code = main([*argv, "--law", "ideal"])  # a real-valued law: rng.normal(μ, σ)'s doubles carry μ
    assert code == 3

"""A rehearsal series of realistic DP programs, each bug beside its fixed twin, for ``pdp_audit.audit_program``.

Written the way analysis code around diffprivlib, SmartNoise or synthcity pipelines is written: a pandas frame of a
few columns, clipping, group-bys, histograms, means, percentile bounds, report-noisy-max, sparse vector.  Every
program is ``program(data, rng)`` and draws its noise from ``rng`` (a ``numpy.random.Generator``), or from
diffprivlib or OpenDP called as their users call them.  Each docstring names the bug class and where it is
described:

* Cebere, Erb, Desfontaines, Bellet & Fitzsimons, "Grey-box auditing of DP libraries", PETS 2026, §5 (the bug
  classes of DP code around the noise);
* Casacuberta, Shoemate, Vadhan & Wagaman, "Widespread underestimation of sensitivity in DP libraries", CCS 2022,
  §4 (float sums, neighbour relations);
* Lyu, Su & Li, "Understanding the sparse vector technique for DP", PVLDB 2017, §3-4 and Fig. 1 (Alg. 1-6);
* Dwork & Roth, "The algorithmic foundations of DP", 2014, §3.3-3.5 (Laplace, report noisy max, AboveThreshold).

The datasets are built here from fixed numbers or a seeded generator: :data:`STAFF` (20 employees: department,
age, salary, rating), :data:`LOGINS` (1,000 login times within one day, epoch seconds, to the millisecond),
:data:`INCIDENTS` (incidents by week) and :data:`REVIEWS` (product reviews with a sentiment in [-1, 1]).
"""

from __future__ import annotations

import math
from importlib.util import find_spec

import numpy as np
import pandas as pd

EPSILON = 1.0

# --- the datasets -------------------------------------------------------------------------------------------------
#: The declared department domain (public; "support" has no member in the data, "legal" one).
DEPTS = ("eng", "ops", "sales", "legal", "support")
#: Record 0 is in "eng", which ties with "ops" at 7 members (``np.argmax`` keeps the first of equals).
STAFF = pd.DataFrame(
    {
        "dept": ["eng", "ops", "sales", "eng", "ops", "sales", "eng", "ops", "legal", "eng", "sales", "ops", "eng",
                 "ops", "sales", "eng", "ops", "sales", "eng", "ops"][:20],
        "age": [34, 29, 41, 52, 38, 26, 45, 31, 60, 23, 36, 48, 30, 57, 42, 27, 33, 39, 44, 50],
        "salary": [98_000.0, 61_500.0, 72_000.0, 131_000.0, 58_250.0, 49_900.0, 115_000.0, 66_000.0, 142_500.0,
                   81_000.0, 77_300.0, 70_100.0, 92_400.0, 88_800.0, 69_000.0, 85_500.0, 63_200.0, 74_400.0,
                   104_000.0, 71_700.0],
        "rating": [4.5, 3.0, 4.0, 3.5, 2.5, 4.0, 5.0, 3.5, 4.5, 3.0, 2.0, 4.0, 3.5, 3.0, 4.5, 4.0, 3.5, 3.0, 4.0, 2.5],
    }
)  # fmt: skip
SALARY_CAP = 150_000.0
AGES = (18, 70)
RATINGS = (1.0, 5.0)

#: The start of the day the logins fall in (public), and its length.
DAY_START, DAY = 1_700_000_000.0, 86_400.0
LOGINS = pd.DataFrame({"login_ts": DAY_START + np.sort(np.random.default_rng(7).uniform(0.0, DAY, 1000)).round(3)})

#: Incidents by week (0-7), sorted by week: record 0 is in week 0, whose count ties week 1's.
WEEK_COUNTS = (6, 6, 2, 9, 4, 7, 3, 5)
INCIDENTS = pd.DataFrame(
    {
        "week": np.repeat(np.arange(len(WEEK_COUNTS)), WEEK_COUNTS),
        "severity": np.resize([1, 2, 3, 2, 1], sum(WEEK_COUNTS)),
    }
)
#: AboveThreshold's public threshold on a week's count.
THRESHOLD = 7.0

#: The declared product domain and reviews with a sentiment in [-1, 1].
PRODUCTS = ("tent", "stove", "lamp", "pack")
REVIEWS = pd.DataFrame(
    {
        "product": ["tent", "stove", "lamp", "pack", "tent", "tent", "lamp", "stove", "pack", "tent", "lamp", "stove"],
        "sentiment": [0.8, -0.5, 0.2, 0.9, -1.0, 0.4, 0.6, -0.2, 0.1, 0.7, -0.9, 0.3],
    }
)


def _ratings(frame: pd.DataFrame) -> np.ndarray:
    return frame["rating"].to_numpy(dtype=float)


# --- a dataset size taken as public under add/remove ------------------------------------------------------------
def share_senior_public_n(data, rng):
    """Bug (a dataset size used as public under add/remove; Cebere et al. 2026, §5): the share of staff aged 50 or
    more as a noisy count over the exact headcount -- the count's noise is right (Lap(1/ε)), but dividing by
    ``len(data)`` scales it by a private number, and the quotient moves with n."""
    ages = data["age"].to_numpy()
    senior = float(np.count_nonzero(ages >= 50))
    return (senior + rng.laplace(0.0, 1.0 / EPSILON)) / len(data)


def share_senior_fixed(data, rng):
    """The fix: a noisy count of seniors and a noisy headcount at ε/2 each; the share is their ratio
    (post-processing, Dwork & Roth 2014, Prop. 2.1)."""
    ages = data["age"].to_numpy()
    senior = np.count_nonzero(ages >= 50) + rng.laplace(0.0, 2.0 / EPSILON)
    headcount = len(data) + rng.laplace(0.0, 2.0 / EPSILON)
    return float(senior / max(headcount, 1.0))


# --- a class domain taken from the private data ------------------------------------------------------------------
def _pay(data) -> np.ndarray:
    salary = np.nan_to_num(data["salary"].to_numpy(dtype=float), nan=0.0, posinf=SALARY_CAP, neginf=0.0)
    return np.clip(salary, 0.0, SALARY_CAP)


def dept_pay_groupby(data, rng):
    """Bug (a class domain taken from the data; Cebere et al. 2026, §5): pay totals and headcounts per department
    over the departments ``unique()`` finds in the data -- removing "legal"'s only member removes its two noisy
    calls and its key (the loop's control flow and the release's shape reveal whether a department has
    members)."""
    depts, pay = data["dept"].to_numpy(dtype=str), _pay(data)
    out = {}
    for dept in sorted(data["dept"].unique()):
        members = depts == dept
        out[dept] = (
            float(pay[members].sum() + rng.laplace(0.0, 2 * SALARY_CAP / EPSILON)),
            float(np.count_nonzero(members) + rng.laplace(0.0, 2.0 / EPSILON)),
        )
    return out


def dept_pay_declared(data, rng):
    """The fix: the loop runs over the declared departments (a department without members gets its noisy zeros);
    each record is in one department, so the departments compose in parallel: ε/2 for the sums, ε/2 for the counts
    (Dwork & Roth 2014, §3.3)."""
    depts, pay = data["dept"].to_numpy(dtype=str), _pay(data)
    out = {}
    for dept in DEPTS:
        members = depts == dept
        out[dept] = (
            float(pay[members].sum() + rng.laplace(0.0, 2 * SALARY_CAP / EPSILON)),
            float(np.count_nonzero(members) + rng.laplace(0.0, 2.0 / EPSILON)),
        )
    return out


def dept_counts_thresholded(data, rng):
    """Bug (a class domain taken from the data, "fixed" by a threshold; Cebere et al. 2026, §5; Desfontaines, Voss,
    Gipson & Mandayam 2022, §3): the departments found in the data, each kept where its noisy count is at least 3
    -- under a pure claim; a department of one member appears with probability P[1 + Lap(1) ≥ 3] = e⁻²/2 ≈ 0.07 and
    never without it (no finite ε; a threshold only buys a δ)."""
    depts = data["dept"].to_numpy(dtype=str)
    out = {}
    for dept in sorted(set(depts.tolist())):
        noisy = np.count_nonzero(depts == dept) + rng.laplace(0.0, 1.0 / EPSILON)
        if noisy >= 3.0:
            out[dept] = float(noisy)
    return out


#: The (ε, δ) = (1, 1e-5) threshold of Laplace partition selection: 1 + ln(1/(2δ))/ε (Desfontaines et al. 2022,
#: §3; Korolova et al. 2009).
PARTITION_THRESHOLD = 1.0 + math.log(1.0 / (2 * 1e-5)) / EPSILON


def dept_counts_partition_selection(data, rng):
    """The fix: the threshold of Laplace partition selection for (1, 1e-5) -- each record in one department, a
    department's noisy count released where it reaches 1 + ln(1/(2δ))/ε ≈ 11.8 (claimed (1, 1e-5)-DP)."""
    depts = data["dept"].to_numpy(dtype=str)
    out = {}
    for dept in sorted(set(depts.tolist())):
        noisy = np.count_nonzero(depts == dept) + rng.laplace(0.0, 1.0 / EPSILON)
        if noisy >= PARTITION_THRESHOLD:
            out[dept] = float(noisy)
    return out


# --- a raw sum released with the clipped data's sensitivity -------------------------------------------------------
def payroll_raw_column(data, rng):
    """Bug (a sum of raw data released with the clipped data's sensitivity; Cebere et al. 2026, §5): the capped
    salaries are computed, the noise is calibrated to the cap, and the sum is taken of the raw column."""
    capped = data["salary"].clip(0.0, SALARY_CAP)
    sensitivity = SALARY_CAP  # one record adds at most the cap to the capped column
    del capped  # (computed, then the raw column summed below)
    return float(data["salary"].sum() + rng.laplace(0.0, sensitivity / EPSILON))


def payroll_capped_column(data, rng):
    """The fix: the sum of the capped salaries (pandas skips NaN; ``clip`` maps ±inf to the ends)."""
    capped = data["salary"].clip(0.0, SALARY_CAP)
    return float(capped.sum() + rng.laplace(0.0, SALARY_CAP / EPSILON))


# --- a hyperparameter that makes the computed sensitivity 0 ------------------------------------------------------
#: The Gaussian mechanism's multiplier σ/Δ₂ for (ε, δ) = (1, 1e-5) (Dwork & Roth 2014, Thm A.1).
NOISE_MULTIPLIER = math.sqrt(2 * math.log(1.25 / 1e-5)) / EPSILON
#: The public batch size the noisy gradient sum is divided by (as Opacus divides by the expected batch size).
BATCH = 16


def _clipped_gradients(data, clip_norm):
    """Per-record gradients of the squared loss of a rating predicted from (age/100, 1) at weights (4, 1), each
    scaled to an L2 norm at most ``clip_norm`` (Abadi et al. 2016, Alg. 1)."""
    age = np.nan_to_num(data["age"].to_numpy(dtype=float), nan=0.0, posinf=100.0, neginf=0.0) / 100.0
    rating = np.nan_to_num(_ratings(data), nan=3.0, posinf=5.0, neginf=1.0)
    features = np.stack([age, np.ones_like(age)], axis=1)
    residual = features @ np.array([4.0, 1.0]) - rating
    gradients = residual[:, None] * features
    norms = np.linalg.norm(gradients, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        factor = np.where(norms > clip_norm, clip_norm / norms, 1.0)
    return np.nan_to_num(gradients * factor[:, None])


def dp_gradient_floor_division(data, rng, clip_norm=1.0):
    """Bug (a hyperparameter that makes the computed sensitivity 0; Cebere et al. 2026, §5): the averaged
    gradient's sensitivity written ``clip_norm // BATCH`` -- 0.0 for every clip norm below the batch size -- so the
    Gaussian noise has σ = 0 and the gradient is released exactly."""
    total = _clipped_gradients(data, clip_norm).sum(axis=0)
    sensitivity = clip_norm // BATCH
    return total / BATCH + rng.normal(0.0, NOISE_MULTIPLIER * sensitivity, size=2)


def dp_gradient(data, rng, clip_norm=1.0):
    """The fix: Δ₂ = clip_norm / BATCH (one record adds a gradient of norm ≤ clip_norm to the sum), σ = Δ₂·z with
    z = √(2 ln(1.25/δ))/ε: (1, 1e-5)-DP (Dwork & Roth 2014, Thm A.1)."""
    total = _clipped_gradients(data, clip_norm).sum(axis=0)
    sensitivity = clip_norm / BATCH
    return total / BATCH + rng.normal(0.0, NOISE_MULTIPLIER * sensitivity, size=2)


# --- NaN passing through np.clip (into a report-noisy-max) -------------------------------------------------------
def _dept_rating_totals(data, ratings):
    depts = data["dept"].to_numpy(dtype=str)
    return np.array([ratings[depts == d].sum() for d in DEPTS], dtype=float)


def best_rated_dept_nan(data, rng):
    """Bug (NaN passing through ``np.clip``; Cebere et al. 2026, §5): a report-noisy-max of the departments' rating
    totals, each rating clipped to [1, 5] with ``np.clip`` -- which keeps NaN -- so one NaN rating makes its
    department's total NaN, and ``np.argmax`` returns the first NaN: that department wins on every draw."""
    ratings = np.clip(_ratings(data), *RATINGS)
    totals = _dept_rating_totals(data, ratings)
    noisy = totals + rng.laplace(0.0, 2 * RATINGS[1] / EPSILON, size=len(DEPTS))
    return DEPTS[int(np.argmax(noisy))]


def best_rated_dept(data, rng):
    """The fix: NaN and ±inf mapped into [1, 5] first; report noisy max with Laplace of scale 2Δ/ε, Δ = 5 (Dwork &
    Roth 2014, Claim 3.9, for queries of sensitivity Δ)."""
    ratings = np.clip(np.nan_to_num(_ratings(data), nan=1.0, posinf=5.0, neginf=1.0), *RATINGS)
    totals = _dept_rating_totals(data, ratings)
    noisy = totals + rng.laplace(0.0, 2 * RATINGS[1] / EPSILON, size=len(DEPTS))
    return DEPTS[int(np.argmax(noisy))]


# --- a budget spent twice -----------------------------------------------------------------------------------------
#: Each column summarised and its declared range.
SUMMARISED = {"age": AGES, "salary": (0.0, SALARY_CAP), "rating": RATINGS}


def describe_full_budget_each(data, rng):
    """Bug (a budget spent twice; Cebere et al. 2026, §5): a ``describe()``-like table -- each column's clipped sum
    gets the whole ε, so the three releases compose to 3ε (Dwork & Roth 2014, Thm 3.16)."""
    out = {}
    for column, (low, high) in SUMMARISED.items():
        values = np.clip(np.nan_to_num(data[column].to_numpy(dtype=float), nan=low, posinf=high, neginf=low), low, high)
        out[column] = float(values.sum() + rng.laplace(0.0, high / EPSILON))
    return out


def describe_split_budget(data, rng):
    """The fix: ε/3 per column (sensitivity of a sum clipped to [low, high] ⊂ [0, ∞) under add/remove: high)."""
    out = {}
    share = EPSILON / len(SUMMARISED)
    for column, (low, high) in SUMMARISED.items():
        values = np.clip(np.nan_to_num(data[column].to_numpy(dtype=float), nan=low, posinf=high, neginf=low), low, high)
        out[column] = float(values.sum() + rng.laplace(0.0, high / share))
    return out


# --- a float sum whose real sensitivity exceeds the declared one --------------------------------------------------
def mean_login_time_float32(data, rng):
    """Bug (a float sum whose real sensitivity exceeds the declared one; Casacuberta et al. 2022, §4): the mean
    login time of a day, under replace-one (n public), the timestamps clipped to the day and summed in float32 "to
    save memory".  The declared sensitivity of the sum is the day's length, 86,400 s; but 1,000 timestamps of
    1.7e9 s sum to 1.7e12, where float32's spacing is 2^17 = 131,072 s: replacing one record moves the float32 sum
    by 0 or by a multiple of that spacing (on this data, 131,072 s for about a quarter of the records replaced by
    a day's end: 1.5 times the noise's scale)."""
    stamps = np.nan_to_num(data["login_ts"].to_numpy(dtype=float), nan=DAY_START).astype(np.float32)
    clipped = np.clip(stamps, np.float32(DAY_START), np.float32(DAY_START + DAY))
    total = float(clipped.sum())
    return (total + rng.laplace(0.0, DAY / EPSILON)) / len(data)


def mean_login_time_offset(data, rng):
    """The fix: the public start of the day subtracted first, the offsets in [0, 86,400] clipped and summed in
    float64, whose rounding error over 1,000 such values is below 1e-7 s (Casacuberta et al. 2022, §6: shift
    the data to a small range before summing)."""
    offsets = np.nan_to_num(data["login_ts"].to_numpy(dtype=float) - DAY_START, nan=0.0, posinf=DAY, neginf=0.0)
    total = float(np.clip(offsets, 0.0, DAY).sum())
    return DAY_START + (total + rng.laplace(0.0, DAY / EPSILON)) / len(data)


# --- bounds taken from the data ----------------------------------------------------------------------------------
def salary_mean_percentile_bounds(data, rng):
    """Bug (bounds taken from the data; Cebere et al. 2026, §5): the salaries clipped to their own 1st and 99th
    percentiles, the sum's noise calibrated to the 99th -- the clipping bound and the noise's scale both move with
    the data (one outlier drags the interpolated 99th percentile up by 80 % of its distance: 0.99 × 20 = 19.8)."""
    salary = np.nan_to_num(data["salary"].to_numpy(dtype=float))
    low, high = np.percentile(salary, [1, 99])
    clipped = np.clip(salary, low, high)
    noisy_sum = clipped.sum() + rng.laplace(0.0, 2 * high / EPSILON)
    noisy_count = len(salary) + rng.laplace(0.0, 2.0 / EPSILON)
    return {"sum": float(noisy_sum), "count": float(noisy_count)}


def salary_mean_p95_bounds(data, rng):
    """Bug (bounds taken from the data; Cebere et al. 2026, §5), the milder form: clipped to the 5th and 95th
    percentiles, the sum's noise calibrated to the 95th.  On these 20 salaries one record moves the 95th percentile
    by a tenth of it: an exact finding (a scale that moves refutes a pure claim) that D's own pairs would need
    ~10⁵ releases per world to show; a pair of two of D's records shows it at once (DP quantifies over every
    pair)."""
    salary = np.nan_to_num(data["salary"].to_numpy(dtype=float))
    low, high = np.percentile(salary, [5, 95])
    clipped = np.clip(salary, low, high)
    noisy_sum = clipped.sum() + rng.laplace(0.0, 2 * high / EPSILON)
    noisy_count = len(salary) + rng.laplace(0.0, 2.0 / EPSILON)
    return {"sum": float(noisy_sum), "count": float(noisy_count)}


def salary_mean_public_bounds(data, rng):
    """The fix: public bounds [0, 150,000]; noisy sum (sensitivity 150,000) and noisy count at ε/2 each."""
    salary = np.nan_to_num(data["salary"].to_numpy(dtype=float), nan=0.0, posinf=SALARY_CAP, neginf=0.0)
    clipped = np.clip(salary, 0.0, SALARY_CAP)
    noisy_sum = clipped.sum() + rng.laplace(0.0, 2 * SALARY_CAP / EPSILON)
    noisy_count = len(salary) + rng.laplace(0.0, 2.0 / EPSILON)
    return {"sum": float(noisy_sum), "count": float(noisy_count)}


def age_histogram_data_bins(data, rng):
    """Bug (histogram bins taken from the data; Cebere et al. 2026, §5): ``np.histogram(ages, bins=6)`` spreads
    its six bins over the data's own minimum and maximum -- one outlier moves every edge, and most records move
    to another bin, far beyond the sensitivity 1 the counts' noise is calibrated to."""
    ages = data["age"].to_numpy(dtype=float)
    counts, _ = np.histogram(ages, bins=6)
    return counts + rng.laplace(0.0, 1.0 / EPSILON, size=counts.size)


def age_histogram_fixed_bins(data, rng):
    """The fix: six public bins over the declared age range [18, 70] (ages outside clipped to it), Laplace of scale
    1/ε per count (one record moves one count by 1)."""
    ages = np.clip(np.nan_to_num(data["age"].to_numpy(dtype=float), nan=AGES[0]), *AGES)
    counts, _ = np.histogram(ages, bins=6, range=AGES)
    return counts + rng.laplace(0.0, 1.0 / EPSILON, size=counts.size)


# --- report noisy max and sparse vector variants ------------------------------------------------------------------
def _dept_counts(data):
    depts = data["dept"].to_numpy(dtype=str)
    return np.array([np.count_nonzero(depts == d) for d in DEPTS], dtype=float)


def largest_dept_max_unnoised(data, rng):
    """Bug (report noisy max without noise on the queries; Cebere et al. 2026, §5; cf. Dwork & Roth 2014, §3.3):
    the largest department chosen by ``np.argmax`` of the exact counts, and only its headcount made noisy -- the
    choice itself is exact (removing one "eng" member hands the tie to "ops")."""
    counts = _dept_counts(data)
    winner = int(np.argmax(counts))
    return DEPTS[winner], float(counts[winner] + rng.laplace(0.0, 1.0 / EPSILON))


def largest_dept_noisy_max(data, rng):
    """The fix: report noisy max at ε/2 (counts of sensitivity 1: Laplace of scale 2/ε′ with ε′ = ε/2, Dwork & Roth
    2014, Claim 3.9), then the winner's count with fresh Laplace noise at ε/2."""
    counts = _dept_counts(data)
    winner = int(np.argmax(counts + rng.laplace(0.0, 4.0 / EPSILON, size=counts.size)))
    return DEPTS[winner], float(counts[winner] + rng.laplace(0.0, 2.0 / EPSILON))


def _weekly(data):
    weeks = np.nan_to_num(data["week"].to_numpy(dtype=float), nan=-1.0)
    return np.array([np.count_nonzero(weeks == w) for w in range(len(WEEK_COUNTS))], dtype=float)


def first_busy_week_shared_noise(data, rng):
    """Bug (sparse vector with its query noise drawn once and reused; Lyu, Su & Li 2017, §4, cf. their Alg. 5, which
    adds none): AboveThreshold for the first week with at least 7 incidents, its noise ν drawn once before the loop
    -- every comparison q_i + ν ≥ T + ρ is then q_i ≥ one random threshold, and a week can win only if its count
    exceeds every earlier week's: weeks 0 and 1 tie, so week 1 never wins on D, and wins on D less one week-0
    incident."""
    counts = _weekly(data)
    rho = rng.laplace(0.0, 2.0 / EPSILON)
    nu = rng.laplace(0.0, 4.0 / EPSILON)
    for week, count in enumerate(counts):
        if count + nu >= THRESHOLD + rho:
            return week
    return -1


def first_busy_week(data, rng):
    """The fix: AboveThreshold with ρ ~ Lap(2/ε) and fresh ν_i ~ Lap(4/ε) per query, stopping at the first week
    above (Lyu, Su & Li 2017, Alg. 1 with c = 1: ε-DP)."""
    counts = _weekly(data)
    rho = rng.laplace(0.0, 2.0 / EPSILON)
    for week, count in enumerate(counts):
        if count + rng.laplace(0.0, 4.0 / EPSILON) >= THRESHOLD + rho:
            return week
    return -1


#: The ages at which the release reads the staff's cumulative distribution (public).
CDF_AGES = (25, 30, 35, 40, 45, 50)


def age_cdf_noise_per_point(data, rng):
    """Bug (noise too small for the number of answers; Lyu, Su & Li 2017, §4: the noise must grow with the answers a
    record can move; Dwork & Roth 2014, §3.3): the cumulative distribution of ages at six points, "at most a" for
    each a, each count with Lap(1/ε) -- but one record of age 22 is counted at all six points, so the vector's L1
    sensitivity is 6, not 1: the answers compose to 6ε."""
    ages = np.nan_to_num(data["age"].to_numpy(dtype=float), nan=np.inf)
    counts = np.array([np.count_nonzero(ages <= a) for a in CDF_AGES], dtype=float)
    return counts + rng.laplace(0.0, 1.0 / EPSILON, size=counts.size)


def age_cdf(data, rng):
    """The fix: Laplace of scale 6/ε per point (L1 sensitivity 6, Dwork & Roth 2014, Thm 3.6)."""
    ages = np.nan_to_num(data["age"].to_numpy(dtype=float), nan=np.inf)
    counts = np.array([np.count_nonzero(ages <= a) for a in CDF_AGES], dtype=float)
    return counts + rng.laplace(0.0, len(CDF_AGES) / EPSILON, size=counts.size)


#: The sparse vector's number of positive answers.
ANSWERS = 3


def busy_weeks(data, rng):
    """Sparse vector with up to three positive answers, ε₁ = ε₂ = ε/2, ρ ~ Lap(Δ/ε₁), ν_i ~ Lap(2cΔ/ε₂) with c = 3
    (Lyu, Su & Li 2017, Alg. 1, Thm 2): a correct program (a twin without a bug beside it), its ⊤/⊥ vector
    released."""
    counts = _weekly(data)
    rho = rng.laplace(0.0, 2.0 / EPSILON)
    answers, positives = np.zeros(len(counts)), 0
    for week, count in enumerate(counts):
        if count + rng.laplace(0.0, 4.0 * ANSWERS / EPSILON) >= THRESHOLD + rho:
            answers[week], positives = 1.0, positives + 1
            if positives == ANSWERS:
                break
    return answers


# --- an accountant's neighbour relation that differs from the deployment's ---------------------------------------
def product_counts_add_remove_accounting(data, rng):
    """Bug (a neighbour relation in the accounting that differs from the deployment's; Casacuberta et al. 2022,
    §4; Cebere et al. 2026, §5): review counts per product, deployed under replace-one (a review's product may be
    changed) but accounted as add/remove -- one changed review moves two counts by 1, an L1 sensitivity of 2 where
    Lap(1/ε) was calibrated for 1."""
    products = data["product"].to_numpy(dtype=str)
    counts = np.array([np.count_nonzero(products == p) for p in PRODUCTS], dtype=float)
    sensitivity = 1.0  # one review added or removed
    return counts + rng.laplace(0.0, sensitivity / EPSILON, size=counts.size)


def product_counts_replace_one(data, rng):
    """The fix: the sensitivity of the counts under replace-one, 2 (one review leaves a product, joins another)."""
    products = data["product"].to_numpy(dtype=str)
    counts = np.array([np.count_nonzero(products == p) for p in PRODUCTS], dtype=float)
    return counts + rng.laplace(0.0, 2.0 / EPSILON, size=counts.size)


def opendp_sentiment_add_remove(data, rng):
    """Bug (the same relation bug through OpenDP; Casacuberta et al. 2022, §4): per-product sentiment totals, each
    review's sentiment clipped to [-1, 1], released by OpenDP's vector Laplace measurement whose scale is read off
    its privacy map at the add/remove distance 1 (``make_laplace`` over an L1 distance) -- in a replace-one
    deployment, where one changed review moves the totals by up to 2 in L1."""
    from opendp import prelude as dp

    dp.enable_features("contrib")
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float))
    scale = 1.0 / EPSILON  # map(1) = 1/scale = ε
    measurement = dp.m.make_laplace(*space, scale=scale)
    return np.asarray(measurement(_sentiment_totals(data)))


def opendp_sentiment_replace_one(data, rng):
    """The fix: the scale read off the map at the replace-one distance 2 (``map(2) = 2/scale = ε``)."""
    from opendp import prelude as dp

    dp.enable_features("contrib")
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float))
    measurement = dp.m.make_laplace(*space, scale=2.0 / EPSILON)
    return np.asarray(measurement(_sentiment_totals(data)))


def _sentiment_totals(data) -> list:
    products = data["product"].to_numpy(dtype=str)
    sentiment = np.clip(np.nan_to_num(data["sentiment"].to_numpy(dtype=float)), -1.0, 1.0)
    return [float(sentiment[products == p].sum()) for p in PRODUCTS]


def diffprivlib_mean_no_bounds(data, rng):
    """Bug (bounds taken from the data, through diffprivlib; Cebere et al. 2026, §5): ``diffprivlib.tools.mean``
    called without ``bounds`` takes them from the data's own minimum and maximum (it warns with a
    PrivacyLeakWarning, which pipelines silence) -- the clipping range and the noise's sensitivity move with one
    record."""
    import warnings

    from diffprivlib import tools

    salary = np.nan_to_num(data["salary"].to_numpy(dtype=float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(tools.mean(salary, epsilon=EPSILON, random_state=int(rng.integers(2**31))))


def diffprivlib_mean_bounds(data, rng):
    """The fix: the declared bounds [0, 150,000] passed, NaN and ±inf mapped into them (n public: deployed, like
    the bug, under replace-one, where diffprivlib's sensitivity (upper − lower)/n holds)."""
    from diffprivlib import tools

    salary = np.nan_to_num(data["salary"].to_numpy(dtype=float), nan=0.0, posinf=SALARY_CAP, neginf=0.0)
    return float(tools.mean(salary, epsilon=EPSILON, bounds=(0.0, SALARY_CAP), random_state=int(rng.integers(2**31))))


# --- noise drawn by hand ------------------------------------------------------------------------------------------
def _laplace_by_hand(rng, scale):
    """A Laplace draw by the inverse of its CDF from one uniform draw, as hand-rolled DP code writes it."""
    u = rng.uniform(-0.5, 0.5)
    return -scale * np.sign(u) * np.log(1 - 2 * abs(u))


def ratings_total_by_hand_unit_scale(data, rng):
    """Bug (noise calibrated for a sensitivity the data do not have; Cebere et al. 2026, §5), with Laplace noise
    drawn by hand from a uniform: ratings in [0, 5] move the total by up to 5, the noise's scale is 1/ε -- the
    release is 5ε-DP.  The uniform draw is not a location family the composition reads: the black box decides."""
    ratings = np.clip(np.nan_to_num(data["rating"].to_numpy(dtype=float)), 0.0, 5.0)
    return float(ratings.sum() + _laplace_by_hand(rng, 1.0 / EPSILON))


def ratings_total_by_hand(data, rng):
    """The fix: the hand-drawn Laplace noise at scale 5/ε."""
    ratings = np.clip(np.nan_to_num(data["rating"].to_numpy(dtype=float)), 0.0, 5.0)
    return float(ratings.sum() + _laplace_by_hand(rng, 5.0 / EPSILON))


# --- the libraries' own pipelines, called as their documentation does (issue 71) --------------------------------
#: Six reviews' products (the category set is :data:`PRODUCTS`: "pack" has no review here).
PRODUCT_REVIEWS = pd.DataFrame({"product": ["tent", "stove", "lamp", "tent", "stove", "tent"]})
#: Eight scores in [0, 1] (public bounds), none at either end.
SCORES = pd.DataFrame({"score": [0.1, 0.4, 0.35, 0.8, 0.62, 0.2, 0.55, 0.9]})


def _product_counts(scale: float):
    """OpenDP's counts by category over a vector of strings, then its Laplace noise (``make_count_by_categories >>
    then_laplace``, as OpenDP's documentation chains them); the counts' L1 map at d_in is d_in/scale."""
    from opendp import prelude as dp

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
    return dp.t.make_count_by_categories(*space, categories=list(PRODUCTS)) >> dp.m.then_laplace(scale)


def opendp_product_counts_add_remove(data, rng):
    """Bug (a neighbour relation in the accounting that differs from the deployment's; Casacuberta et al. 2022, §4),
    over categorical data through OpenDP: review counts by product, the scale read off the map at the add/remove
    distance 1 (``map(1) = 1/scale = ε``), deployed under replace-one -- a changed review is at symmetric distance 2,
    moving two counts by 1: 2ε."""
    return _product_counts(1.0 / EPSILON)(data["product"].astype(str).tolist())


def opendp_product_counts_replace_one(data, rng):
    """The fix: the scale read off the map at the replace-one distance 2 (``map(2) = 2/scale = ε``)."""
    return _product_counts(2.0 / EPSILON)(data["product"].astype(str).tolist())


def diffprivlib_score_mean_no_bounds(data, rng):
    """Bug (bounds taken from the data, through diffprivlib; Cebere et al. 2026, §5): ``tools.mean(x, epsilon=1)``
    as diffprivlib's documentation calls it, without ``bounds``: it takes them from the data's minimum and maximum
    (with a PrivacyLeakWarning) -- its truncation range and sensitivity move with one record."""
    from diffprivlib import tools

    return float(tools.mean(data["score"].to_numpy(dtype=float), epsilon=EPSILON))


# --- OpenDP chains built at the module's import, before any recording -----------------------------------------------
#: The counts chain of :func:`_product_counts` at the scales 1/ε and 2/ε, built as this module is imported where
#: OpenDP is installed (None where it is not): a program that calls a chain made at import, sent to the audit's fresh
#: process by its name (a closure holding the chain cannot be pickled: OpenDP's objects hold ctypes pointers).
CHAINS_AT_IMPORT = (
    {scale: _product_counts(scale / EPSILON) for scale in (1.0, 2.0)} if find_spec("opendp") is not None else None
)


def opendp_counts_of_a_chain_made_at_import(data, rng):
    """Bug: the chain of scale 1/ε, its map read at the replace-one distance 2 (pure ε 2)."""
    return CHAINS_AT_IMPORT[1.0](data["product"].astype(str).tolist())


def opendp_counts_of_a_chain_made_at_import_fixed(data, rng):
    """The twin: the chain of scale 2/ε (pure ε 1 at distance 2)."""
    return CHAINS_AT_IMPORT[2.0](data["product"].astype(str).tolist())

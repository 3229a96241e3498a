"""The shipped data sets' arrays kept in a file (``verify/inputs/shipped_store.py``): scikit-learn's arrays bit for bit,
read without importing scikit-learn once stored; a damaged, foreign or other versions' file is a miss."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from pdp_audit.verify.inputs import datasets, shipped_store


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "pdp-audit"


def loader_of(name: str) -> str:
    return "load_" + name.replace("-", "_")


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.flags.c_contiguous and a.tobytes() == b.tobytes()


def no_loader(monkeypatch):
    def refused(loader_name):
        raise AssertionError(f"{loader_name} was called: the store missed")

    monkeypatch.setattr(datasets, "_sklearn_arrays", refused)


@pytest.mark.parametrize("name", sorted(datasets.SHIPPED))
def test_a_shipped_data_set_is_scikit_learns_bit_for_bit_from_the_loader_and_from_the_store(name, store, monkeypatch):
    features, target, names = datasets._sklearn_arrays(loader_of(name))
    cold = datasets.load_shipped(name)
    assert [p.name.rsplit("-", 1)[0] for p in store.iterdir()] == [loader_of(name)]
    no_loader(monkeypatch)
    warm = datasets.load_shipped(name)
    for dataset in (cold, warm):
        assert same(dataset.features, features) and same(dataset.target, target) and dataset.columns == names
        assert dataset.name == name and dataset.description == cold.description


def test_a_fresh_process_reading_a_stored_data_set_imports_no_scikit_learn(store, monkeypatch):
    """What the store is for: a command on the default data imports neither scikit-learn nor pandas."""
    datasets.load_shipped("diabetes")
    code = (
        "import sys\nfrom pdp_audit.verify.inputs.datasets import load_shipped\nload_shipped('diabetes')\n"
        "print(sorted(m for m in ('sklearn', 'pandas') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.split("\n")[-2] == "[]", done


def stored_file(store) -> "object":
    datasets.load_shipped("wine")
    (path,) = store.iterdir()
    return path


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # a disk fault (the rename leaves no half-written file)
        lambda data: b"",
        lambda data: b"not an array at all",
    ],
    ids=["truncated", "empty", "garbage"],
)
def test_a_damaged_or_foreign_file_is_a_miss_and_is_stored_again(store, damage, monkeypatch):
    path = stored_file(store)
    good = path.read_bytes()
    path.write_bytes(damage(good))
    assert same(datasets.load_shipped("wine").features, datasets._sklearn_arrays("load_wine")[0])
    assert path.read_bytes() == good


def test_a_file_of_other_versions_under_the_name_is_a_miss(store):
    """The key inside the file decides, not its name: arrays stored for other versions are not read."""
    path = stored_file(store)
    good = path.read_bytes()
    features, target, names = datasets._sklearn_arrays("load_wine")
    path.unlink()
    shipped_store._write(path, "load_wine scikit-learn 0.0 numpy 0.0", (features + 1.0, target, names))
    assert same(datasets.load_shipped("wine").features, features)
    assert path.read_bytes() == good


def test_a_file_holding_a_pickled_object_is_refused_not_unpickled(store):
    path = stored_file(store)
    with open(path, "wb") as file:
        np.save(file, np.array([{"pickled": True}], dtype=object), allow_pickle=True)
    assert datasets.load_shipped("wine").columns == datasets._sklearn_arrays("load_wine")[2]


def test_a_write_keeps_the_last_files_of_other_versions_and_removes_older_ones(store):
    path = stored_file(store)
    older = [store / f"load_wine-{i:016x}.npy" for i in range(shipped_store.OTHERS_KEPT + 2)]  # other versions'
    for age, other in enumerate(older):
        other.write_bytes(path.read_bytes())
        os.utime(other, (1e9 - age, 1e9 - age))  # older[0] the last written
    store.joinpath("load_diabetes-0123456789abcdef.npy").write_bytes(b"another data set's file")
    path.unlink()
    datasets.load_shipped("wine")
    kept = [path.name, "load_diabetes-0123456789abcdef.npy", *(o.name for o in older[: shipped_store.OTHERS_KEPT])]
    assert sorted(p.name for p in store.iterdir()) == sorted(kept)


def test_a_store_that_cannot_be_written_leaves_the_loaders_arrays(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("a file where the cache folder would be\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    assert same(datasets.load_shipped("diabetes").features, datasets._sklearn_arrays("load_diabetes")[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_arrays_of_another_layout_are_not_stored(store):
    """A file gives back C-ordered arrays; numpy may reduce a Fortran-ordered one in another order (other bits)."""
    fortran = (np.asfortranarray(np.arange(6.0).reshape(3, 2)), np.zeros(3), ("a", "b"))
    assert shipped_store.load("load_fortran", lambda: fortran) is fortran
    assert not store.exists() or not any(store.iterdir())


def test_the_regression_data_sets_of_scikit_learn_come_from_the_store_bit_for_bit(store, monkeypatch):
    """linreg's diabetes shares the shipped data set's file (the same arrays); linnerud's target is a column of a
    two-dimensional array, not C-ordered, so it is read from scikit-learn each time (the same bits as before)."""
    import sklearn.datasets as skd

    from pdp_audit.mechanisms.linreg.data import REGRESSION_DATASETS

    bunch = skd.load_diabetes()
    features, target = REGRESSION_DATASETS["diabetes"]()
    assert same(features, np.asarray(bunch.data, float)) and same(target, np.asarray(bunch.target, float))
    assert [p.name.rsplit("-", 1)[0] for p in store.iterdir()] == ["load_diabetes"]
    monkeypatch.setattr(skd, "load_diabetes", None)  # a second read cannot call scikit-learn
    again = REGRESSION_DATASETS["diabetes"]()
    assert same(again[0], features) and same(again[1], target)
    features, weight = REGRESSION_DATASETS["linnerud"]()
    expected = skd.load_linnerud()
    assert features.tobytes() == np.asarray(expected.data, float).tobytes()
    assert np.array_equal(weight, expected.target[:, 0]) and len(list(store.iterdir())) == 1

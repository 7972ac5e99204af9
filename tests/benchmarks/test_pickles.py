"""The restricted unpickler: builtin data loads, anything needing a class lookup or a corrupt file is refused."""

from __future__ import annotations

import datetime
import os
import pickle

import pytest

from coherence_metric.errors import InputError
from coherence_metric.research.datasets.paradigm import read_pair_pickle
from coherence_metric.research.pickles import load_pickle


class _Record:
    """A class instance, which a test-set pickle must never hold."""

    def __init__(self) -> None:
        self.pos = ["A."]


class _RunsCode:
    """Unpickling this would call os.getcwd: the shape of every pickle exploit."""

    def __reduce__(self):
        return (os.getcwd, ())


def test_builtin_data_loads(tmp_path):
    data = [{"pos": ["A.", "B."], "neg": ["B.", "A."], "doc_id": 3, "score": 1.5, "flags": (True, None)}]
    path = tmp_path / "ok.pkl"
    path.write_bytes(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
    assert load_pickle(path) == data


@pytest.mark.parametrize(
    "payload", [_Record(), _RunsCode(), datetime.date(2022, 4, 6)], ids=["instance", "reduce", "date"]
)
def test_class_lookup_is_refused_and_names_the_file(tmp_path, payload):
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps([{"pos": ["A."], "neg": ["B."], "x": payload}]))
    with pytest.raises(InputError, match="evil.pkl"):
        load_pickle(path)


def test_corrupt_and_missing_files_raise_input_error(tmp_path):
    path = tmp_path / "truncated.pkl"
    path.write_bytes(pickle.dumps([{"pos": ["A."] * 50}])[:20])
    with pytest.raises(InputError, match="truncated.pkl"):
        load_pickle(path)
    with pytest.raises(InputError, match="absent.pkl"):
        load_pickle(tmp_path / "absent.pkl")


def test_pair_pickle_without_neg_is_refused(tmp_path):
    path = tmp_path / "pairs.pkl"
    path.write_bytes(pickle.dumps([{"pos": ["A."], "doc_id": "0"}]))
    with pytest.raises(InputError, match="pairs.pkl: item 0"):
        read_pair_pickle(path)

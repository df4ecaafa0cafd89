"""Issue 28, crashes: a record given from Python is read with strong references (src/python/python_json.h).

A Mapping whose items() empties the list around it freed what the core was still reading (a SIGSEGV). Each
call that takes records from Python is made in a child Python of its own, on the extension this build staged,
so that a crash is seen as what it is (a death by a signal), and its answer is compared with the answer for
the same structure made of plain dicts and lists: what was read is what the caller gave when the call began.
"""
import json
import subprocess
import sys

import pytest

from conftest import BUILD

SCRIPT = r'''
import gc, json, sys
from collections.abc import Mapping
sys.path.insert(0, sys.argv[1])
import nnx.export_conformance as ec
from nnx import _checking


class EmptiesItsList(Mapping):
    """A Mapping of one pair whose items() clears the list holding it (and gives `pairs`)."""
    def __init__(self, pairs):
        self.victim, self.pairs = None, pairs
    def __getitem__(self, key):
        return dict(self.pairs)[key]
    def __iter__(self):
        return iter(dict(self.pairs))
    def __len__(self):
        return len(self.pairs)
    def items(self):
        if self.victim is not None:
            self.victim.clear()
            gc.collect()
        return self.pairs


def filler(n):  # items the list alone holds: clearing it frees them
    return [{"name": "x" * 64 + str(i), "values": [i, i + 0.5, None, True]} for i in range(n)]


def structure(hostile, pairs):
    first = EmptiesItsList(pairs) if hostile else dict(pairs)
    items = [first] + filler(2000)
    if hostile:
        first.victim = items
    return items


def answer(call):
    try:
        return {"returned": call()}
    except Exception as e:  # the class and the words are the answer
        return {"raised": type(e).__name__, "message": str(e)}


CALLS = {
    "validate_record": lambda s: ec.validate_record({"format": "nnx.export-conformance/1", "profiles": s}),
    "verify_artifacts": lambda s: ec.verify_artifacts({"artifacts": {"files": s}}, sys.argv[3]),
    "validate_records": lambda s: _checking.validate_records(s),
    "verify_artifacts_many": lambda s: _checking.verify_artifacts_many(s, sys.argv[3]),
}
pairs = json.loads(sys.argv[4])
print(json.dumps([answer(lambda: CALLS[sys.argv[2]](structure(hostile, [tuple(p) if len(p) == 2 else p for p in pairs])))
                  for hostile in (True, False)]))
'''

CALLS = ["validate_record", "verify_artifacts", "validate_records", "verify_artifacts_many"]
PAIR = [["profile", "emptied"]]


def run_child(call, tmp_path, pairs):
    script = tmp_path / "hostile_mapping.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script), str(BUILD / "python"), call, str(tmp_path), json.dumps(pairs)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"the child ended with {done.returncode} (a negative code is a signal): {done.stderr}"
    return json.loads(done.stdout)


@pytest.mark.parametrize("call", CALLS)
def test_a_mapping_that_empties_its_list_is_read_as_it_was_given(call, tmp_path):
    hostile, plain = run_child(call, tmp_path, PAIR)
    assert hostile == plain
    if "raised" in plain:  # a record of junk: refused with the core's words, never a crash
        assert plain["raised"] == "ConformanceError" and plain["message"]
    else:
        assert plain["returned"] and all(problems for problems in plain["returned"])


@pytest.mark.parametrize("call", ["validate_record", "validate_records"])
def test_a_mapping_whose_items_are_not_pairs_is_refused_by_name(call, tmp_path):
    hostile, _ = run_child(call, tmp_path, [["profile", "emptied", "third"]])
    assert hostile["raised"] == "ConformanceError"
    assert "is not strict JSON: the items() of a EmptiesItsList gave a non-pair" in hostile["message"]

"""Every exporter failure shows the exporter's whole message and advice (issue "Every model users bring"): a
module record's export-error keeps a message of about 11 000 characters whole, its advice to the end (cut
only past 64 KiB, doc/record-format.md §10)."""
import json

from conftest import REPO, run_cli
from module_support import write_profiles
from support import records_by_profile

FACTORY = f"{REPO / 'tests' / 'models' / 'long_export_message.py'}:long_export_message"


def test_an_exporters_long_message_is_kept_whole_with_its_advice(tmp_path):
    profiles = [{"name": "long-message", "exporter": "torchscript", "module": FACTORY,
                 "inputs": [{"name": "x", "shape": [2, 8], "dtype": "float32"}], "opset": 18}]
    run_cli("run", "--profile-file", write_profiles(tmp_path / "profiles.json", profiles),
            "--output", tmp_path / "report.json", timeout=600)
    record = records_by_profile(json.loads((tmp_path / "report.json").read_text()))["long-message"]
    error = record["stages"]["export"]["detail"]["error"]
    assert record["failure"] == "export-error" and len(error) > 10000, error[-200:]
    assert error.rstrip().endswith("END OF ADVICE") and "register a pytree" in error, error[-200:]

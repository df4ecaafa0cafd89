# One minute with Python (README.md): run a tested profile, verify its files, execute it again.
from nnx.export_conformance import execute, run_profile, summary_lines, verify_artifacts

record = run_profile("feedfwd-fp32-torchscript", "try/py/", force=True)  # a JSON-ready dict
print(record["status"], record["level"], record["stages"]["parity"]["detail"]["reference"])
verify_artifacts(record, "try/py/")  # None, or ConformanceError naming every problem
again = execute(record, "try/py/")  # hashes first, then load + parity (the same warm worker)
print("\n".join(summary_lines([record, again])))

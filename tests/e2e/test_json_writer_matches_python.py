"""The C++ JSON writer (src/json_python.cc) reproduces Python's json.dumps byte for byte.

Each test builds values in Python, writes them to a file, runs the tool
`nnx_json_roundtrip canonical|pretty FILE` (tests/tools/nnx_json_roundtrip.cc: strict parse, then
dumps_canonical / dumps_pretty) and compares its output with
  json.dumps(value, sort_keys=True, separators=(", ", ": "))   (canonical)
  json.dumps(value, sort_keys=True, indent=2)                   (pretty)
The tool is found in $NNX_BUILD_DIR (default: <repo>/build). Only the standard library is needed.
"""

import json
import math
import random
import struct
import subprocess

import pytest

from conftest import BUILD
from support import built_tool

TOOL = BUILD / "nnx_json_roundtrip"

MODES = {
    "canonical": lambda v: json.dumps(v, sort_keys=True, separators=(", ", ": ")),
    "pretty": lambda v: json.dumps(v, sort_keys=True, indent=2),
}

# How the input file is written: the parser must not care.
INPUT_STYLES = {
    "ascii": lambda v: json.dumps(v).encode("ascii"),
    "utf8-indented": lambda v: json.dumps(v, ensure_ascii=False, indent=3).encode("utf-8"),
    "utf8-compact": lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
}

CASES = {
    "null": None,
    "true": True,
    "false": False,
    "zero": 0,
    "negative-int": -17,
    "int-vs-float": [17, 17.0, 1, 1.0, True],
    "int64-extremes": [-(2**63), 2**63 - 1],
    "uint64-extremes": [2**63, 2**64 - 1],
    "2**53+1": 2**53 + 1,
    "float-0.1": 0.1,
    "float-1e-05": 1e-05,
    "float-1e16": 1e16,
    "negative-zero": -0.0,
    "smallest-subnormal": 5e-324,
    "float-magnitudes": [0.0001, 0.00012, 1e-4 * 0.99, 123.0, 1234567890123456.0, 12345678901234567.0,
                         1.5e-07, 1.7976931348623157e308, 2.2250738585072014e-308, 1e22, 1e-300, 2.0**53,
                         2.0**63, 2.0**64, 0.1 + 0.2, 1 / 3, -2.5, 100.0],
    "empty-string": "",
    "ascii-escapes": "quote\" backslash\\ slash/ \b\f\n\r\t \x00\x01\x1f \x7f ~",
    "unicode": "é ß 日本語 € \u2028 \ufeff \uffff",
    "astral": "😀 𝄞 \U0010ffff",
    "empty-containers": [[], {}, [[]], {"a": {}}],
    "unicode-keys": {"b": 1, "a": 2, "B": 3, "é": 4, "\uffff": 5, "😀": 6, "": 7, "aa": 8, "a b": 9},
    "nested": {"z": [1, {"y": [2, {"x": [3, None, "s"]}]}], "a": {"b": {"c": {"d": [[[[]]]]}}}},
    "settings-like": {
        "tolerances": {"rtol": 1e-4, "atol": 1e-5},
        "exporter options": {"opset_version": 17, "dynamic_batch": True, "input_names": ["features"]},
        "model config": {"dropout": 0.0, "hidden_dims": [8], "weights": {"std": 0.5, "seed": 0}},
    },
}


def run_tool(mode, path):
    return subprocess.run([str(TOOL), mode, str(path)], capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def tool():
    return built_tool(TOOL)


def assert_matches_python(tool, value, tmp_path, style="ascii", name="value.json"):
    path = tmp_path / name
    path.write_bytes(INPUT_STYLES[style](value))
    for mode, dumps in MODES.items():
        done = run_tool(mode, path)
        assert done.returncode == 0, f"{mode}: tool refused: {done.stderr.decode(errors='replace')}"
        expected = (dumps(value) + "\n").encode("ascii")
        assert done.stdout == expected, f"{mode} differs"


@pytest.mark.parametrize("style", sorted(INPUT_STYLES))
@pytest.mark.parametrize("case", sorted(CASES))
def test_value_matches_json_dumps(tool, tmp_path, case, style):
    assert_matches_python(tool, CASES[case], tmp_path, style)


def float_samples():
    values = []
    for exponent in range(-324, 309):
        for mantissa in (1.0, 1.5, 2.0, 3.0, 9.999999999999999, 1.2345678901234567, 7.0 / 3.0):
            value = float(f"{mantissa!r}e{exponent}")  # inf past the top: skipped
            if math.isfinite(value):
                values.append(value)
                values.append(-value)
    # The notation switches at 1e-4 and 1e16: the doubles on either side.
    for edge in (1e-4, 1e-5, 1e16, 1e15, 1e17):
        below, above = edge, edge
        for _ in range(3):
            below, above = math.nextafter(below, 0.0), math.nextafter(above, math.inf)
            values += [below, above]
    rng = random.Random(20240229)
    while len(values) < 60000:
        (value,) = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))
        if math.isfinite(value):
            values.append(value)
    values += [rng.random() for _ in range(5000)]
    values += [rng.uniform(-1e6, 1e6) for _ in range(5000)]
    values += [float(rng.randrange(-(2**60), 2**60)) for _ in range(2000)]
    values += [0.0, -0.0, 5e-324, -5e-324, 1.7976931348623157e308, 2.2250738585072014e-308,
               2.225073858507201e-308]
    return values


def test_floats_of_every_magnitude_match_repr(tool, tmp_path):
    values = float_samples()
    path = tmp_path / "floats.json"
    path.write_text(json.dumps(values))
    done = run_tool("canonical", path)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    produced = done.stdout.decode("ascii").rstrip("\n")
    assert produced.startswith("[") and produced.endswith("]")
    got = produced[1:-1].split(", ")
    assert len(got) == len(values)
    mismatches = [(repr(v), g) for v, g in zip(values, got) if json.dumps(v) != g]
    assert not mismatches, f"{len(mismatches)} floats differ, e.g. {mismatches[:5]}"


def random_value(rng, depth=0):
    kinds = ["int", "big", "float", "str", "bool", "null"] + (["list", "dict"] * 2 if depth < 6 else [])
    kind = rng.choice(kinds)
    if kind == "int":
        return rng.randint(-1000, 1000)
    if kind == "big":
        return rng.choice([rng.randint(-(2**63), 2**64 - 1), 2**53 + 1, -(2**53) - 1])
    if kind == "float":
        scaled = rng.uniform(-1e20, 1e20) * 10.0 ** rng.randint(-30, 30)
        return rng.choice([rng.uniform(-1, 1), scaled, -0.0, 0.0])
    if kind == "str":
        alphabet = "aZ09 \"\\/\n\t\x00\x1f\x7fé€日😀\U0010ffff\u2028"
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "list":
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    def key():
        return "".join(rng.choice("abBé\uffff😀 ") for _ in range(rng.randint(0, 4)))

    keys = [key() for _ in range(rng.randint(0, 5))]
    return {key: random_value(rng, depth + 1) for key in keys}


@pytest.mark.parametrize("style", sorted(INPUT_STYLES))
def test_random_nested_values_match_json_dumps(tool, tmp_path, style):
    rng = random.Random(7)
    values = [random_value(rng) for _ in range(300)]
    assert_matches_python(tool, values, tmp_path, style)


def test_deepest_accepted_nesting_matches_json_dumps(tool, tmp_path):
    value = []
    for _ in range(127):
        value = [value, {"k": 1.5}]
    assert_matches_python(tool, value, tmp_path)


@pytest.mark.parametrize(
    "text, named",
    [
        ("[1, NaN]", "NaN"),
        ("Infinity", "Infinity"),
        ("[18446744073709551616]", "18446744073709551616"),
        ("[-9223372036854775809]", "-9223372036854775809"),
        ('{"a": 1, "a": 2}', '"a"'),
        ("[1e999]", "1e999"),
        ('"\\ud800"', "surrogate"),
        ("{} {}", "end of input"),
        ("[" * 129 + "]" * 129, "nesting"),
    ],
)
def test_tool_refuses_non_strict_json_naming_the_problem(tool, tmp_path, text, named):
    path = tmp_path / "bad.json"
    path.write_text(text)
    done = run_tool("canonical", path)
    assert done.returncode == 1
    assert done.stdout == b""
    message = done.stderr.decode("ascii")
    assert named in message and "byte offset" in message, message


def test_tool_refuses_invalid_utf8(tool, tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'["\xc0\x80"]')
    done = run_tool("pretty", path)
    assert done.returncode == 1
    assert "UTF-8" in done.stderr.decode("ascii")


def test_tool_usage_error(tool):
    done = subprocess.run([str(tool), "compact"], capture_output=True, timeout=60)
    assert done.returncode == 2
    assert b"usage" in done.stderr

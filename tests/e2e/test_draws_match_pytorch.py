"""nnx::TorchGenerator (src/torch_random.cc) draws exactly what PyTorch draws (record-format §2).

For each seed and each sequence of sizes, ONE torch.Generator().manual_seed(seed) draws
torch.randn(n, generator=g) (float32) for every n in order, and the tool `nnx_draws SEED N1 N2 ...`
(tests/tools/nnx_draws.cc: one nnx::TorchGenerator, same sequence) must print the same float32 bit
patterns. Sequences cover sizes 1..70 on fresh generators and on one generator, mixes of small odd draws
(which leave a cached Box-Muller value in the generator) with large ones (>= 16, the blocked/vector path
with its recomputed tail), the spec's own weight and input draws, and a few very large draws.

torch picks its CPU kernel from ATEN_CPU_CAPABILITY (read once per process) and the CPU: the whole
comparison is repeated with the variable unset, set to default / avx2 / avx512, and set to an invalid value
(torch ignores it), each time in a fresh torch subprocess and with the same environment for the tool.

The tool is found in $NNX_BUILD_DIR (default: <repo>/build). Needs torch (the project's .venv has it).
"""

import json
import os
import random
import subprocess
import sys
import textwrap

import pytest

from conftest import BUILD
from support import built_tool

TOOL = BUILD / "nnx_draws"

_rng = random.Random(20250611)
SEEDS = ([0, 1, 7] + list(range(1001, 1008)) + [2000, 2**32 + 5, 2**63 - 1]
         + [_rng.randrange(2**63) for _ in range(6)] + [_rng.randrange(2**32) for _ in range(3)])

MIXED_SEQUENCES = [
    [32, 8, 16, 2],             # the spec's model: layers.0.weight, .bias, layers.1.weight, .bias
    [3, 5, 17, 1, 1],
    [15, 16, 31, 33],
    [1, 16, 1],                 # a cached value survives a large draw
    [3, 0, 1, 0, 64, 5, 2],     # empty draws change nothing
    [7, 7, 7, 48, 9, 9],
    [17, 3, 47, 1, 15, 65, 13],
    [4096, 7, 1003, 1],
]

# (seed, sizes) for every seed: sizes 1..70 on one generator, and the mixed sequences.
SEQUENCE_CASES = [(seed, list(range(1, 71))) for seed in SEEDS] + [
    (seed, seq) for seed in SEEDS for seq in MIXED_SEQUENCES
]
# Sizes 1..70, each on a fresh generator, for the seeds the spec uses.
FRESH_CASES = [(seed, [n]) for seed in [0, 7, 1001, 1002, 1003, 1007, 2000] for n in range(1, 71)]
# The spec's inputs (seed 1000+b, [b, 4]; refusal case seed 2000, [3, 5]; export example seed 7, [2, 4]),
# odd large batch widths, and a few very large draws.
EXTRA_CASES = [
    (1001, [4]), (1002, [8]), (1003, [12]), (1007, [28]), (2000, [15]), (7, [8]),
    (1065537, [65537 * 4]),
    (3, [1_000_003]),
    (2**63 - 1, [2**20, 3, 2**20 + 1]),
]
ALL_CASES = SEQUENCE_CASES + FRESH_CASES + EXTRA_CASES

# Environment variants: None = ATEN_CPU_CAPABILITY unset.
CAPABILITIES = [None, "default", "avx2", "avx512", "not-a-capability"]

_TORCH_SCRIPT = textwrap.dedent(
    """
    import json, sys, warnings
    warnings.simplefilter("ignore")
    import torch
    cases = json.load(sys.stdin)
    out = []
    for seed, sizes in cases:
        g = torch.Generator().manual_seed(seed)
        lines = []
        for n in sizes:
            t = torch.randn(n, generator=g, dtype=torch.float32)
            lines.append(" ".join("%08x" % (v & 0xFFFFFFFF) for v in t.view(torch.int32).tolist()))
        out.append(lines)
    json.dump({"torch": torch.__version__,
               "capability": torch.backends.cpu.get_cpu_capability(),
               "draws": out}, sys.stdout)
    """
)


def _env(capability):
    env = dict(os.environ)
    env.pop("ATEN_CPU_CAPABILITY", None)
    if capability is not None:
        env["ATEN_CPU_CAPABILITY"] = capability
    return env


def _torch_draws(capability, cases):
    proc = subprocess.run([sys.executable, "-c", _TORCH_SCRIPT], input=json.dumps(cases), capture_output=True,
                          text=True, env=_env(capability), check=False)
    if proc.returncode != 0:
        pytest.fail(f"torch subprocess failed (ATEN_CPU_CAPABILITY={capability}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)


def _tool_draws(capability, seed, sizes):
    proc = subprocess.run([str(TOOL), str(seed)] + [str(n) for n in sizes], capture_output=True, text=True,
                          env=_env(capability), check=False)
    assert proc.returncode == 0, f"nnx_draws {seed} {sizes} failed: {proc.stderr}"
    lines = proc.stdout.split("\n")
    assert lines[-1] == "" and len(lines) == len(sizes) + 1, f"nnx_draws printed {len(lines) - 1} lines"
    return lines[:-1], proc.stderr


@pytest.fixture(scope="module")
def tool():
    return built_tool(TOOL)


def _first_difference(expected, got):
    for i, (a, b) in enumerate(zip(expected, got)):
        if a != b:
            return f"first difference at index {i}: torch {a}, nnx {b}"
    return f"lengths differ: torch {len(expected)}, nnx {len(got)}"


@pytest.mark.parametrize("capability", CAPABILITIES, ids=lambda c: "unset" if c is None else c)
def test_draws_match_torch_bit_for_bit(tool, capability):
    reference = _torch_draws(capability, ALL_CASES)
    assert reference["torch"].startswith("2.13.0"), f"compared against torch {reference['torch']}"
    compared = 0
    failures = []
    for (seed, sizes), expected_lines in zip(ALL_CASES, reference["draws"]):
        got_lines, _ = _tool_draws(capability, seed, sizes)
        for k, (n, expected, got) in enumerate(zip(sizes, expected_lines, got_lines)):
            expected_values = expected.split()
            got_values = got.split()
            assert len(expected_values) == n
            compared += n
            if expected_values != got_values:
                failures.append(f"seed {seed} sizes {sizes} draw #{k} (n={n}): "
                                + _first_difference(expected_values, got_values))
    assert not failures, f"{len(failures)} draws differ (torch capability {reference['capability']}):\n" + \
        "\n".join(failures[:20])
    assert compared == sum(sum(sizes) for _, sizes in ALL_CASES)
    print(f"ATEN_CPU_CAPABILITY={capability}: torch {reference['torch']} capability {reference['capability']}, "
          f"{len(ALL_CASES)} sequences, {compared} float32 values identical")


def test_capability_variable_matters_for_large_draws_only(tool):
    """torch's DEFAULT kernel and its AVX2 kernel give different bits for >= 16 values (so honouring
    ATEN_CPU_CAPABILITY is needed), and identical bits for < 16 values; the tool follows both."""
    cases = [(0, [32]), (0, [15])]
    default = _torch_draws("default", cases)["draws"]
    avx2 = _torch_draws("avx2", cases)["draws"]
    assert default[0] != avx2[0]
    assert default[1] == avx2[1]
    assert _tool_draws("default", 0, [32])[0] == default[0]
    assert _tool_draws("avx2", 0, [32])[0] == avx2[0]
    assert "kernel default" in _tool_draws("default", 0, [1])[1]
    assert "kernel avx2" in _tool_draws("avx512", 0, [1])[1]


def test_tool_rejects_bad_arguments(tool):
    for args in [[], ["1"], ["x", "3"], ["1", "-3"], ["1", "3x"], [str(2**64), "1"]]:
        proc = subprocess.run([str(tool)] + args, capture_output=True, text=True, check=False)
        assert proc.returncode == 2, args

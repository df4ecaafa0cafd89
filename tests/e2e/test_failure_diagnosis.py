"""The cause of a failure in words (doc/reading-a-failure.md, "The diagnosis"), on the planted bugs of a real
user, each exported for real and run on real ONNX Runtime in one run: a batch read as a Python int under the
TorchScript exporter, a Python branch on the batch, and nn.TransformerEncoder, whose TorchScript export
freezes the sequence length inside attention. Each gets one class, a diagnosis naming the frozen dimension (and
the node) or the threshold, and a hint (and an operator ONNX Runtime has no kernel for is named), in the summary line, the AssertionError, the Markdown, the JUnit
failure and the HTML page (in the real headless Chromium)."""
import html
import json
import sys

import pytest

from conftest import BUILD, REPO, require_runtime, run_cli
from headless_chromium import HeadlessChromium
from module_support import write_profiles

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

ZOO = REPO / "tests" / "models" / "zoo.py"
TOLERANCES = {"rtol": 1e-4, "atol": 1e-5}


def profile(name, exporter, factory, inputs, dims, outputs):
    return {"name": name, "exporter": exporter, "module": f"{ZOO}:{factory}", "inputs": inputs, "dims": dims,
            "outputs": outputs, "opset": 18, "tolerances": TOLERANCES}


BATCH_BAKED = [{"name": "x", "shape": ["batch", 3, 4], "dtype": "float32"}]
PROFILES = [
    profile("baked-torchscript", "torchscript", "batch_baked", BATCH_BAKED, {"batch": [2, 1, 3]}, ["y"]),
    profile("baked-dynamo", "dynamo", "batch_baked", BATCH_BAKED, {"batch": [2, 1, 3]}, ["y"]),
    profile("branch-torchscript", "torchscript", "shape_branch", [{"name": "x", "shape": ["batch", 4],
                                                                     "dtype": "float32"}], {"batch": [2, 1, 3]}, ["y"]),
    profile("transformer-torchscript", "torchscript", "transformer_encoder",
            [{"name": "sequence", "shape": [2, "seq", 32], "dtype": "float32"}], {"seq": [10, 6, 14]}, ["encoded"]),
    profile("int16-relu-torchscript", "torchscript", "int16_relu", [{"name": "x", "shape": ["batch", 3],
                                                                       "dtype": "float32"}], {"batch": [2, 1]}, ["y"]),
]

# What each planted bug's diagnosis must say: (class, words naming the cause, words of its hint).
EXPECTED = {
    "baked-torchscript": ("input-contract", "the dimension batch is declared dynamic (sizes 2 1 3) but the graph "
                          "fixes it to its export size 2 (Reshape node '/Reshape'", "a size read as a Python int"),
    "branch-torchscript": ("mismatch", "a branch taken on a shape: the cases that fail are exactly those with "
                           "batch > 2, those with batch <= 2 pass", "a Python `if` on a shape"),
    "transformer-torchscript": ("input-contract", "the dimension seq is declared dynamic (sizes 10 6 14) but the "
                                "graph fixes it to its export size 10 (Reshape node '/layers.0/self_attn/",
                                "a size read as a Python int"),
}


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("planted")
    profiles = write_profiles(folder / "profiles.json", PROFILES)
    done = run_cli("run", "--profile-file", profiles, "--output", folder / "report.json", "--html", folder / "r.html",
                   "--markdown", folder / "r.md", "--junit", folder / "r.xml")
    assert done.returncode == 17, done.stderr
    report = json.loads((folder / "report.json").read_text())
    return done, {r["profile"]: r for r in report["profiles"]}, folder


def block_of(lines, profile):
    """The summary line of `profile` and the indented lines under it."""
    start = next(i for i, line in enumerate(lines) if line.startswith(profile + ": "))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("  ")), len(lines))
    return lines[start:end]


def test_an_operator_the_runtime_rejects_is_named_with_its_node_and_a_hint(planted):
    done, records, _ = planted
    record = records["int16-relu-torchscript"]
    assert (record["failure"], record["level"]) == ("load-error", "structural")  # no case ran
    block = block_of(done.stdout.splitlines(), "int16-relu-torchscript")
    assert "  cause: an operator the runtime rejects: Could not find an implementation for Max(13) node" in \
        "\n".join(block)
    assert any(line.startswith("  hint: ONNX Runtime has no kernel for this operator") for line in block)
    assert not any(line.startswith("  failed case") for line in block)  # no case ran: none is listed


def test_one_cause_gets_one_class_whatever_the_kernel_returned(planted):
    _, records, _ = planted
    for name, (failure, _, _) in EXPECTED.items():
        # ONNX Runtime ran the export-size cases of each: the level says so
        assert (records[name]["failure"], records[name]["level"]) == (failure, "executed"), name
    # Gemm said INVALID_ARGUMENT and Reshape said FAIL: both are the frozen size, both rejected, input-contract
    transformer = {c["name"]: c for c in records["transformer-torchscript"]["input_cases"]}
    for case in ("seq-6", "seq-14"):
        assert (transformer[case]["outcome"], transformer[case]["failure"]) == ("rejected", "input-contract")
        assert transformer[case]["detail"].startswith("refused: the graph fixes seq at 10 (Reshape '/layers.0/")
        assert "runtime failed (FAIL)" in transformer[case]["detail"]
    baked = {c["name"]: c for c in records["baked-torchscript"]["input_cases"]}
    assert "INVALID_ARGUMENT" in baked["batch-3"]["detail"] and baked["batch-3"]["failure"] == "input-contract"


def test_dims_in_graph_says_what_the_graph_does(planted):
    _, records, _ = planted
    dims = {name: r["stages"]["export"]["detail"]["dims_in_graph"] for name, r in records.items()}
    assert dims["baked-torchscript"] == {"batch": {"graph": "frozen", "node": "/Reshape", "op": "Reshape", "size": 2}}
    assert dims["baked-dynamo"] == {"batch": "static"}  # dynamo specialised the input itself
    assert dims["branch-torchscript"] == {"batch": "dynamic"}  # a branch freezes no size
    frozen = dims["transformer-torchscript"]["seq"]
    assert frozen["graph"] == "frozen" and frozen["size"] == 10 and frozen["op"] == "Reshape"
    assert frozen["node"].startswith("/layers.0/self_attn/")


def test_the_summary_line_says_which_cases_failed_why_and_what_to_do(planted):
    done, _, _ = planted
    lines = done.stdout.splitlines()
    for name, (failure, cause, hint) in EXPECTED.items():
        block = block_of(lines, name)
        assert block[0].startswith(f"{name}: failed ({failure})")
        assert any(line.startswith("  cause: " + cause) for line in block), block
        assert any(line.startswith("  hint: " + hint) for line in block), block
    baked = block_of(lines, "baked-torchscript")
    assert "  failed case batch-1 (batch=1): rejected; ONNX Runtime's node Gemm '/head/Gemm' says: " \
           "GEMM: Dimension mismatch, W: {2,12} K: 6 N:2" in baked
    assert "  other exporter: the dynamo export of the same module (profile baked-dynamo) failed " \
           "(input-contract)" in baked
    # the exporter's warnings whole, with the file and line that raised them
    tracer = [line for line in block_of(lines, "branch-torchscript") if "TracerWarning" in line]
    assert tracer and all(line.rstrip(")").endswith("zoo.py:114") for line in tracer), tracer
    assert all(len(line) > 200 for line in tracer)


def test_the_assertion_error_holds_the_diagnosis_and_hides_its_own_body(tmp_path):
    require_runtime()
    baked = ec.ModuleProfile("baked", "torchscript", f"{ZOO}:batch_baked", BATCH_BAKED, {"batch": [2, 3]},
                             outputs=["y"])
    with pytest.raises(AssertionError) as raised:
        ec.assert_conformant(baked, tmp_path)
    message = str(raised.value)
    assert message.startswith("baked: failed (input-contract)")
    assert "\n  failed case batch-3 (batch=3): rejected; ONNX Runtime's node Gemm '/head/Gemm' says: " in message
    assert "\n  cause: the dimension batch is declared dynamic (sizes 2 3) but the graph fixes it to its export " \
           "size 2 (Reshape node '/Reshape' holds it as the constant 2): every case with batch != 2 fails" in message
    assert "\n  hint: a size read as a Python int" in message
    frames = []
    tb = raised.tb
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    own = [f for f in frames if f.f_code.co_name == "assert_conformant"]
    assert own and all(f.f_locals.get("__tracebackhide__") is True for f in own)


def test_the_markdown_says_why_each_profile_failed(planted):
    _, _, folder = planted
    markdown = (folder / "r.md").read_text()
    for name, (_, cause, hint) in EXPECTED.items():
        section = markdown.split(f"**Why `{name}` failed**", 1)[1].split("**Why", 1)[0]
        lines = section.strip().splitlines()
        # Markdown escapes its punctuation and writes < > & as entities: compare the words without them
        plain = [html.unescape(line.replace("\\", "")) for line in lines]
        assert any(line.startswith("- cause: " + cause) for line in plain), lines
        assert any(line.startswith("- hint: " + hint) for line in plain), lines


def test_the_junit_failure_opens_with_the_diagnosis(planted):
    import xml.etree.ElementTree as ET

    _, _, folder = planted
    root = ET.parse(folder / "r.xml").getroot()
    for name, (failure, cause, hint) in EXPECTED.items():
        suite = next(s for s in root.iter("testsuite") if s.get("name") == name)
        parity = next(c for c in suite.iter("testcase") if c.get("name") == "parity")
        element = parity.find("failure")
        assert element.get("message").startswith(f"parity failed: {failure} — " + cause)
        assert "cause: " + cause in element.text and "hint: " + hint in element.text


def test_the_page_opens_with_every_profile_failures_first_and_the_causes_in_words(planted):
    _, records, folder = planted
    with HeadlessChromium() as page:
        page.open_page(folder / "r.html")
        facts = page.evaluate("""(() => ({
          rows: [...document.querySelectorAll('table.overview tbody tr')].map(r => ({
            profile: r.dataset.profile, target: r.querySelector('a').getAttribute('href'),
            cells: [...r.querySelectorAll('td')].map(td => td.textContent)})),
          sections: [...document.querySelectorAll('section.profile')].map(s => [s.id, s.dataset.profile]),
          first_section_top: document.querySelector('section.profile').getBoundingClientRect().top,
          overview_top: document.querySelector('table.overview').getBoundingClientRect().top,
          diagnoses: Object.fromEntries([...document.querySelectorAll('body > ul.diagnosis')].map(
            u => [u.dataset.profile, [...u.querySelectorAll('li')].map(li => li.textContent)])),
          parity: [...document.querySelectorAll('section.profile div.failure[data-stage=parity]')].map(
            d => [d.querySelectorAll(':scope > pre').length, d.querySelector('p.detail-sentences').textContent]),
        }))()""")
        assert page.console_errors() == []
    assert facts["overview_top"] < facts["first_section_top"]
    # every profile, the failures first (all four failed here), each linking to its own section
    assert sorted(r["profile"] for r in facts["rows"]) == sorted(records)
    anchors = dict((profile, f"#{id_}") for id_, profile in facts["sections"])
    assert all(r["target"] == anchors[r["profile"]] for r in facts["rows"])
    for name, (failure, cause, hint) in EXPECTED.items():
        row = next(r for r in facts["rows"] if r["profile"] == name)
        assert row["cells"][2] == failure and row["cells"][4].startswith(cause)
        said = facts["diagnoses"][name]
        assert any(line.startswith("cause: " + cause) for line in said), said
        assert any(line.startswith("hint: " + hint) for line in said), said
    # the parity detail reads as sentences, not JSON
    for pres, sentences in facts["parity"]:
        assert pres == 0 and "failed cases: " in sentences and '{"' not in sentences and "[{" not in sentences

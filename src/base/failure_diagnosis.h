// The cause of a failed profile in words (doc/reading-a-failure.md, "The diagnosis"), the one rule every
// surface prints: the summary line (record/report.cc), hence assert_conformant's AssertionError, the
// Markdown, the JUnit failure and the top of the HTML page (src/report). In base, as both the record layer
// and the report layer read it, from a record's JSON alone. Read from the record alone (and the other
// records of the same document, for the other exporter's verdict on the same module); nothing is stored.
// A failed module or successor-format record has one; a tested profile's record (nnx.export-conformance/1)
// only its localisation's cause, when parity was localised, and otherwise prints exactly what it printed before
// (in the successor format, §11 kind built-in, also its refused session).
//
// Each cause found is a sentence and a hint:
// - frozen dimension: a dimension the profile declares with several sizes that the export detail's
//   dims_in_graph says is static or frozen (with the node), or whose failing cases are exactly those whose
//   size differs from the export's (its first size), none of which the runtime could run;
// - shape threshold: the failing cases are exactly those whose size of one dimension is past a threshold;
// - rejected operator: ONNX Runtime has no implementation of a node's operator (the load stage's code
//   NOT_IMPLEMENTED, or a case's message);
// - a refused session (any successor-format record's load-error but a missing kernel: a provider or
//   optimisation level the release lacks, a model it cannot read), in ONNX Runtime's words with the way out;
// - the first departing node: the parity detail's localisation (doc/localisation.md) in its own summary,
//   with whether the node introduces the error and how to replay its repro; or that no node departs; or
//   why the mismatch could not be localised.
// The failing cases that ran (name, dims, outcome, ONNX Runtime's node and message) and the exporter's warnings are
// listed beside the causes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnx {

struct Cause {
  std::string sentence;  // what the graph or the cases show, naming the dimension, size, node or threshold
  std::string hint;      // what to do about it
};

struct Diagnosis {
  std::vector<std::string> failed_cases;  // "batch-3 (batch=3): error; ONNX Runtime's node Gemm '/head/Gemm': ..."
  std::vector<Cause> causes;
  std::vector<std::string> warnings;      // the exporter's warnings as recorded (whole for a module export)
  std::vector<std::string> other_exporters;  // "the dynamo export of the same module (profile x) passed"
  bool empty() const { return failed_cases.empty() && causes.empty(); }
};

// The diagnosis of `record`; empty unless it failed (a v1 record's: its localisation's cause alone). `siblings` are
// the document's records (the record itself among them or not).
Diagnosis diagnose(const nlohmann::json& record, const std::vector<nlohmann::json>& siblings);

// The diagnosis as plain lines ("failed case ...", "cause: ...", "hint: ...", "other exporter: ...",
// "exporter warning: ..."), in that order.
std::vector<std::string> diagnosis_lines(const Diagnosis& diagnosis);

}  // namespace nnx

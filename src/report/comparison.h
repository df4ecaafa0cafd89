// The sentence the HTML page and the Markdown summary open with (doc/cli.md, "Looking at the evidence"): what
// was compared with what, from the records' own fields only. Per record: the runtime and its release
// (runtime.name/version/provider), the reference and its version (stages.parity.detail.reference, else
// versions.reference of an execute, else a run's PyTorch: "PyTorch <versions.torch> in eval mode", the
// native C++ float32 forward, a module record's stored PyTorch outputs, or an ONNX-file record's own data
// sets' outputs), the model (config's net and widths; else document.h's named_model — "module" or
// "ONNX file" — and the factory or the file the record names), the exporter and its opset (opset.requested)
// and the tolerance (tolerances).
// For several records (a report's profiles, a matrix's cells) one sentence covers them: a fact all share is
// said once, differing ones are listed, each naming the profiles it holds for unless it holds for all; a
// matrix's releases of one runtime and provider read as one list ("ONNX Runtime 1.20.1 and 1.30.0 (CPU…)").
// Numbers are shown_text's (report/document.h). Plain text: each renderer escapes it for its own markup.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nnx::report {

std::string comparison_sentence(const nlohmann::json& document);

}  // namespace nnx::report

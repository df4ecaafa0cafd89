// The re-judging function of the Python module (bindings.h; doc/rejudge.md): the one rejudge sequence
// (matrix/rejudge_document.h), its document handed back as JSON text.
#include "base/json_python.h"
#include "matrix/rejudge_document.h"
#include "python/bindings.h"

namespace nnx::python {

std::string rejudge(const std::filesystem::path& document, std::optional<double> rtol, std::optional<double> atol,
                    const std::optional<std::filesystem::path>& output) {
  return dumps_canonical(matrix::rejudge_document(document, rtol, atol, output).document);
}

}  // namespace nnx::python

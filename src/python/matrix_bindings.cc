// The runtime matrix functions of the Python module (bindings.h; doc/runtime-matrix.md): the one matrix
// sequence (matrix/run_matrix.h) with the settings axes, and one cell's child (matrix/cell_child.h).
#include <pybind11/pybind11.h>

#include "base/json_python.h"
#include "matrix/cell_child.h"
#include "matrix/cell_settings.h"
#include "matrix/run_matrix.h"
#include "python/bindings.h"

namespace nnx::python {
namespace py = pybind11;

std::string runtime_matrix(const std::filesystem::path& report, const std::filesystem::path& root,
                           const std::vector<std::string>& runtimes, py::handle jobs_given,
                           const std::vector<std::string>& child_command,
                           const std::optional<std::filesystem::path>& output,
                           const std::vector<std::string>& optimization_levels,
                           const std::vector<std::int64_t>& intra_op_threads, const std::vector<std::string>& providers,
                           const std::map<std::string, std::string>& session_config,
                           const std::map<std::string, std::string>& provider_options) {
  const std::optional<int> jobs = job_count(jobs_given, "runtimes");  // under the GIL: a Python object
  if (jobs && *jobs < 1) throw UsageError("jobs must be at least 1, not " + std::to_string(*jobs));
  const py::gil_scoped_release released;
  matrix::MatrixRequest request;
  request.report = report;
  request.root = root;
  request.output = output;
  for (const auto& runtime : runtimes) request.runtimes.push_back(matrix::RuntimeChoice::release_or_file(runtime));
  request.settings =
      matrix::settings_product(optimization_levels, intra_op_threads, providers, session_config, provider_options);
  request.jobs = static_cast<std::size_t>(jobs.value_or(0));  // 0: the number of cores
  request.child_command = child_command;
  return dumps_canonical(matrix::run_matrix(request).document);
}

int matrix_cell(const std::filesystem::path& report, const std::filesystem::path& root,
                const std::filesystem::path& library, const std::filesystem::path& cell_dir, std::size_t first,
                const std::string& settings) {
  return matrix::run_cell_child({report, root, library, cell_dir, first, 1, matrix::settings_from_argument(settings)});
}

}  // namespace nnx::python

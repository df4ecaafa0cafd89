#include "matrix/cell_child.h"

#include <unistd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/execute_record.h"
#include "base/sha256.h"
#include "stages/kept_outputs.h"
#include "base/atomic_file.h"
#include "base/child_process.h"
#include "base/error.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/record_vocabulary.h"
#include "record/record.h"
#include "matrix/drift.h"
#include "matrix/matrix_document.h"
#include "matrix/work_folder.h"

namespace nnx::matrix {
namespace {

namespace say = cell_protocol;

// One line to the parent, unbuffered, so it is there even if the next step kills the process.
class Progress {
 public:
  explicit Progress(int fd) : fd_(fd) {}
  void say(const std::string& text) const {
    const std::string line = text + "\n";
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n <= 0) return;  // the parent is gone: nothing to tell
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  int fd_;
};

// What the sessions of one record returned, one entry per run in call order (none: the run failed).
using Captured = std::vector<std::optional<std::vector<Tensor>>>;

class CapturingSession : public Session {
 public:
  CapturingSession(std::unique_ptr<Session> inner, Captured& captured, const Progress& progress)
      : inner_(std::move(inner)), captured_(captured), progress_(progress) {}
  const std::vector<std::string>& providers() const override { return inner_->providers(); }
  std::vector<Tensor> run(std::span<const Tensor> inputs) override {
    progress_.say(std::string(say::kSayRun) + " " + std::to_string(captured_.size()));
    captured_.emplace_back();
    auto outputs = inner_->run(inputs);
    captured_.back() = outputs;
    return outputs;
  }
  std::vector<std::string> input_names() const override { return inner_->input_names(); }

 private:
  std::unique_ptr<Session> inner_;
  Captured& captured_;
  const Progress& progress_;
};

class CapturingRuntime : public Runtime {
 public:
  CapturingRuntime(std::shared_ptr<Runtime> inner, Captured& captured, const Progress& progress)
      : inner_(std::move(inner)), captured_(captured), progress_(progress) {}
  std::string name() const override { return inner_->name(); }
  std::string version() const override { return inner_->version(); }
  std::string location() const override { return inner_->location(); }
  std::vector<std::string> available_providers() const override { return inner_->available_providers(); }
  std::unique_ptr<Session> create_session(std::span<const std::byte> model, const std::vector<ExternalFile>& external,
                                          const SessionSettings& settings) override {
    progress_.say(say::kSaySession);
    return std::make_unique<CapturingSession>(inner_->create_session(model, external, settings), captured_,
                                              progress_);
  }

 private:
  std::shared_ptr<Runtime> inner_;
  Captured& captured_;
  const Progress& progress_;
};

// The float32 outputs of a record's cases: parity runs every case in order, once, or with more than one
// intra-op thread twice when its first run returned (stages/parity.cc: the repeat, which says whether the two
// runs agree, is the same case's and is passed over); a case of several outputs (a module record's) gives one
// entry per float32 output, named <case>/<output>.
json case_outputs(const json& record, const Captured& captured) {
  json out = json::array();
  const json& cases = record.at(rf::kInputCases);
  const bool runs_twice =
      record.at(rf::kRuntime).at(rf::runtime_key::kSession).at(rf::session_key::kIntraOpThreads).get<std::int64_t>() > 1;
  for (std::size_t run = 0, k = 0; run < captured.size() && k < cases.size(); ++run, ++k) {
    const std::optional<std::vector<Tensor>>& outputs = captured[run];
    if (outputs && runs_twice) ++run;  // its repeat
    if (!outputs) continue;
    const std::string name = cases[k].at(rf::case_key::kName).get<std::string>();
    for (const Tensor& t : *outputs) {  // a case of several outputs: one entry per float32 output
      if (t.dtype != DType::float32) continue;
      const auto values = t.float32_values();
      const std::string label = outputs->size() == 1 ? name : name + "/" + t.name;
      CaseOutput c{label, t.shape, {values.begin(), values.end()}};
      RuntimeOutputs one{"", {{"p", {c}}}, "", true};
      out.push_back(outputs_to_json(one)["p"][0]);
    }
  }
  return out;
}

}  // namespace

int run_cell_child(const CellChildRequest& request) {
  // The matrix gone (even by SIGKILL): this child ends, and takes the matrix's work folder with it.
  watch_lifeline([work = request.cell_dir.parent_path()] { remove_work_folder(work); });
  const Progress progress(request.progress_fd);
  const json document = read_strict_json_file(request.report);
  const std::vector<json> records = records_of(document);
  std::optional<std::string> version;
  for (std::size_t i = request.first; i < records.size(); ++i) {
    progress.say(std::string(say::kSayRecord) + " " + std::to_string(i));
    Captured captured;
    ExecuteOptions options;
    options.onnxruntime_library = request.library;
    options.reference = ReferenceKind::native;  // no Python in a cell: each record's reference without it
    if (!request.settings.tested()) options.session = request.settings.as_override();
    options.open_runtime = [&](const std::string& name, const std::optional<std::filesystem::path>& library) {
      progress.say(say::kSayOpen);
      std::shared_ptr<Runtime> runtime = open_runtime(name, library);
      version = runtime->version();
      progress.say(std::string(say::kSayOpened) + " " + *version);
      return std::make_shared<CapturingRuntime>(std::move(runtime), captured, progress);
    };
    KeptOutputs kept;
    options.keep_outputs = [&kept](KeptRecord one) { kept.records.push_back(std::move(one)); };
    json record = records[i];  // one with nothing to execute is kept as it is, as execute keeps it
    try {
      if (!nothing_to_execute(Record::from_json(records[i]))) record = execute_record(records[i], request.root, options);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::interrupted) throw;
      record = failed_execution_record(
          record_with_settings(records[i], request.settings), FailedExecution{version, request.library.string(), FailureClass::load_error, e.what(), ""});
    }
    const json cell{{say::kRecordKey, record}, {say::kOutputsKey, case_outputs(record, captured)}};
    const std::string text = dumps_pretty(cell) + "\n";
    write_file_atomically(request.cell_dir / say::record_file_name(i), text);
    kept.document_sha256 = sha256_hex(text);
    write_kept_outputs(request.cell_dir / say::kept_outputs_name(i), kept);
    progress.say(std::string(say::kSayDone) + " " + std::to_string(i));
  }
  return 0;
}

}  // namespace nnx::matrix

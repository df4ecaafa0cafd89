#include "app/run_profile.h"

#include <openssl/evp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "artifacts/artifacts.h"
#include "model/feedfwd.h"
#include "runtime/onnx_runtime.h"
#include "base/interrupt.h"
#include "stages/stage_load.h"

namespace nnx {
namespace {

std::string base64(const void* data, std::size_t size) {
  std::string out(4 * ((size + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                static_cast<const unsigned char*>(data), static_cast<int>(size));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

json tensor_json(const std::vector<std::int64_t>& shape, const std::vector<float>& values) {
  return json{{"shape", shape}, {"data", base64(values.data(), values.size() * sizeof(float))}};
}

std::string worker_problem(const WorkerError& e) { return std::string("exporter worker: ") + e.what(); }

// NNX_TIMING=1 prints one line of wall times per profile on stderr (for bench/; nothing enters the record).
using Clock = std::chrono::steady_clock;
struct AddTime {
  double& sum;
  Clock::time_point start = Clock::now();
  ~AddTime() { sum += std::chrono::duration<double>(Clock::now() - start).count(); }
};

// Everything the stages share while one profile runs.
struct Run {
  const Profile& profile;
  std::filesystem::path root;
  const RunOptions& options;
  json record;
  FeedFwdNN native;
  std::shared_ptr<OrtLibrary> library;
  std::unique_ptr<WorkerProcess> worker;
  double worker_seconds = 0.0;  // NNX_TIMING: starting, asking and stopping the exporter worker
  double load_seconds = 0.0;    // NNX_TIMING: the load stage (verify, then the runtime's session creation)
  double runtime_open_seconds = 0.0;  // NNX_TIMING: opening ONNX Runtime (dlopen, its environment)

  std::filesystem::path folder() const { return root / profile.name; }

  json ask(const json& request) {
    AddTime timed{worker_seconds};
    return worker->request(request, options.worker_timeout ? *options.worker_timeout : default_worker_timeout());
  }

  bool dependencies() {
    std::vector<std::string> problems;
    json versions = json::object();
    json& record_versions = record["versions"];
    try {
      {
        AddTime timed{runtime_open_seconds};
        library = OrtLibrary::open(options.onnxruntime_library);
      }
      versions["onnxruntime"] = library->version();
      record["runtime"]["version"] = library->version();
      record_versions["onnxruntime"] = library->version();
      record_versions["onnxruntime_library"] = library->location();
    } catch (const RuntimeUnavailable& e) {
      problems.push_back(std::string("onnxruntime: ") + e.what());
      record_versions["onnxruntime"] = nullptr;
    }
    std::vector<std::string> modules;
    for (const auto& m : profile.requirements()) {
      if (m != "onnxruntime") modules.push_back(m);
    }
    try {
      worker = [&] {
        AddTime timed{worker_seconds};
        return std::make_unique<WorkerProcess>(options.worker ? *options.worker : default_worker_command());
      }();
      const json reply = ask(json{{"op", "dependencies"}, {"modules", modules}});
      if (!reply.value("ok", false)) throw WorkerError(WorkerError::Kind::malformed, reply.dump());
      for (const auto& [k, v] : reply.at("environment").items()) record_versions[k] = v;
      for (const auto& m : modules) {
        if (reply.at("versions").contains(m)) versions[m] = reply["versions"][m];
      }
      for (const auto& p : reply.at("problems")) problems.push_back(p.get<std::string>());
    } catch (const Interrupted&) {
      throw;  // SIGINT/SIGTERM: no record, the run unwinds (run_safety.h)
    } catch (const std::exception& e) {
      worker.reset();
      std::string modules_text;
      for (const auto& m : modules) modules_text += (modules_text.empty() ? "" : ", ") + m;
      problems.push_back("Python modules " + modules_text + " cannot be checked: " + e.what() +
                         "; install them with `make bootstrap` (or pip install torch onnx onnxscript)");
    }
    for (const char* key : {"python", "platform", "torch", "numpy", "onnx", "onnxscript"}) {
      if (!record_versions.contains(key)) record_versions[key] = nullptr;
    }
    if (!problems.empty()) {
      std::string detail;
      for (const auto& p : problems) detail += (detail.empty() ? "" : "\n") + p;
      set_stage_failed(record, Stage::dependencies, FailureClass::missing_dependency, detail);
      return false;
    }
    set_stage_passed(record, Stage::dependencies, versions);
    return true;
  }

  bool export_model() {
    std::error_code ec;
    std::filesystem::create_directories(folder(), ec);
    if (ec) {
      set_stage_failed(record, Stage::export_model, FailureClass::export_error,
                       json{{"error", "cannot create " + folder().string() + ": " + ec.message()}, {"log", ""}});
      return false;
    }
    json parameters = json::array();
    for (const auto& p : native.parameters()) {
      json t = tensor_json(p.shape, p.values);
      t["name"] = p.name;
      parameters.push_back(t);
    }
    const std::vector<std::int64_t> example_shape = {profile.export_batch, profile.model.input_dim};
    json model = profile.model.to_json();
    model.erase("weights");
    const json request{{"op", "export"},
                       {"exporter", profile.exporter},
                       {"options", profile.exporter_options()},
                       {"model", model},
                       {"parameters", parameters},
                       {"example_input", tensor_json(example_shape, draw_input(example_shape, 7))},
                       {"output_dir", std::filesystem::absolute(folder()).string()},
                       {"model_file", kModelFile}};
    json reply;
    try {
      reply = ask(request);
      if (!reply.value("ok", false)) {
        throw WorkerError(WorkerError::Kind::malformed, reply.value("error", reply.dump()));
      }
    } catch (const WorkerError& e) {
      set_stage_failed(record, Stage::export_model, FailureClass::export_error,
                       json{{"error", worker_problem(e)}, {"log", worker ? worker->log_tail(20) : ""}});
      worker.reset();
      return false;
    }
    auto with_fault = [&](json detail) {
      if (reply.contains("fault") && !reply["fault"].is_null()) detail["injected_fault"] = reply["fault"];
      return detail;
    };
    const json warnings = reply.value("warnings", json::array());
    if (reply.contains("exception") && !reply["exception"].is_null()) {
      set_stage_failed(record, Stage::export_model, FailureClass::export_error,
                       with_fault(json{{"error", reply["exception"]}, {"log", reply.value("log", "")}}));
      return false;
    }
    record["model_state"] = reply.at("model_state");
    const json changed = reply.value("changed", json::array());
    if (!changed.empty()) {
      set_stage_failed(record, Stage::export_model, FailureClass::state_changed,
                       with_fault(json{{"changed", changed}, {"warnings", warnings}}));
      return false;
    }
    if (!reply.value("wrote_model", false)) {
      set_stage_failed(record, Stage::export_model, FailureClass::export_error,
                       with_fault(json{{"error", "the exporter wrote no model.onnx"}, {"log", reply.value("log", "")}}));
      return false;
    }
    set_stage_passed(record, Stage::export_model, with_fault(json{{"warnings", warnings}}));
    return true;
  }

  bool check() {
    json reply;
    try {
      reply = ask(json{{"op", "check"}, {"path", std::filesystem::absolute(folder() / kModelFile).string()}});
      if (!reply.value("ok", false)) {
        throw WorkerError(WorkerError::Kind::malformed, reply.value("error", reply.dump()));
      }
    } catch (const WorkerError& e) {
      set_stage_failed(record, Stage::check, FailureClass::checker_error,
                       json{{"error", worker_problem(e)}, {"log", worker ? worker->log_tail(20) : ""}});
      worker.reset();
      return false;
    }
    if (!reply["error"].is_null()) {
      set_stage_failed(record, Stage::check, FailureClass::checker_error, json{{"error", reply["error"]}});
      return false;
    }
    try {
      std::vector<std::string> external = reply.value("external_data", std::vector<std::string>{});
      const auto manifest = build_manifest(folder(), external);
      json files = json::array();
      for (const auto& f : manifest) files.push_back(f.to_json());
      record["artifacts"]["files"] = files;
    } catch (const StageFailure& f) {
      set_stage_failed(record, Stage::check, f.failure(), f.detail());
      return false;
    }
    record["opset"]["model"] = reply.at("opset");
    set_stage_passed(record, Stage::check,
                     json{{"opset", reply["opset"]},
                          {"ir_version", reply["ir_version"]},
                          {"producer", reply["producer"]},
                          {"inputs", reply["inputs"]},
                          {"outputs", reply["outputs"]}});
    return true;
  }
};

}  // namespace

void require_free_profile_folder(const std::filesystem::path& root, const std::string& name) {
  std::error_code ec;
  const auto folder = root / name;
  const auto st = std::filesystem::symlink_status(folder, ec);
  if (ec || st.type() == std::filesystem::file_type::not_found) return;
  if (st.type() != std::filesystem::file_type::directory) {
    throw FolderInUse("profile folder " + folder.string() + " exists and is not a folder");
  }
  if (!std::filesystem::is_empty(folder, ec) || ec) {
    throw FolderInUse("profile folder " + folder.string() +
                      " already holds files; use --force to clear the chosen profiles' folders");
  }
}

SourceInfo detect_source(const std::optional<std::string>& given_revision) {
  SourceInfo s;
  if (given_revision) {
    s.origin = "given";
    s.revision = given_revision->empty() ? json(nullptr) : json(*given_revision);
    return s;
  }
  const std::string dir = NNX_SOURCE_DIR;
  auto capture = [](const std::string& command, std::string& out) {
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return false;
    char buffer[4096];
    out.clear();
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    return ::pclose(pipe) == 0;
  };
  std::string head, status;
  const std::string quoted = "'" + dir + "'";
  // An installed copy is built with an empty NNX_SOURCE_DIR: it belongs to no checkout (origin unknown).
  if (!dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / ".git") &&
      capture("git -C " + quoted + " rev-parse HEAD 2>/dev/null", head) && head.size() >= 40 &&
      capture("git -C " + quoted + " status --porcelain --untracked-files=no 2>/dev/null", status)) {
    s.origin = "git";
    s.revision = head.substr(0, head.find_first_of("\r\n"));
    s.dirty = !status.empty();
  }
  return s;
}

json run_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options) {
  require_valid(profile);
  require_free_profile_folder(root, profile.name);
  const Clock::time_point started = Clock::now();
  Run run{profile, root, options, json(), FeedFwdNN(profile.model), nullptr, nullptr};
  run.record = blank_record(profile, detect_source(options.source_revision), run.native.weights_sha256());
  // After SIGINT/SIGTERM (run_safety.h) no further stage starts: Interrupted unwinds the run.
  const auto go_on = [](bool passed) { throw_if_interrupted(); return passed; };
  if (go_on(run.dependencies()) && go_on(run.export_model()) && go_on(run.check())) {
    std::unique_ptr<InferenceSession> session;
    {
      AddTime timed{run.load_seconds};
      session = run_load(run.record, root, run.library);
    }
    throw_if_interrupted();
    if (session) run_parity(run.record, *session, run.native);
  }
  {
    AddTime timed{run.worker_seconds};
    run.worker.reset();
  }
  finalize_record(run.record);
  if (const char* timing = std::getenv("NNX_TIMING"); timing && *timing && std::string(timing) != "0") {
    std::fprintf(stderr, "nnx-timing: profile=%s total_s=%.6f worker_s=%.6f load_s=%.6f runtime_open_s=%.6f\n",
                 profile.name.c_str(), std::chrono::duration<double>(Clock::now() - started).count(),
                 run.worker_seconds, run.load_seconds, run.runtime_open_seconds);
  }
  return run.record;
}

}  // namespace nnx

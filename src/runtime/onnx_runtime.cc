#include "runtime/onnx_runtime.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "base/build_info.h"
#include "runtime/library_file.h"
#include "runtime/library_probe.h"
#include "runtime/library_search.h"
#include "runtime/run_watchdog.h"
#include "runtime/runtime_log.h"
#include "runtime/runtime_telemetry.h"

#define ORT_API_MANUAL_INIT
#include <onnxruntime_cxx_api.h>
#undef ORT_API_MANUAL_INIT

namespace nnx {
namespace {

std::string element_type_name(ONNXTensorElementDataType t) {
  switch (t) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: return "float";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8: return "uint8";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8: return "int8";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16: return "uint16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16: return "int16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return "int32";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: return "int64";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING: return "string";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL: return "bool";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: return "float16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: return "double";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32: return "uint32";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64: return "uint64";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: return "bfloat16";
    default: return "type-" + std::to_string(static_cast<int>(t));
  }
}

std::string code_name(int code) {
  switch (code) {
    case ORT_OK: return "OK";
    case ORT_FAIL: return "FAIL";
    case ORT_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case ORT_NO_SUCHFILE: return "NO_SUCHFILE";
    case ORT_NO_MODEL: return "NO_MODEL";
    case ORT_ENGINE_ERROR: return "ENGINE_ERROR";
    case ORT_RUNTIME_EXCEPTION: return "RUNTIME_EXCEPTION";
    case ORT_INVALID_PROTOBUF: return "INVALID_PROTOBUF";
    case ORT_MODEL_LOADED: return "MODEL_LOADED";
    case ORT_NOT_IMPLEMENTED: return "NOT_IMPLEMENTED";
    case ORT_INVALID_GRAPH: return "INVALID_GRAPH";
    case ORT_EP_FAIL: return "EP_FAIL";
    default: return "code " + std::to_string(code);
  }
}

RuntimeFailure failure(int code, const std::string& message) {
  return RuntimeFailure(code == ORT_INVALID_ARGUMENT, code_name(code), message);
}

RuntimeFailure from_ort(const Ort::Exception& e) { return failure(static_cast<int>(e.GetOrtErrorCode()), e.what()); }

// The level a SessionSettings names (rf::session_key::kOptimizationLevels), as ONNX Runtime's enum value: LAYOUT
// is 3, newer than the headers the core is built with (a release before it refuses it when the session is made).
GraphOptimizationLevel optimization_level(const std::string& name) {
  constexpr std::array<int, 5> kValues = {0, 1, 2, 3, 99};  // in kOptimizationLevels' order
  for (std::size_t i = 0; i < kValues.size(); ++i) {
    if (name == rf::session_key::kOptimizationLevels[i]) return static_cast<GraphOptimizationLevel>(kValues[i]);
  }
  throw failure(ORT_INVALID_ARGUMENT, "graph optimisation level " + name + " is not one of ORT_DISABLE_ALL, "
                "ORT_ENABLE_BASIC, ORT_ENABLE_EXTENDED, ORT_ENABLE_LAYOUT, ORT_ENABLE_ALL");
}

// The name under which ONNX Runtime's in-memory table of external files finds `location` (the model's own
// spelling): the table drops one leading "./" (or ".//", ".\") from each name it is given but looks a
// tensor's location up as written, so a location that itself starts so is given behind one more "./".
std::string external_table_name(const std::string& location) {
  return location.starts_with("./") || location.starts_with(".\\") ? "./" + location : location;
}

// A session on one OnnxRuntime (which it keeps alive).
class OnnxSession : public Session {
 public:
  OnnxSession(std::shared_ptr<OnnxRuntime> runtime, std::span<const std::byte> model,
              const std::vector<ExternalFile>& external, const SessionSettings& settings);
  const std::vector<std::string>& providers() const override { return providers_; }
  std::vector<Tensor> run(std::span<const Tensor> inputs) override;
  std::vector<std::string> input_names() const override;

 private:
  std::vector<std::string> output_names() const;

  std::shared_ptr<OnnxRuntime> runtime_;
  std::unique_ptr<Ort::Session> session_;
  std::vector<std::string> providers_;
  std::chrono::milliseconds run_timeout_;
};

// ORT keeps one process-wide API table in the C++ wrapper; every library we open must agree on it.
std::mutex g_api_mutex;

// Points the wrapper's table at `api`, under the lock and only when it points elsewhere: sessions of one
// library used from several threads at once (run --jobs) then only read it. Two different libraries used
// at the same moment from two threads would still contend for it (nothing does that). The lock is
// returned held, for a caller whose next call must not interleave with another thread's (an environment
// created or released); `use_api` lets it go at once.
std::unique_lock<std::mutex> lock_api(const OrtApi* api) {
  std::unique_lock<std::mutex> lock(g_api_mutex);
  if (Ort::Global<void>::api_ != api) Ort::InitApi(api);
  return lock;
}

void use_api(const OrtApi* api) { lock_api(api); }

// Gives a session `provider` with its `provider_options` before the CPU one, through ONNX Runtime's generic
// AppendExecutionProvider (the short name: "XNNPACK" for XnnpackExecutionProvider); the CPU provider is every
// session's already. Throws Ort::Exception for a provider that call does not take, or an option it refuses.
// Session creation and available_providers both call it, so what the profile check accepts is what a session is given.
void attach_provider(Ort::SessionOptions& options, const std::string& provider,
                     const std::vector<std::pair<std::string, std::string>>& provider_options = {}) {
  if (provider == rf::runtime_key::kRequiredProvider) return;
  std::string short_name = provider;
  const std::string suffix = "ExecutionProvider";
  if (short_name.size() > suffix.size() && short_name.ends_with(suffix)) short_name.resize(short_name.size() - suffix.size());
  options.AppendExecutionProvider(short_name, {provider_options.begin(), provider_options.end()});
}

}  // namespace

struct OnnxRuntime::Impl {
  void* handle = nullptr;
  const OrtApi* api = nullptr;
  std::uint32_t api_version = 0;  // the negotiated C API version (negotiated_api_version)
  std::unique_ptr<Ort::Env> env;
  // available_providers' answer, found once (under the API lock): a loaded library's providers do not change.
  std::optional<std::vector<std::string>> runnable_providers;
};

namespace {

// The oldest C API version whose functions cover every call of this file except the in-memory external
// initialisers (AddExternalInitializersFromFilesInMemory, API 17: refused per session below). API 16 is ONNX
// Runtime 1.16; an older library is refused as missing-dependency naming its version.
constexpr std::uint32_t kMinimumApiVersion = 16;
constexpr std::uint32_t kExternalInitializersApiVersion = 17;

// ONNX Runtime 1.x offers C API versions 1..x (its minor number): the highest both it and our headers know.
// Parsed from GetVersionString so that GetApi is never asked for a version the library lacks (it prints to
// stderr then). Returns 0 when the version string is not "1.<minor>...".
std::uint32_t negotiated_api_version(const std::string& library_version) {
  unsigned major = 0, minor = 0;
  if (std::sscanf(library_version.c_str(), "%u.%u", &major, &minor) != 2 || major != 1) return 0;
  return std::min<std::uint32_t>(minor, ORT_API_VERSION);
}

}  // namespace

std::shared_ptr<OnnxRuntime> OnnxRuntime::open(const std::optional<std::filesystem::path>& explicit_path) {
  const LibrarySearch search = library_search(explicit_path, build_bundled_onnxruntime());
  const std::vector<std::string>& candidates = search.candidates;
  const std::string& origin = search.origin;
  std::string tried;
  {
    // Before the library's first environment exists (runtime_telemetry.h).
    std::lock_guard<std::mutex> lock(g_api_mutex);
    turn_off_runtime_telemetry();
  }
  for (const auto& candidate : candidates) {
    // The file is checked, then tried in a child, before this process loads it (library_file.h, library_probe.h).
    std::optional<std::string> problem = library_file_problem(candidate);
    if (!problem) problem = probe_problem(candidate);
    const LoadedLibrary loaded = problem ? LoadedLibrary{} : load_library(candidate);
    if (!problem && !loaded.problem.empty()) problem = loaded.problem;
    if (problem) {
      tried += "\n  " + candidate + ": " + *problem;
      continue;
    }
    void* handle = loaded.handle;
    const OrtApiBase* base = loaded.base;
    const std::string& library_version = loaded.version;
    const std::uint32_t api_version = negotiated_api_version(library_version);
    if (api_version < kMinimumApiVersion) {
      tried += "\n  " + candidate + ": ONNX Runtime " + library_version + " is older than 1." +
               std::to_string(kMinimumApiVersion) + ", the oldest release this core supports (C API version " +
               std::to_string(kMinimumApiVersion) + ")";
      dlclose(handle);
      continue;
    }
    const OrtApi* api = base->GetApi(api_version);
    if (!api) {
      tried += "\n  " + candidate + ": does not offer the ONNX Runtime C API version " +
               std::to_string(api_version);
      dlclose(handle);
      continue;
    }
    auto lib = std::shared_ptr<OnnxRuntime>(new OnnxRuntime());
    lib->impl_ = std::make_unique<Impl>();
    lib->impl_->handle = handle;
    lib->impl_->api = api;
    lib->impl_->api_version = api_version;
    lib->version_ = library_version;
    Dl_info info{};
    lib->location_ = candidate;
    if (dladdr(loaded.get_api_base, &info) && info.dli_fname) lib->location_ = info.dli_fname;
    {
      const auto lock = lock_api(api);
      try {
        // Its own log lines are never printed; a stage's are kept by its capture (runtime_log.h).
        lib->impl_->env = std::make_unique<Ort::Env>(ORT_LOGGING_LEVEL_WARNING, "nnx-conformance",
                                                     keep_runtime_log_line, nullptr);
        lib->impl_->env->DisableTelemetryEvents();
      } catch (const Ort::Exception& e) {
        throw RuntimeUnavailable(std::string("ONNX Runtime at ") + lib->location_ +
                                 " cannot create its environment: " + e.what());
      }
    }
    return lib;
  }
  std::string message = "ONNX Runtime library (libonnxruntime.so.1) is not available";
  if (!origin.empty()) message += " at the path named by " + origin;
  message += ":" + tried +
             "\n  install it with `make bootstrap` (or name a library file; NNX_ONNXRUNTIME_LIBRARY names one "
             "for every run)";
  throw RuntimeUnavailable(message);
}

OnnxRuntime::~OnnxRuntime() {
  if (!impl_) return;
  // Under the mutex that creates environments: ONNX Runtime keeps one environment per process, and one
  // created while the last is still being released fails ("Only one instance of LoggingManager"; seen
  // when a run's lane opened the next profile's runtime as its second thread released the last profile's).
  const auto lock = lock_api(impl_->api);
  impl_->env.reset();
  // The library stays mapped: ORT registers process-wide state that must outlive its environments.
}

std::vector<std::string> OnnxRuntime::available_providers() const {
  const auto lock = lock_api(impl_->api);
  if (impl_->runnable_providers) return *impl_->runnable_providers;
  std::vector<std::string> runnable;
  for (const std::string& provider : Ort::GetAvailableProviders()) {
    try {
      Ort::SessionOptions options;
      attach_provider(options, provider);
      runnable.push_back(provider);
    } catch (const Ort::Exception&) {
      // listed, but not one this build can attach (CUDA and TensorRT need calls of their own)
    }
  }
  impl_->runnable_providers = runnable;
  return runnable;
}

std::unique_ptr<Session> OnnxRuntime::create_session(std::span<const std::byte> model,
                                                     const std::vector<ExternalFile>& external,
                                                     const SessionSettings& settings) {
  return std::make_unique<OnnxSession>(shared_from_this(), model, external, settings);
}

OnnxSession::OnnxSession(std::shared_ptr<OnnxRuntime> runtime, std::span<const std::byte> model,
                         const std::vector<ExternalFile>& external, const SessionSettings& settings)
    : runtime_(std::move(runtime)), run_timeout_(settings.run_timeout) {
  use_api(runtime_->impl().api);
  try {
    Ort::SessionOptions options;
    options.SetIntraOpNumThreads(settings.intra_op_num_threads);
    options.SetInterOpNumThreads(settings.inter_op_num_threads);
    options.SetGraphOptimizationLevel(optimization_level(settings.graph_optimization_level));
    for (const auto& [key, value] : settings.config) options.AddConfigEntry(key.c_str(), value.c_str());
    if (settings.optimized_model_path) options.SetOptimizedModelFilePath(settings.optimized_model_path->c_str());
    options.SetExecutionMode(ExecutionMode::ORT_SEQUENTIAL);
    if (!external.empty()) {
      if (runtime_->impl().api_version < kExternalInitializersApiVersion) {
        throw failure(ORT_NOT_IMPLEMENTED, "ONNX Runtime " + runtime_->version() + " (C API version " +
                                               std::to_string(runtime_->impl().api_version) +
                                               ") cannot take external initialisers from memory (C API " +
                                               std::to_string(kExternalInitializersApiVersion) + ", 1.17)");
      }
      std::vector<std::string> names;
      std::vector<char*> buffers;
      std::vector<size_t> lengths;
      for (const auto& f : external) {
        names.push_back(external_table_name(f.location));
        buffers.push_back(const_cast<char*>(reinterpret_cast<const char*>(f.bytes.data())));
        lengths.push_back(f.bytes.size());
      }
      options.AddExternalInitializersFromFilesInMemory(names, buffers, lengths);
    }
    const auto available = runtime_->available_providers();
    bool known = false;
    for (const auto& p : available) known = known || p == settings.provider;
    if (!known) {
      std::string list;
      for (const auto& p : available) list += (list.empty() ? "" : ", ") + p;
      throw failure(ORT_FAIL, "provider " + settings.provider + " is not available in ONNX Runtime " +
                                  runtime_->version() + " (available: " + list + ")");
    }
    attach_provider(options, settings.provider, settings.provider_options);
    session_ = std::make_unique<Ort::Session>(*runtime_->impl().env, model.data(), model.size(), options);
  } catch (const Ort::Exception& e) {
    throw from_ort(e);
  }
  providers_.push_back(settings.provider);
  if (settings.provider != rf::runtime_key::kRequiredProvider) providers_.push_back(rf::runtime_key::kRequiredProvider);
}

std::vector<std::string> OnnxSession::output_names() const {
  use_api(runtime_->impl().api);
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<std::string> names;
  for (size_t i = 0; i < session_->GetOutputCount(); ++i) {
    names.push_back(session_->GetOutputNameAllocated(i, allocator).get());
  }
  return names;
}

std::vector<std::string> OnnxSession::input_names() const {
  use_api(runtime_->impl().api);
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<std::string> names;
  for (size_t i = 0; i < session_->GetInputCount(); ++i) {
    names.push_back(session_->GetInputNameAllocated(i, allocator).get());
  }
  return names;
}

namespace {

ONNXTensorElementDataType ort_element_type(DType dtype) {
  return static_cast<ONNXTensorElementDataType>(onnx_element_type(dtype));  // ORT's enum is ONNX's DataType
}

// An output value as a Tensor: its bytes copied; a non-tensor or an unsupported element type is refused.
Tensor tensor_of(const std::string& name, const Ort::Value& value) {
  if (!value.IsTensor()) throw RuntimeFailure(false, "UNSUPPORTED_TYPE", "output " + name + " is not a tensor");
  auto info = value.GetTensorTypeAndShapeInfo();
  const auto dtype = dtype_of_onnx_element_type(static_cast<std::int32_t>(info.GetElementType()));
  if (!dtype) {
    throw RuntimeFailure(false, "UNSUPPORTED_TYPE", "output " + name + " has element type " +
                                                        element_type_name(info.GetElementType()) +
                                                        ", which cannot be compared");
  }
  Tensor t{name, *dtype, info.GetShape(), {}};
  t.bytes.resize(info.GetElementCount() * dtype_size(*dtype));
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), value.GetTensorRawData(), t.bytes.size());
  return t;
}

}  // namespace

std::vector<Tensor> OnnxSession::run(std::span<const Tensor> inputs) {
  use_api(runtime_->impl().api);
  try {
    const auto outputs = output_names();
    std::vector<const char*> output_ptrs;
    for (const auto& n : outputs) output_ptrs.push_back(n.c_str());
    auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    std::vector<Ort::Value> values;
    std::vector<const char*> input_ptrs;
    for (const Tensor& t : inputs) {
      values.push_back(Ort::Value::CreateTensor(memory, const_cast<std::byte*>(t.bytes.data()), t.bytes.size(),
                                                t.shape.data(), t.shape.size(), ort_element_type(t.dtype)));
      input_ptrs.push_back(t.name.c_str());
    }
    Ort::RunOptions run_options;
    std::vector<Ort::Value> results;
    {
      const RunWatchdog watchdog(run_timeout_, [&run_options] { run_options.SetTerminate(); });
      try {
        results = session_->Run(run_options, input_ptrs.data(), values.data(), values.size(), output_ptrs.data(),
                                output_ptrs.size());
      } catch (const Ort::Exception&) {
        watchdog.throw_if_stopped();  // stopped for its time or a signal: say that, not ORT's "terminate flag"
        throw;
      }
    }
    std::vector<Tensor> out;
    for (size_t i = 0; i < results.size(); ++i) out.push_back(tensor_of(outputs[i], results[i]));
    return out;
  } catch (const Ort::Exception& e) {
    throw from_ort(e);
  }
}

std::shared_ptr<Runtime> open_onnx_runtime(const std::optional<std::filesystem::path>& library) {
  return OnnxRuntime::open(library);
}

}  // namespace nnx

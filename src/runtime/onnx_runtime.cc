#include "runtime/onnx_runtime.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

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

RuntimeFailure from_ort(const Ort::Exception& e) {
  return RuntimeFailure(static_cast<int>(e.GetOrtErrorCode()), e.what());
}

// ORT keeps one process-wide API table in the C++ wrapper; every library we open must agree on it.
std::mutex g_api_mutex;

}  // namespace

struct OrtLibrary::Impl {
  void* handle = nullptr;
  const OrtApi* api = nullptr;
  std::unique_ptr<Ort::Env> env;
};

bool RuntimeFailure::invalid_argument() const { return code_ == ORT_INVALID_ARGUMENT; }

std::string RuntimeFailure::code_name() const {
  switch (code_) {
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
    default: return "code " + std::to_string(code_);
  }
}

std::shared_ptr<OrtLibrary> OrtLibrary::open(const std::optional<std::filesystem::path>& explicit_path) {
  std::vector<std::string> candidates;
  std::string origin;
  if (explicit_path) {
    candidates.push_back(explicit_path->string());
    origin = "--onnxruntime";
  } else if (const char* env = std::getenv("NNX_ONNXRUNTIME_LIBRARY"); env && *env) {
    candidates.push_back(env);
    origin = "NNX_ONNXRUNTIME_LIBRARY";
  } else {
    std::error_code ec;
    if (std::filesystem::exists(NNX_BUNDLED_ORT, ec)) candidates.push_back(NNX_BUNDLED_ORT);
    candidates.push_back("libonnxruntime.so.1");
  }
  std::string tried;
  {
    // Before the library's first environment exists (runtime_telemetry.h).
    std::lock_guard<std::mutex> lock(g_api_mutex);
    turn_off_runtime_telemetry();
  }
  for (const auto& candidate : candidates) {
    dlerror();
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      tried += "\n  " + candidate + ": " + (why ? why : "cannot be opened");
      continue;
    }
    using GetApiBase = const OrtApiBase* (*)();
    auto get_base = reinterpret_cast<GetApiBase>(dlsym(handle, "OrtGetApiBase"));
    const OrtApiBase* base = get_base ? get_base() : nullptr;
    const OrtApi* api = base ? base->GetApi(ORT_API_VERSION) : nullptr;
    if (!api) {
      tried += "\n  " + candidate + ": does not offer the ONNX Runtime C API version " +
               std::to_string(ORT_API_VERSION);
      dlclose(handle);
      continue;
    }
    auto lib = std::shared_ptr<OrtLibrary>(new OrtLibrary());
    lib->impl_ = std::make_unique<Impl>();
    lib->impl_->handle = handle;
    lib->impl_->api = api;
    lib->version_ = base->GetVersionString();
    Dl_info info{};
    lib->location_ = candidate;
    if (dladdr(reinterpret_cast<void*>(get_base), &info) && info.dli_fname) lib->location_ = info.dli_fname;
    {
      std::lock_guard<std::mutex> lock(g_api_mutex);
      Ort::InitApi(api);
      try {
        lib->impl_->env = std::make_unique<Ort::Env>(ORT_LOGGING_LEVEL_ERROR, "nnx-conformance");
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
             "\n  install it with `make bootstrap` (or name one with --onnxruntime PATH or "
             "NNX_ONNXRUNTIME_LIBRARY)";
  throw RuntimeUnavailable(message);
}

OrtLibrary::~OrtLibrary() {
  if (!impl_) return;
  impl_->env.reset();
  // The library stays mapped: ORT registers process-wide state that must outlive its environments.
}

std::vector<std::string> OrtLibrary::available_providers() const {
  std::lock_guard<std::mutex> lock(g_api_mutex);
  Ort::InitApi(impl_->api);
  return Ort::GetAvailableProviders();
}

struct InferenceSession::Impl {
  std::unique_ptr<Ort::Session> session;
};

InferenceSession::InferenceSession(std::shared_ptr<OrtLibrary> library, std::span<const std::byte> model,
                                   const std::vector<ExternalFile>& external, const SessionSettings& settings)
    : library_(std::move(library)), impl_(std::make_unique<Impl>()) {
  Ort::InitApi(library_->impl().api);
  try {
    Ort::SessionOptions options;
    options.SetIntraOpNumThreads(settings.intra_op_num_threads);
    options.SetInterOpNumThreads(settings.inter_op_num_threads);
    options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
    options.SetExecutionMode(ExecutionMode::ORT_SEQUENTIAL);
    if (!external.empty()) {
      std::vector<std::string> names;
      std::vector<char*> buffers;
      std::vector<size_t> lengths;
      for (const auto& f : external) {
        names.push_back(f.location);
        buffers.push_back(const_cast<char*>(reinterpret_cast<const char*>(f.bytes.data())));
        lengths.push_back(f.bytes.size());
      }
      options.AddExternalInitializersFromFilesInMemory(names, buffers, lengths);
    }
    const auto available = library_->available_providers();
    bool known = false;
    for (const auto& p : available) known = known || p == settings.provider;
    if (!known) {
      std::string list;
      for (const auto& p : available) list += (list.empty() ? "" : ", ") + p;
      throw RuntimeFailure(ORT_FAIL, "provider " + settings.provider + " is not available in ONNX Runtime " +
                                         library_->version() + " (available: " + list + ")");
    }
    if (settings.provider != "CPUExecutionProvider") {
      std::string short_name = settings.provider;
      const std::string suffix = "ExecutionProvider";
      if (short_name.size() > suffix.size() && short_name.ends_with(suffix)) {
        short_name.resize(short_name.size() - suffix.size());
      }
      options.AppendExecutionProvider(short_name, {});
    }
    impl_->session = std::make_unique<Ort::Session>(*library_->impl().env, model.data(), model.size(), options);
  } catch (const Ort::Exception& e) {
    throw from_ort(e);
  }
  providers_.push_back(settings.provider);
  if (settings.provider != "CPUExecutionProvider") providers_.push_back("CPUExecutionProvider");
}

InferenceSession::~InferenceSession() = default;

std::vector<std::string> InferenceSession::input_names() const {
  Ort::InitApi(library_->impl().api);
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<std::string> names;
  for (size_t i = 0; i < impl_->session->GetInputCount(); ++i) {
    names.push_back(impl_->session->GetInputNameAllocated(i, allocator).get());
  }
  return names;
}

std::vector<std::string> InferenceSession::output_names() const {
  Ort::InitApi(library_->impl().api);
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<std::string> names;
  for (size_t i = 0; i < impl_->session->GetOutputCount(); ++i) {
    names.push_back(impl_->session->GetOutputNameAllocated(i, allocator).get());
  }
  return names;
}

std::vector<TensorOutput> InferenceSession::run(const std::string& input_name, std::span<const float> values,
                                                const std::vector<std::int64_t>& shape) {
  Ort::InitApi(library_->impl().api);
  try {
    const auto outputs = output_names();
    std::vector<const char*> output_ptrs;
    for (const auto& n : outputs) output_ptrs.push_back(n.c_str());
    auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    Ort::Value input = Ort::Value::CreateTensor<float>(memory, const_cast<float*>(values.data()), values.size(),
                                                       shape.data(), shape.size());
    const char* input_ptr = input_name.c_str();
    Ort::RunOptions run_options;
    auto results = impl_->session->Run(run_options, &input_ptr, &input, 1, output_ptrs.data(), output_ptrs.size());
    std::vector<TensorOutput> out;
    for (size_t i = 0; i < results.size(); ++i) {
      TensorOutput t;
      t.name = outputs[i];
      if (!results[i].IsTensor()) {
        t.dtype = "non-tensor";
        out.push_back(std::move(t));
        continue;
      }
      auto info = results[i].GetTensorTypeAndShapeInfo();
      t.dtype = element_type_name(info.GetElementType());
      t.shape = info.GetShape();
      if (info.GetElementType() == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
        const float* data = results[i].GetTensorData<float>();
        t.values.assign(data, data + info.GetElementCount());
      }
      out.push_back(std::move(t));
    }
    return out;
  } catch (const Ort::Exception& e) {
    throw from_ort(e);
  }
}

}  // namespace nnx

// Test fakes (not product code): the real ONNX Runtime a stand-in library forwards to, opened from the path
// in the environment variable `path_variable` (the test sets it). nullptr when unset or unloadable, which
// the core reports as a library without OrtGetApiBase's answer.
#pragma once

#include <dlfcn.h>

#include <cstdlib>

#include <onnxruntime_c_api.h>

inline const OrtApiBase* open_real_runtime(const char* path_variable) {
  const char* real_path = std::getenv(path_variable);
  if (!real_path) return nullptr;
  void* handle = dlopen(real_path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) return nullptr;
  using GetBase = const OrtApiBase* (*)();
  auto get = reinterpret_cast<GetBase>(dlsym(handle, "OrtGetApiBase"));
  return get ? get() : nullptr;
}

// Test spy (not product code): a stand-in libonnxruntime that forwards every call to the real ONNX
// Runtime and appends one line to $NNX_SPY_LOG each time a session is created. Tests point
// NNX_ONNXRUNTIME_LIBRARY at this library to prove that a record whose artifacts fail verification never
// reaches session creation. The real library is $NNX_SPY_REAL_ORT.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include <onnxruntime_c_api.h>

#include "real_runtime.h"

namespace {

const OrtApi* g_real = nullptr;
OrtApi g_patched;
const OrtApiBase* g_real_base = nullptr;

void note(const char* what) {
  if (const char* path = std::getenv("NNX_SPY_LOG")) {
    if (FILE* f = std::fopen(path, "a")) {
      std::fprintf(f, "%s\n", what);
      std::fclose(f);
    }
  }
}

OrtStatus* ORT_API_CALL spy_create_session(const OrtEnv* env, const ORTCHAR_T* path, const OrtSessionOptions* o,
                                           OrtSession** out) NO_EXCEPTION {
  note("CreateSession");
  return g_real->CreateSession(env, path, o, out);
}

OrtStatus* ORT_API_CALL spy_create_session_from_array(const OrtEnv* env, const void* data, size_t size,
                                                      const OrtSessionOptions* o, OrtSession** out) NO_EXCEPTION {
  note("CreateSessionFromArray");
  return g_real->CreateSessionFromArray(env, data, size, o, out);
}

const OrtApi* ORT_API_CALL spy_get_api(uint32_t version) NO_EXCEPTION {
  const OrtApi* real = g_real_base->GetApi(version);
  if (!real) return nullptr;
  g_real = real;
  g_patched = *real;
  g_patched.CreateSession = spy_create_session;
  g_patched.CreateSessionFromArray = spy_create_session_from_array;
  return &g_patched;
}

const char* ORT_API_CALL spy_version() NO_EXCEPTION { return g_real_base->GetVersionString(); }

OrtApiBase g_base = {spy_get_api, spy_version};

}  // namespace

extern "C" const OrtApiBase* ORT_API_CALL OrtGetApiBase(void) NO_EXCEPTION {
  g_real_base = open_real_runtime("NNX_SPY_REAL_ORT");
  if (!g_real_base) return nullptr;
  return &g_base;
}

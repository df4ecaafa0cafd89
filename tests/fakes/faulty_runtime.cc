// Test fake (not product code): a stand-in libonnxruntime that forwards to the real ONNX Runtime named by
// $NNX_FAULTY_REAL_ORT but fails the way a broken release would, to prove the runtime matrix classifies it
// and still completes the other runtimes (tests/e2e/test_runtime_matrix.py). Built twice:
//   NNX_FAULT_CRASH_AT_RUN    abort()s in the first Run: the process dies while running a case (runtime-error)
//   NNX_FAULT_HANG_AT_SESSION sleeps forever in session creation: the process is killed for its time (load-error)
// Its version is the real one with "+crashing" / "+hanging" appended, so it is a cell of its own.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <onnxruntime_c_api.h>

#include "real_runtime.h"

namespace {

const OrtApi* g_real = nullptr;
OrtApi g_patched;
const OrtApiBase* g_real_base = nullptr;
std::string g_version;

#if defined(NNX_FAULT_CRASH_AT_RUN)
constexpr const char* kSuffix = "+crashing";
OrtStatus* ORT_API_CALL faulty_run(OrtSession*, const OrtRunOptions*, const char* const*, const OrtValue* const*,
                                   size_t, const char* const*, size_t, OrtValue**) NO_EXCEPTION {
  std::abort();
}
#elif defined(NNX_FAULT_HANG_AT_SESSION)
constexpr const char* kSuffix = "+hanging";
OrtStatus* ORT_API_CALL faulty_create_session_from_array(const OrtEnv*, const void*, size_t, const OrtSessionOptions*,
                                                         OrtSession**) NO_EXCEPTION {
  while (true) ::pause();
}
#else
#error "define NNX_FAULT_CRASH_AT_RUN or NNX_FAULT_HANG_AT_SESSION"
#endif

const OrtApi* ORT_API_CALL faulty_get_api(uint32_t version) NO_EXCEPTION {
  const OrtApi* real = g_real_base->GetApi(version);
  if (!real) return nullptr;
  g_real = real;
  g_patched = *real;
#if defined(NNX_FAULT_CRASH_AT_RUN)
  g_patched.Run = faulty_run;
#else
  g_patched.CreateSessionFromArray = faulty_create_session_from_array;
#endif
  return &g_patched;
}

const char* ORT_API_CALL faulty_version() NO_EXCEPTION { return g_version.c_str(); }

OrtApiBase g_base = {faulty_get_api, faulty_version};

}  // namespace

extern "C" const OrtApiBase* ORT_API_CALL OrtGetApiBase(void) NO_EXCEPTION {
  g_real_base = open_real_runtime("NNX_FAULTY_REAL_ORT");
  if (!g_real_base) return nullptr;
  g_version = std::string(g_real_base->GetVersionString()) + kSuffix;
  return &g_base;
}

// Test fake: a library that says it is ONNX Runtime 1.15.1 (C API 15), older than the oldest release the
// core supports (src/runtime/onnx_runtime.cc, kMinimumApiVersion). A real 1.15 is not among the packages we
// fetch, and the refusal must come before any API call: GetApi is never to be asked, so it returns nothing.
#include <onnxruntime_c_api.h>

namespace {

const OrtApi* ORT_API_CALL no_api(uint32_t /*version*/) NO_EXCEPTION { return nullptr; }
const char* ORT_API_CALL old_version() NO_EXCEPTION { return "1.15.1"; }
const OrtApiBase kBase{no_api, old_version};

}  // namespace

extern "C" const OrtApiBase* ORT_API_CALL OrtGetApiBase(void) NO_EXCEPTION { return &kBase; }

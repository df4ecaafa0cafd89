// `execute --reference torch` of a module record (doc/record-format.md §10; doc/profile-files.md,
// "Module profiles"): the worker rebuilds the module from its factory in a child forked for it and recomputes PyTorch's
// outputs on the record's stored inputs (worker/PROTOCOL.md, "module_reference"). The only time executing a
// module record runs code the record names: the user asked for it.
#pragma once
#include "stages/stage_context.h"

namespace nnx {

// After the load stage kept the verified stored tensors: fills context.module_references with PyTorch's
// outputs for every case expected to match, or leaves a case out and says why in
// context.module_reference_missing (the factory does not import or raises, the module's state differs
// from the record's, the worker could not answer).
void recompute_module_references(StageContext& context);

}  // namespace nnx

// nnx-conformance: the command line. Verbs: run, validate, verify, execute, report, matrix, matrix-merge
// (see doc/cli.md, "Command line"; cli/commands.h).
//
// The heap is tuned first (glibc mallopt): run and execute hold model-sized buffers one after another (the
// verified bytes, the model reader's parse, then ONNX Runtime's parse and initializers), and glibc's
// defaults give each large one fresh pages from the kernel and return them on free, so a 45 MiB model's
// pages were faulted in three times. Keeping freed memory in the heap (blocks up to 32 MiB from the heap,
// no trimming below 1 GiB, the heap grown 64 MiB at a time) lets each copy reuse the last one's pages
// (BENCHMARKS.md, "Module profiles": execute of resnet18). The Python module leaves its interpreter's heap alone.
#include <malloc.h>

#include "cli/commands.h"

namespace {

void keep_freed_memory_for_reuse() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest: bigger blocks are still mapped
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory_for_reuse();
  return nnx::cli::cli_main(argc, argv);
}

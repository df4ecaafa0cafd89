// The real command line with one fake behind the runtime seam (tests/fakes/pausing_runtime.h): a test can
// hold a run or an execute between verification and session creation. Never installed or shipped.
#include "cli/commands.h"
#include "fakes/pausing_runtime.h"

int main(int argc, char** argv) {
  nnx::cli::Seams seams;
  seams.open_runtime = nnx::fakes::pausing_runtime_opener(seams.open_runtime);
  return nnx::cli::cli_main(argc, argv, seams);
}

// nnx-conformance: the command line. Verbs: run, validate, verify, execute, report, matrix, matrix-merge
// (see doc/cli.md, "Command line"; cli/commands.h).
#include "cli/commands.h"

int main(int argc, char** argv) { return nnx::cli::cli_main(argc, argv); }

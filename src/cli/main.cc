// nnx-conformance: the command line. Verbs: run, validate, verify, execute (see README).
#include "cli/commands.h"

int main(int argc, char** argv) { return nnx::cli::cli_main(argc, argv); }

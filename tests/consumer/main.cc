// nnx_consumer REPORT ROOT [ONNXRUNTIME_LIBRARY]: validates, verifies and executes a record or report
// through the installed public header alone, prints what it found and exits with the exit code of the first
// step that refused (validate's, verify's: 14 for a hash-mismatch) or with execute's.
#include <nnx/conformance.h>

#include <iostream>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: nnx_consumer REPORT ROOT [ONNXRUNTIME_LIBRARY]\n";
    return 2;
  }
  try {
    std::cout << "nnx " << nnx::conformance::version() << "\n";
    const auto valid = nnx::conformance::validate(argv[1]);
    std::cout << "validate: " << (valid.ok ? "ok" : "refused") << " (" << valid.records << " record(s))\n";
    const auto verified = nnx::conformance::verify(argv[1], argv[2]);
    std::cout << "verify: " << (verified.ok ? "ok" : "refused");
    if (!verified.ok) std::cout << " (" << verified.failure << ", exit code " << verified.exit_code << ")";
    std::cout << "\n";
    for (const auto& problem : verified.problems) std::cout << "  " << problem << "\n";
    if (!valid.ok) return valid.exit_code;
    if (!verified.ok) return verified.exit_code;
    nnx::conformance::ExecuteSettings settings;
    if (argc > 3) settings.onnxruntime_library = argv[3];
    const auto execution = nnx::conformance::execute(argv[1], argv[2], settings);
    for (const auto& line : execution.summary) std::cout << line << "\n";
    std::cout << "execute: exit code " << execution.exit_code << ", " << execution.document.size() << " bytes\n";
    return execution.exit_code;
  } catch (const nnx::conformance::Refusal& refusal) {
    std::cerr << "refused: " << refusal.what() << "\n";
    return refusal.exit_code();
  }
}

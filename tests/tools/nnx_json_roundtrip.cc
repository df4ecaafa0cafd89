// nnx_json_roundtrip canonical|pretty FILE
// Reads FILE as strict JSON and prints dumps_canonical (or dumps_pretty) of it followed by one newline.
// Exit 0 on success, 1 when the file is refused (message on stderr), 2 on a usage error.
// Used by tests/e2e/test_json_writer_matches_python.py to compare the writer with Python's json.dumps.
#include <cstdio>
#include <iostream>
#include <string>

#include "base/json_python.h"
#include "base/json_strict.h"

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[1] : "";
  if (mode != "canonical" && mode != "pretty") {
    std::cerr << "usage: nnx_json_roundtrip canonical|pretty FILE\n";
    return 2;
  }
  try {
    const nnx::json value = nnx::read_strict_json_file(argv[2]);
    const std::string text = mode == "canonical" ? nnx::dumps_canonical(value) : nnx::dumps_pretty(value);
    std::cout << text << '\n' << std::flush;
    return std::cout ? 0 : 1;
  } catch (const nnx::JsonError& e) {
    std::cerr << "nnx_json_roundtrip: " << e.what() << '\n';
    return 1;
  }
}

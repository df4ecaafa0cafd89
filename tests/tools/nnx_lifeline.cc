// A parent and child over base/child_process.h's lifeline, for tests/e2e/test_hostile_hangs.py.
//
//   nnx_lifeline parent   starts `nnx_lifeline child` with spawn_in_own_group from a std::thread, joins that
//                         thread, prints the child's pid and "thread ended", then waits to be killed;
//   nnx_lifeline child    watches its lifeline (watch_lifeline) and waits: it ends only when its parent does.
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <thread>

#include "base/child_process.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "child") == 0) {
    nnx::watch_lifeline();
    while (true) ::pause();
  }
  if (argc != 2 || std::strcmp(argv[1], "parent") != 0) {
    std::cerr << "usage: nnx_lifeline parent|child\n";
    return 2;
  }
  pid_t child = -1;
  std::thread spawner([&] {
    child = nnx::spawn_in_own_group({"/proc/self/exe", "child"}, {nnx::ChildFd::open(0, "/dev/null", 0)}, nullptr,
                                    false);
  });
  spawner.join();
  std::cout << child << "\nthread ended" << std::endl;
  while (true) ::pause();
}

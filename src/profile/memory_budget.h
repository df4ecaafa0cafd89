// The memory a run's input cases cost and the limit they must fit (doc/safety.md, "Time and memory limits").
//
// The torch reference holds, per input case, about kReferenceBytesPerValue bytes for each value of the
// case's widest tensor: its input, each layer's output, the answer's base64 and its JSON text (measured:
// about 550 MiB for one case of 2^24 float32 values), and the references of every case are held together
// until the answer is read. `case_memory_bytes` is that figure for one case: a feed-forward case's batch times
// the widest of its input, hidden and output widths; a module case's input values (its outputs are not
// known before it runs; the per-value cost stands for them and for the tensors the record stores).
//
// `machine_memory_limit` is half of MemAvailable (/proc/meminfo; the physical memory where it cannot be
// read); `run --memory-limit MIB` sets another. `memory_problems` names each case over a quarter of the
// limit (the per-case limit) and the run whose cases together are over the limit (the total: every
// profile's cases, which `run --jobs` may hold at once); nothing may run unless it is empty.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace nnx {

inline constexpr std::uint64_t kReferenceBytesPerValue = 36;
inline constexpr std::uint64_t kCasesPerMemoryLimit = 4;  // one case may take a quarter of the limit

std::uint64_t machine_memory_limit();
std::uint64_t case_memory_bytes(const Profile& profile, const InputCase& c);
// `limit_source` says where the limit came from ("half of the memory available", "the limit given"), with the
// front end's way to set another (base/front_end.h).
std::vector<std::string> memory_problems(const std::vector<Profile>& profiles, std::uint64_t limit,
                                         const std::string& limit_source);

}  // namespace nnx

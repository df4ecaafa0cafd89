// The bounds of the command line's numeric flags, checked as typed and said in words (doc/cli.md, "Command
// line"): `run --jobs` (at least 1), `matrix --jobs` (1 to 256) and the time limits `matrix --timeout`
// and `execute --timeout` (0.1 to 604800 s, a finite number: "nan" and "inf" are refused). Each is a CLI11 validator, so a bad value is a usage error
// (exit 2) before anything runs: "--jobs: must be at least 1, not 0".
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace nnx::cli {

inline constexpr std::int64_t kNoUpperBound = 2147483647;  // an int's largest value

// "" when `text` is a whole number from `low` to `high`; else what is wrong with it.
std::string whole_number_problem(const std::string& text, std::int64_t low, std::int64_t high);
// "" when `text` is a finite number of seconds from `low` to `high`; else what is wrong with it.
std::string seconds_problem(const std::string& text, double low, double high);

CLI::Validator whole_number_from(std::int64_t low, std::int64_t high = kNoUpperBound);
CLI::Validator seconds_from(double low, double high);

// The bound of a time limit flag (0.1 to 604800 s, a week), and the limit it sets.
CLI::Validator timeout_seconds();
std::chrono::milliseconds timeout_of(double seconds);

}  // namespace nnx::cli

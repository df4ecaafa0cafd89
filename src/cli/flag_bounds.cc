#include "cli/flag_bounds.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace nnx::cli {
namespace {

std::string range_words(std::int64_t low, std::int64_t high) {
  return high == kNoUpperBound ? "of at least " + std::to_string(low)
                               : "from " + std::to_string(low) + " to " + std::to_string(high);
}

// A bound as people write it: 0.1, 600, 604800.
std::string number_text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

std::string whole_number_problem(const std::string& text, std::int64_t low, std::int64_t high) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc::result_out_of_range && stop == end) {
    return "must be a whole number " + range_words(low, high) + ", not " + text;
  }
  if (error != std::errc() || stop != end) return "must be a whole number " + range_words(low, high) + ", not '" + text + "'";
  if (value < low) return "must be at least " + std::to_string(low) + ", not " + text;
  if (value > high) return "must be at most " + std::to_string(high) + ", not " + text;
  return "";
}

std::string seconds_problem(const std::string& text, double low, double high) {
  const std::string range = "a number of seconds from " + number_text(low) + " to " + number_text(high);
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end || !std::isfinite(value)) return "must be " + range + ", not '" + text + "'";
  if (value < low || value > high) return "must be " + range + ", not " + text;
  return "";
}

CLI::Validator whole_number_from(std::int64_t low, std::int64_t high) {
  return CLI::Validator([low, high](std::string& text) { return whole_number_problem(text, low, high); },
                        "INT in [" + std::to_string(low) + " - " + std::to_string(high) + "]");
}

CLI::Validator seconds_from(double low, double high) {
  return CLI::Validator([low, high](std::string& text) { return seconds_problem(text, low, high); },
                        "SECONDS in [" + number_text(low) + " - " + number_text(high) + "]");
}

CLI::Validator timeout_seconds() { return seconds_from(0.1, 604800.0); }

std::chrono::milliseconds timeout_of(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

}  // namespace nnx::cli

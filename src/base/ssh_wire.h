// The SSH wire encoding (RFC 4251 §5) and the armored text OpenSSH wraps it in, as the signing files use
// them (base/ssh_key.h, base/sshsig.h): big-endian uint32, a string as its uint32 length and its bytes, and
// base64 between "-----BEGIN <LABEL>-----" and "-----END <LABEL>-----" lines, 70 columns as OpenSSH writes.
//
// `SshReader` reads bounded: every length is checked against what is left before anything is taken, so a
// hostile length never reads past the buffer or allocates; a short or malformed input is a ConformanceError
// naming `what` is being read and what is wrong. `unarmor` refuses a missing or foreign label, characters
// outside base64 and text longer than `kMaxArmoredBytes`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace nnx {

inline constexpr std::size_t kMaxArmoredBytes = 64 * 1024;

class SshWriter {
 public:
  void u32(std::uint32_t value);
  void string(std::string_view bytes);
  void raw(std::string_view bytes) { out_.append(bytes); }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

class SshReader {
 public:
  SshReader(std::string_view bytes, std::string what) : rest_(bytes), what_(std::move(what)) {}
  std::uint32_t u32();
  std::string_view string();
  // Reads `expected.size()` bytes and refuses anything else, naming `field`.
  void expect_raw(std::string_view expected, std::string_view field);
  void expect_string(std::string_view expected, std::string_view field);
  std::string_view rest() const { return rest_; }
  // Refuses trailing bytes.
  void expect_end();
  [[noreturn]] void refuse(const std::string& problem) const;

 private:
  std::string_view take(std::size_t count);
  std::string_view rest_;
  std::string what_;
};

std::string base64_encode(std::string_view bytes);
// Refuses anything but canonical base64 (padding included), naming `what`.
std::string base64_decode(std::string_view text, const std::string& what);

std::string armor(std::string_view label, std::string_view bytes);
std::string unarmor(std::string_view text, std::string_view label, const std::string& what);

}  // namespace nnx

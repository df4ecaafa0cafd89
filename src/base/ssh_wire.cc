#include "base/ssh_wire.h"

#include <openssl/evp.h>

#include "base/error.h"

namespace nnx {

void SshWriter::u32(std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out_.push_back(static_cast<char>((value >> shift) & 0xff));
}

void SshWriter::string(std::string_view bytes) {
  u32(static_cast<std::uint32_t>(bytes.size()));
  out_.append(bytes);
}

void SshReader::refuse(const std::string& problem) const { throw ConformanceError(what_ + ": " + problem); }

std::string_view SshReader::take(std::size_t count) {
  if (count > rest_.size()) {
    refuse("truncated (" + std::to_string(count) + " bytes wanted, " + std::to_string(rest_.size()) + " left)");
  }
  const std::string_view taken = rest_.substr(0, count);
  rest_.remove_prefix(count);
  return taken;
}

std::uint32_t SshReader::u32() {
  const std::string_view b = take(4);
  std::uint32_t value = 0;
  for (char c : b) value = (value << 8) | static_cast<unsigned char>(c);
  return value;
}

std::string_view SshReader::string() { return take(u32()); }

void SshReader::expect_raw(std::string_view expected, std::string_view field) {
  if (take(expected.size()) != expected) refuse(std::string(field) + " is not \"" + std::string(expected) + "\"");
}

void SshReader::expect_string(std::string_view expected, std::string_view field) {
  if (string() != expected) refuse(std::string(field) + " is not \"" + std::string(expected) + "\"");
}

void SshReader::expect_end() {
  if (!rest_.empty()) refuse(std::to_string(rest_.size()) + " unexpected bytes at the end");
}

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string base64_decode(std::string_view text, const std::string& what) {
  if (text.size() % 4 != 0 || text.size() > kMaxArmoredBytes) {
    throw ConformanceError(what + ": not base64 (its length is " + std::to_string(text.size()) + ")");
  }
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  for (std::size_t i = 0; i + padding < text.size(); ++i) {
    const char c = text[i];
    const bool alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    if (!alphabet) throw ConformanceError(what + ": not base64 (character " + std::to_string(i) + ")");
  }
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) throw ConformanceError(what + ": not base64");
  out.resize(static_cast<std::size_t>(n) - padding);
  return out;
}

std::string armor(std::string_view label, std::string_view bytes) {
  const std::string encoded = base64_encode(bytes);
  std::string out = "-----BEGIN " + std::string(label) + "-----\n";
  for (std::size_t i = 0; i < encoded.size(); i += 70) out += encoded.substr(i, 70) + "\n";
  return out + "-----END " + std::string(label) + "-----\n";
}

std::string unarmor(std::string_view text, std::string_view label, const std::string& what) {
  if (text.size() > kMaxArmoredBytes) throw ConformanceError(what + ": more than " + std::to_string(kMaxArmoredBytes) + " bytes");
  const std::string begin = "-----BEGIN " + std::string(label) + "-----";
  const std::string end = "-----END " + std::string(label) + "-----";
  const std::size_t at = text.find(begin);
  const std::size_t stop = text.find(end);
  if (at == std::string_view::npos || stop == std::string_view::npos || stop < at) {
    throw ConformanceError(what + ": no " + begin + " ... " + end + " block");
  }
  std::string body;
  for (char c : text.substr(at + begin.size(), stop - at - begin.size())) {
    if (c != '\n' && c != '\r') body.push_back(c);
  }
  return base64_decode(body, what);
}

}  // namespace nnx

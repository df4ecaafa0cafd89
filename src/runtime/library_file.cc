#include "runtime/library_file.h"

#include <elf.h>
#include <endian.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

// Defined by the linker (GNU ld, gold, lld) in every executable and shared object: its own ELF header.
extern "C" const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

namespace nnx {
namespace {

using Header = ElfW(Ehdr);
using ProgramHeader = ElfW(Phdr);
using SectionHeader = ElfW(Shdr);
using Symbol = ElfW(Sym);

// This very binary's own ELF header (the linker's __ehdr_start, above): its class, byte order and machine
// are this machine's.
const unsigned char kNativeClass = __ehdr_start.e_ident[EI_CLASS];
const unsigned char kNativeByteOrder = __ehdr_start.e_ident[EI_DATA];
const std::uint16_t kNativeMachine = __ehdr_start.e_machine;

// A symbol table larger than this is not a library's (ONNX Runtime's exports a few hundred symbols).
constexpr std::uint64_t kMaxTableBytes = std::uint64_t{64} << 20;

std::string machine_name(std::uint16_t machine) {
  switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "AArch64";
    case EM_386: return "i386";
    case EM_ARM: return "ARM";
    case EM_PPC64: return "PowerPC64";
    case EM_S390: return "s390";
    case EM_RISCV: return "RISC-V";
    default: return "machine " + std::to_string(machine);
  }
}

std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "something other than a file";
}

std::string not_regular(mode_t mode) { return "is " + file_kind(mode) + ", not a regular library file"; }

struct Refusal {
  std::string reason;
};

class File {
 public:
  explicit File(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw Refusal{std::string("cannot be read: ") + std::strerror(errno)};
    if (!S_ISREG(st.st_mode)) throw Refusal{not_regular(st.st_mode)};  // never opened: a device's open may act
    // O_NONBLOCK: should a FIFO take the file's place after the stat, the open does not wait for a writer.
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) throw Refusal{std::string("cannot be read: ") + std::strerror(errno)};
    if (::fstat(fd_, &st) != 0) throw Refusal{std::string("cannot be read: ") + std::strerror(errno)};
    if (!S_ISREG(st.st_mode)) throw Refusal{not_regular(st.st_mode)};
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  ~File() { ::close(fd_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  std::uint64_t size() const { return size_; }

  // `count` bytes at `offset`, which must lie inside the file (`what` names them when they do not).
  std::vector<unsigned char> read(std::uint64_t offset, std::uint64_t count, std::string_view what) const {
    if (offset > size_ || count > size_ - offset) {
      throw Refusal{"is truncated or damaged: its " + std::string(what) + " end past its " + std::to_string(size_) +
                    " bytes"};
    }
    std::vector<unsigned char> bytes(count);
    std::uint64_t done = 0;
    while (done < count) {
      const ssize_t n = ::pread(fd_, bytes.data() + done, count - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw Refusal{"is truncated: it ended while being read"};
      done += static_cast<std::uint64_t>(n);
    }
    return bytes;
  }

  // A table of `count` entries of `entry_size` bytes (at least sizeof(T)) at `offset`, each as a T.
  template <typename T>
  std::vector<T> table(std::uint64_t offset, std::uint64_t count, std::uint64_t entry_size, std::string_view what) const {
    if (count == 0) return {};
    if (entry_size < sizeof(T) || count > kMaxTableBytes / entry_size) {
      throw Refusal{"is damaged: its " + std::string(what) + " have an impossible size"};
    }
    const std::vector<unsigned char> bytes = read(offset, count * entry_size, what);
    std::vector<T> out(count);
    for (std::uint64_t i = 0; i < count; ++i) std::memcpy(&out[i], bytes.data() + i * entry_size, sizeof(T));
    return out;
  }

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

Header elf_header(const File& file) {
  if (file.size() < EI_NIDENT) throw Refusal{"is not an ELF file (" + std::to_string(file.size()) + " bytes)"};
  const std::vector<unsigned char> ident = file.read(0, EI_NIDENT, "identification");
  if (std::memcmp(ident.data(), ELFMAG, SELFMAG) != 0) throw Refusal{"is not an ELF file"};
  if (ident[EI_CLASS] != kNativeClass) {
    throw Refusal{std::string("is a ") + (ident[EI_CLASS] == ELFCLASS64 ? "64" : "32") + "-bit ELF file; this machine loads " +
                  (kNativeClass == ELFCLASS64 ? "64" : "32") + "-bit libraries"};
  }
  if (ident[EI_DATA] != kNativeByteOrder) throw Refusal{"is an ELF file of the other byte order"};
  Header header{};
  const std::vector<unsigned char> bytes = file.read(0, sizeof header, "ELF header");
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.e_machine != kNativeMachine) {
    throw Refusal{"is an ELF file for " + machine_name(header.e_machine) + "; this machine is " +
                  machine_name(kNativeMachine)};
  }
  if (header.e_type != ET_DYN) throw Refusal{"is an ELF file but not a shared library"};
  return header;
}

// Every byte the loader maps must be in the file: a truncated file is refused here, not a SIGBUS later.
void check_segments(const File& file, const Header& header) {
  const auto segments = file.table<ProgramHeader>(header.e_phoff, header.e_phnum, header.e_phentsize, "program headers");
  if (segments.empty()) throw Refusal{"is damaged: it has no program headers"};
  for (const ProgramHeader& segment : segments) {
    if (segment.p_type == PT_LOAD || segment.p_type == PT_DYNAMIC) {
      file.read(segment.p_offset, 0, "segments");  // the start inside the file
      if (segment.p_filesz > file.size() - segment.p_offset) {
        throw Refusal{"is truncated or damaged: its segments end past its " + std::to_string(file.size()) + " bytes"};
      }
    }
  }
}

bool defines(const Symbol& symbol, const std::vector<unsigned char>& names, std::string_view wanted) {
  if (symbol.st_shndx == SHN_UNDEF || symbol.st_name >= names.size()) return false;
  const unsigned char binding = ELF64_ST_BIND(symbol.st_info);
  if (binding != STB_GLOBAL && binding != STB_WEAK) return false;
  const auto* start = reinterpret_cast<const char*>(names.data()) + symbol.st_name;
  const std::size_t room = names.size() - symbol.st_name;
  return ::strnlen(start, room) == wanted.size() && std::string_view(start, wanted.size()) == wanted;
}

// The sections inside the file, and the dynamic symbol table (.dynsym, with its string table) defining `wanted`.
void check_sections_and_symbol(const File& file, const Header& header, std::string_view wanted) {
  const auto sections = file.table<SectionHeader>(header.e_shoff, header.e_shnum, header.e_shentsize, "section headers");
  if (sections.empty()) throw Refusal{"is damaged: it has no section headers"};
  const SectionHeader* dynsym = nullptr;
  for (const SectionHeader& section : sections) {
    if (section.sh_type != SHT_NOBITS && section.sh_size > 0) {
      file.read(section.sh_offset, 0, "sections");
      if (section.sh_size > file.size() - section.sh_offset) {
        throw Refusal{"is truncated or damaged: its sections end past its " + std::to_string(file.size()) + " bytes"};
      }
    }
    if (section.sh_type == SHT_DYNSYM && !dynsym) dynsym = &section;
  }
  if (!dynsym || dynsym->sh_link >= sections.size()) throw Refusal{"has no dynamic symbol table"};
  const SectionHeader& strings = sections[dynsym->sh_link];
  if (strings.sh_size > kMaxTableBytes) throw Refusal{"is damaged: its symbol names have an impossible size"};
  const std::vector<unsigned char> names = file.read(strings.sh_offset, strings.sh_size, "symbol names");
  const std::uint64_t entry = dynsym->sh_entsize ? dynsym->sh_entsize : sizeof(Symbol);
  const auto symbols = file.table<Symbol>(dynsym->sh_offset, dynsym->sh_size / entry, entry, "dynamic symbols");
  for (const Symbol& symbol : symbols) {
    if (defines(symbol, names, wanted)) return;
  }
  throw Refusal{"does not export " + std::string(wanted) + " (not an ONNX Runtime library)"};
}

}  // namespace

std::optional<std::string> library_file_problem(const std::string& path) {
  if (path.find('/') == std::string::npos) return std::nullopt;  // the loader's name: found by the loader
  try {
    const File file(path);
    const Header header = elf_header(file);
    check_segments(file, header);
    check_sections_and_symbol(file, header, "OrtGetApiBase");
    return std::nullopt;
  } catch (const Refusal& refusal) {
    return refusal.reason;
  }
}

}  // namespace nnx

#include "io/file_format.hpp"

#include <cstring>

#include "io/atomic_file.hpp"
#include "io/input_file.hpp"
#include "io/serial.hpp"
#include "util/error.hpp"
#include "util/version.hpp"

namespace libvbmc {

namespace {
const char* magic(FileKind kind) { return kind == FileKind::checkpoint ? "VBMCCKPT" : "VBMCPOST"; }
const char* kind_name(FileKind kind) { return kind == FileKind::checkpoint ? "checkpoint" : "posterior"; }

// The longest library-version text a header may declare (the writer's is a few bytes).
constexpr uint64_t kMaxVersionText = 256;

// The next n bytes of the header; throws Error(format) if the file ends first.
std::vector<uint8_t> next_bytes(InputFile& file, size_t n, const char* field) {
    std::vector<uint8_t> bytes;
    if (file.read(n, bytes) < n) throw_error(Code::format, "\"" + file.path() + "\" is truncated within its header (" + field + ")");
    return bytes;
}

// The first 8 bytes name the kind of file: anything else is refused before reading further.
void check_magic(InputFile& file, FileKind kind) {
    std::vector<uint8_t> bytes;
    if (file.read(8, bytes) < 8 || std::memcmp(bytes.data(), magic(kind), 8) != 0)
        throw_error(Code::format, "\"" + file.path() + "\" is not a libvbmc " + kind_name(kind) + " file (bad magic number)");
}

void check_format_version(InputFile& file) {
    const uint32_t version = Reader(next_bytes(file, 4, "format version").data(), 4).u32();
    if (version != kFileFormatVersion)
        throw_error(Code::format, "\"" + file.path() + "\" has format version " + std::to_string(version) +
                                      "; this library reads version " + std::to_string(kFileFormatVersion));
}

// The version text of the library that wrote the file, at most kMaxVersionText bytes.
std::string read_writer_version(InputFile& file) {
    const uint64_t n = Reader(next_bytes(file, 8, "version text length").data(), 8).u64();
    if (n > kMaxVersionText)
        throw_error(Code::format, "\"" + file.path() + "\" declares a library-version text of " + std::to_string(n) +
                                      " bytes; at most " + std::to_string(kMaxVersionText) + " are allowed");
    const std::vector<uint8_t> text = next_bytes(file, static_cast<size_t>(n), "version text");
    return std::string(text.begin(), text.end());
}

[[noreturn]] void throw_wrong_length(const InputFile& file, uint64_t length, uint64_t left) {
    throw_error(Code::format, "\"" + file.path() + "\" is truncated or has trailing bytes (payload length " +
                                  std::to_string(length) + ", " + std::to_string(left) + " bytes left)");
}

// The payload and its checksum: exactly length + 4 bytes must follow the header. A regular file's
// size is checked before anything is allocated; a stream is read no further than the byte after.
std::vector<uint8_t> read_body(InputFile& file, uint64_t length) {
    const uint64_t left = file.remaining();
    if (file.regular() && (left < 4 || length != left - 4)) throw_wrong_length(file, length, left);
    const uint64_t expected = length > UINT64_MAX - 4 ? UINT64_MAX : length + 4;
    std::vector<uint8_t> body;
    if (file.regular()) body.reserve(static_cast<size_t>(expected));
    const uint64_t got = file.read(expected, body);
    if (got != expected) throw_wrong_length(file, length, got);
    std::vector<uint8_t> after;
    if (file.read(1, after) != 0)
        throw_error(Code::format, "\"" + file.path() + "\" has trailing bytes after its payload of " + std::to_string(length) +
                                      " bytes and checksum");
    return body;
}
}  // namespace

void write_container(const std::string& path, FileKind kind, const std::vector<uint8_t>& payload) {
    Writer header;
    for (int i = 0; i < 8; ++i) header.u8(static_cast<uint8_t>(magic(kind)[i]));
    header.u32(kFileFormatVersion);
    header.text(kLibraryVersion);
    header.u64(payload.size());
    Writer trailer;
    trailer.u32(crc32(payload.data(), payload.size()));
    replace_file(path, {&header.bytes(), &payload, &trailer.bytes()});
}

std::vector<uint8_t> read_container(const std::string& path, FileKind kind) {
    InputFile file(path);
    check_magic(file, kind);
    check_format_version(file);
    const std::string writer_version = read_writer_version(file);
    const uint64_t length = Reader(next_bytes(file, 8, "payload length").data(), 8).u64();
    std::vector<uint8_t> body = read_body(file, length);
    const uint8_t* payload = body.data();
    Reader trailer(payload + length, 4);
    if (crc32(payload, length) != trailer.u32())
        throw_error(Code::format, "\"" + path + "\" is corrupted (checksum mismatch; written by libvbmc " + writer_version + ")");
    body.resize(length);
    return body;
}

}  // namespace libvbmc

#include "io/file_format.hpp"


#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/atomic_file.hpp"
#include "io/serial.hpp"
#include "util/error.hpp"
#include "util/version.hpp"

namespace libvbmc {

namespace {
const char* magic(FileKind kind) { return kind == FileKind::checkpoint ? "VBMCCKPT" : "VBMCPOST"; }
const char* kind_name(FileKind kind) { return kind == FileKind::checkpoint ? "checkpoint" : "posterior"; }

std::string system_error() { return std::strerror(errno); }
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
    FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) throw_error(Code::io, "cannot open \"" + path + "\": " + system_error());
    std::vector<uint8_t> bytes;
    uint8_t buffer[65536];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) bytes.insert(bytes.end(), buffer, buffer + n);
    const bool read_error = std::ferror(file) != 0;
    std::fclose(file);
    if (read_error) throw_error(Code::io, "cannot read \"" + path + "\"");

    const std::string what = std::string("\"") + path + "\" is not a libvbmc " + kind_name(kind) + " file";
    if (bytes.size() < 8 || std::memcmp(bytes.data(), magic(kind), 8) != 0) throw_error(Code::format, what + " (bad magic number)");
    Reader in(bytes.data() + 8, bytes.size() - 8);
    const uint32_t version = in.u32();
    if (version != kFileFormatVersion)
        throw_error(Code::format, "\"" + path + "\" has format version " + std::to_string(version) +
                                      "; this library reads version " + std::to_string(kFileFormatVersion));
    const std::string writer_version = in.text();
    const uint64_t length = in.u64();
    if (in.remaining() < 4 || length != in.remaining() - 4)
        throw_error(Code::format, "\"" + path + "\" is truncated or has trailing bytes (payload length " +
                                      std::to_string(length) + ", " + std::to_string(in.remaining()) + " bytes left)");
    const uint8_t* payload = bytes.data() + (bytes.size() - in.remaining());
    Reader trailer(payload + length, 4);
    if (crc32(payload, length) != trailer.u32())
        throw_error(Code::format, "\"" + path + "\" is corrupted (checksum mismatch; written by libvbmc " + writer_version + ")");
    return std::vector<uint8_t>(payload, payload + length);
}

}  // namespace libvbmc

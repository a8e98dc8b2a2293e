#include "io/file_format.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

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

    const std::string temp = path + ".tmp." + std::to_string(static_cast<long>(getpid()));
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw_error(Code::io, "cannot create \"" + temp + "\": " + system_error());
    auto write_all = [&](const std::vector<uint8_t>& bytes) {
        size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            done += static_cast<size_t>(n);
        }
        return true;
    };
    const bool ok = write_all(header.bytes()) && write_all(payload) && write_all(trailer.bytes()) && ::fsync(fd) == 0;
    const std::string error = ok ? "" : system_error();
    ::close(fd);
    if (!ok) {
        ::unlink(temp.c_str());
        throw_error(Code::io, "cannot write \"" + temp + "\": " + error);
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string rename_error = system_error();
        ::unlink(temp.c_str());
        throw_error(Code::io, "cannot rename \"" + temp + "\" to \"" + path + "\": " + rename_error);
    }
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

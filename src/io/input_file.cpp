#include "io/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/error.hpp"

namespace libvbmc {

namespace {
// Bytes asked of the system per read call, and so the most added to a vector ahead of its data.
constexpr uint64_t kChunk = 65536;
}  // namespace

InputFile::InputFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) throw_error(Code::io, "cannot open \"" + path + "\": " + std::strerror(errno));
    struct stat status;
    if (::fstat(fd_, &status) != 0) {
        const int error = errno;
        ::close(fd_);
        throw_error(Code::io, "cannot inspect \"" + path + "\": " + std::strerror(error));
    }
    regular_ = S_ISREG(status.st_mode);
    size_ = regular_ ? static_cast<uint64_t>(status.st_size) : 0;
}

InputFile::~InputFile() { ::close(fd_); }

uint64_t InputFile::read(uint64_t n, std::vector<uint8_t>& out) {
    uint64_t done = 0;
    while (done < n) {
        const size_t start = out.size(), chunk = static_cast<size_t>(std::min(n - done, kChunk));
        out.resize(start + chunk);
        const ssize_t got = ::read(fd_, out.data() + start, chunk);
        const int error = errno;
        out.resize(start + static_cast<size_t>(std::max<ssize_t>(got, 0)));
        if (got < 0 && error == EINTR) continue;
        if (got < 0) throw_error(Code::io, "cannot read \"" + path_ + "\": " + std::strerror(error));
        if (got == 0) break;
        done += static_cast<uint64_t>(got);
    }
    position_ += done;
    return done;
}

}  // namespace libvbmc

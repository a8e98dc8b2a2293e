// A file read once from its start, in steps whose size the reader chooses, so that a loader
// never reads or allocates more than the format lets it expect: regular files report their size
// (fstat) before anything is read; pipes and devices are read only as far as asked, and memory
// grows with the bytes that actually arrive, never with what a header merely declares.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace libvbmc {

class InputFile {
public:
    // Opens path for reading. Throws Error(io) naming the path and the system error.
    explicit InputFile(const std::string& path);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    // Appends the next n bytes to out, fewer only where the file ends; returns how many were
    // appended. Throws Error(io) on a read error.
    uint64_t read(uint64_t n, std::vector<uint8_t>& out);
    // Bytes not yet read of a regular file (0 if it shrank); meaningful only when regular().
    uint64_t remaining() const { return size_ > position_ ? size_ - position_ : 0; }
    bool regular() const { return regular_; }
    const std::string& path() const { return path_; }

private:
    std::string path_;
    int fd_ = -1;
    bool regular_ = false;
    uint64_t size_ = 0;
    uint64_t position_ = 0;
};

}  // namespace libvbmc

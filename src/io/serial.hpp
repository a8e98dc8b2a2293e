// Binary serialisation used by checkpoints and posterior files. Values are written
// little-endian whatever the host; a Reader checks every length against what is left and
// throws Error(format) on truncated or implausible input, never reading out of bounds.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "linalg/matrix.hpp"

namespace libvbmc {

class Writer {
public:
    void u8(uint8_t v) { bytes_.push_back(v); }
    void u32(uint32_t v);
    void u64(uint64_t v);
    void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
    void f64(double v);
    void boolean(bool v) { u8(v ? 1 : 0); }
    void text(const std::string& s);
    void doubles(const std::vector<double>& v);
    void ints(const std::vector<int>& v);
    void matrix(const Matrix& m);
    const std::vector<uint8_t>& bytes() const { return bytes_; }

private:
    std::vector<uint8_t> bytes_;
};

class Reader {
public:
    Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    uint8_t u8();
    uint32_t u32();
    uint64_t u64();
    int64_t i64() { return static_cast<int64_t>(u64()); }
    // An int64 that must lie in [lo, hi]; `what` names the field in the error message.
    int64_t bounded(int64_t lo, int64_t hi, const char* what);
    double f64();
    bool boolean();
    std::string text();
    std::vector<double> doubles();
    std::vector<int> ints();
    Matrix matrix();
    size_t remaining() const { return size_ - pos_; }

private:
    void need(size_t n, const char* what);
    size_t count(size_t element_size, const char* what);
    const uint8_t* data_;
    size_t size_;
    size_t pos_ = 0;
};

// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) of a byte range.
uint32_t crc32(const uint8_t* data, size_t size);

}  // namespace libvbmc

#include "io/serial.hpp"

#include <cstring>

#include "util/error.hpp"

namespace libvbmc {

void Writer::u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void Writer::u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void Writer::f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
}

void Writer::text(const std::string& s) {
    u64(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
}

void Writer::doubles(const std::vector<double>& v) {
    u64(v.size());
    for (double x : v) f64(x);
}

void Writer::ints(const std::vector<int>& v) {
    u64(v.size());
    for (int x : v) i64(x);
}

void Writer::matrix(const Matrix& m) {
    i64(m.rows);
    i64(m.cols);
    for (double x : m.data) f64(x);
}

void Reader::need(size_t n, const char* what) {
    if (n > size_ - pos_)
        throw_error(Code::format, std::string("the file ends early while reading ") + what);
}

uint8_t Reader::u8() {
    need(1, "a byte");
    return data_[pos_++];
}

uint32_t Reader::u32() {
    need(4, "a 32-bit field");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(data_[pos_++]) << (8 * i);
    return v;
}

uint64_t Reader::u64() {
    need(8, "a 64-bit field");
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(data_[pos_++]) << (8 * i);
    return v;
}

int64_t Reader::bounded(int64_t lo, int64_t hi, const char* what) {
    const int64_t v = i64();
    if (v < lo || v > hi)
        throw_error(Code::format, std::string("field ") + what + " = " + std::to_string(v) +
                               " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
}

double Reader::f64() {
    const uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

bool Reader::boolean() {
    const uint8_t v = u8();
    if (v > 1) throw_error(Code::format, "a boolean field holds " + std::to_string(v));
    return v == 1;
}

size_t Reader::count(size_t element_size, const char* what) {
    const uint64_t n = u64();
    if (n > (size_ - pos_) / element_size)
        throw_error(Code::format, std::string("the length of ") + what + " exceeds the file");
    return static_cast<size_t>(n);
}

std::string Reader::text() {
    const size_t n = count(1, "a text field");
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
}

std::vector<double> Reader::doubles() {
    const size_t n = count(8, "an array");
    std::vector<double> v(n);
    for (auto& x : v) x = f64();
    return v;
}

std::vector<int> Reader::ints() {
    const size_t n = count(8, "an integer array");
    std::vector<int> v(n);
    for (auto& x : v) x = static_cast<int>(bounded(INT32_MIN, INT32_MAX, "integer array entry"));
    return v;
}

Matrix Reader::matrix() {
    const int64_t rows = bounded(0, INT32_MAX, "matrix rows");
    const int64_t cols = bounded(0, INT32_MAX, "matrix columns");
    if (rows > 0 && static_cast<uint64_t>(cols) > remaining() / 8 / static_cast<uint64_t>(rows))
        throw_error(Code::format, "a matrix is larger than the file");
    Matrix m(static_cast<int>(rows), static_cast<int>(cols));
    for (auto& x : m.data) x = f64();
    return m;
}

uint32_t crc32(const uint8_t* data, size_t size) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < size; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

}  // namespace libvbmc

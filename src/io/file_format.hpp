// The container of checkpoint and posterior files:
//   magic (8 bytes) | format version (u32) | library version (text) | payload length (u64) |
//   payload | CRC-32 of the payload (u32)
// Read header first: a file of another kind is refused after its 8-byte magic number, a version
// text longer than 256 bytes is refused, and the declared payload length is checked against a
// regular file's size before anything is allocated; a pipe or device is read no further than the
// byte after the declared checksum, and memory grows only with the bytes that actually arrive.
// Written atomically by replace_file (io/atomic_file.hpp): each writer's own temporary beside the
// target, synced, renamed over it; concurrent writers of one path are safe and the last one wins.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace libvbmc {

enum class FileKind { checkpoint, posterior };

constexpr uint32_t kFileFormatVersion = 13;

// Write payload to path atomically. Throws Error(io) naming the file and the system error.
void write_container(const std::string& path, FileKind kind, const std::vector<uint8_t>& payload);

// Read and verify a file; returns the payload. Throws Error(io) if it cannot be read,
// Error(format) if it is not a file of this kind, is truncated, has trailing bytes, is corrupted
// or of a newer format. Reads no further than the header allows (see the top of this file).
std::vector<uint8_t> read_container(const std::string& path, FileKind kind);

}  // namespace libvbmc

// The container of checkpoint and posterior files:
//   magic (8 bytes) | format version (u32) | library version (text) | payload length (u64) |
//   payload | CRC-32 of the payload (u32)
// Written atomically: a temporary file beside the target, flushed and synced, then renamed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace libvbmc {

enum class FileKind { checkpoint, posterior };

constexpr uint32_t kFileFormatVersion = 4;

// Write payload to path atomically. Throws Error(io) naming the path and the system error.
void write_container(const std::string& path, FileKind kind, const std::vector<uint8_t>& payload);

// Read and verify a file; returns the payload. Throws Error(io) if it cannot be read,
// Error(format) if it is not a file of this kind, is truncated, corrupted or of a newer format.
std::vector<uint8_t> read_container(const std::string& path, FileKind kind);

}  // namespace libvbmc

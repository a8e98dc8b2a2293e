// Atomic replacement of a file. Each call writes its own temporary beside the target — anonymous
// (Linux O_TMPFILE) until it is complete, else named "<target>.tmp.XXXXXX" and created with O_EXCL —
// syncs it, gives it a free name, renames it over the target and syncs the directory. Concurrent
// writers of one target never share a temporary: each rename installs a complete file and the last
// one wins. A writer killed mid-way leaves the old target intact; what it can leave behind is a
// "<target>.tmp.XXXXXX" file, only between the link and the rename when O_TMPFILE works (the file is
// then complete), from creation to rename otherwise.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace libvbmc {

// Replace the file at path with the concatenation of pieces. Throws Error(io) naming the file and
// the system error; the target is then as it was and no temporary remains.
void replace_file(const std::string& path, std::initializer_list<const std::vector<uint8_t>*> pieces);

}  // namespace libvbmc

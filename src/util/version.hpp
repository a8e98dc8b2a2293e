// The library version as text, from the public header's VBMC_VERSION_* macros (passed by Meson
// as VBMC_VERSION_STRING, so the header stays the one source).
#pragma once

namespace libvbmc {
constexpr const char* kLibraryVersion = VBMC_VERSION_STRING;
}  // namespace libvbmc

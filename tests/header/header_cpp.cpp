// The public header on its own in C++ (-pedantic -Werror): extern "C" linkage, no C-only syntax.
#include <vbmc/vbmc.h>

#include <cstring>

int main() { return std::strcmp(vbmc_status_name(VBMC_E_ARG), "VBMC_E_ARG") == 0 ? 0 : 1; }

/* The public header on its own, as strict C99 (-std=c99 -pedantic -Werror): every declaration and
 * comment must be C99, and nothing may rely on another header included first. */
#include <vbmc/vbmc.h>

#include <string.h>

int main(void) { return strcmp(vbmc_status_name(VBMC_E_ARG), "VBMC_E_ARG") == 0 ? 0 : 1; }

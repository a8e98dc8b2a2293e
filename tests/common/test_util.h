/* Shared helpers for the cmocka tests (usable from C and C++). */
#ifndef VBMC_TEST_UTIL_H
#define VBMC_TEST_UTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef __cplusplus
extern "C" {
#endif
#include <cmocka.h>
#ifdef __cplusplus
}
#endif

/* |actual - expected| <= tol, printing both values with %.17g and the tolerance on failure.
 * NaN never passes. */
#define assert_close(actual, expected, tol) \
    vbmc_test_assert_close((double)(actual), (double)(expected), (double)(tol), #actual, __FILE__, __LINE__)

static inline void vbmc_test_assert_close(double actual, double expected, double tol,
                                          const char *what, const char *file, int line) {
    if (!(fabs(actual - expected) <= tol)) {
        print_error("%s = %.17g, expected %.17g within %.3g (difference %.3g)\n", what, actual,
                    expected, tol, fabs(actual - expected));
        _fail(file, line);
    }
}

/* The message names what it should (an argument, a value); prints both on failure. */
static inline void assert_message_mentions(const char *message, const char *needle) {
    if (strstr(message, needle) == NULL) {
        print_error("message \"%s\" does not mention \"%s\"\n", message, needle);
        fail();
    }
}

#endif

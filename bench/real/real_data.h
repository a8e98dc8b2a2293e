/* The data file of one real-posterior model: named arrays of numbers, written at run time by
 * bench/real/posteriordb.py from a posteriordb data set (never committed, see bench/README.md).
 *
 * Format: lines starting with '#' are comments; then blocks "NAME COUNT" followed by COUNT
 * numbers separated by white space. Matrices are flattened row-major. */
#ifndef VBMC_BENCH_REAL_DATA_H
#define VBMC_BENCH_REAL_DATA_H

#include <stddef.h>

#define REAL_ERROR_SIZE 256

typedef struct real_array {
    char name[64];
    int count;
    double *values; /* [count] */
} real_array;

typedef struct real_data {
    int count;
    real_array *arrays; /* [count] */
} real_data;

/* Reads path into *data (released with real_data_free). Returns 0, or -1 with a sentence in
 * error[REAL_ERROR_SIZE] (and *data empty). */
int real_data_read(const char *path, real_data *data, char *error);

void real_data_free(real_data *data);

/* The values of the array called name, which must hold exactly count numbers; NULL with a
 * sentence in error[REAL_ERROR_SIZE] otherwise. */
const double *real_data_array(const real_data *data, const char *name, int count, char *error);

/* The array called name as one integer (a one-element array holding a whole number) into
 * *value. Returns 0, or -1 with a sentence in error[REAL_ERROR_SIZE]. */
int real_data_int(const real_data *data, const char *name, int *value, char *error);

#endif

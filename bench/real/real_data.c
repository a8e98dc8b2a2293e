/* Reader of the real-posterior data files (format in real_data.h). */
#include "real_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARRAYS 64
#define MAX_VALUES 10000000

/* Skips white space and '#' comment lines; returns the next character (not consumed). */
static int skip_blank(FILE *f) {
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (c == '#') {
            while ((c = fgetc(f)) != EOF && c != '\n') continue;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            ungetc(c, f);
            return c;
        }
    }
    return EOF;
}

/* One "NAME COUNT values..." block into *array. Returns 0, or -1 with error set. */
static int read_array(FILE *f, const char *path, real_array *array, char *error) {
    if (fscanf(f, "%63s %d", array->name, &array->count) != 2 || array->count < 0 ||
        array->count > MAX_VALUES) {
        snprintf(error, REAL_ERROR_SIZE, "%s: expected \"NAME COUNT\" after array %s", path,
                 array->name);
        return -1;
    }
    array->values = malloc(sizeof(double) * (size_t)(array->count ? array->count : 1));
    if (!array->values) {
        snprintf(error, REAL_ERROR_SIZE, "%s: out of memory", path);
        return -1;
    }
    for (int i = 0; i < array->count; ++i) {
        if (skip_blank(f) == EOF || fscanf(f, "%lf", &array->values[i]) != 1 ||
            !isfinite(array->values[i])) {
            snprintf(error, REAL_ERROR_SIZE, "%s: array %s: value %d of %d missing or not finite",
                     path, array->name, i + 1, array->count);
            return -1;
        }
    }
    return 0;
}

int real_data_read(const char *path, real_data *data, char *error) {
    data->count = 0;
    data->arrays = calloc(MAX_ARRAYS, sizeof(real_array));
    FILE *f = fopen(path, "r");
    if (!data->arrays || !f) {
        snprintf(error, REAL_ERROR_SIZE,
                 "cannot read %s (bench/run --real or bench/real/prepare.py writes it)", path);
        if (f) fclose(f);
        real_data_free(data);
        return -1;
    }
    int status = 0;
    while (status == 0 && skip_blank(f) != EOF) {
        if (data->count == MAX_ARRAYS) {
            snprintf(error, REAL_ERROR_SIZE, "%s: more than %d arrays", path, MAX_ARRAYS);
            status = -1;
            break;
        }
        status = read_array(f, path, &data->arrays[data->count++], error);
    }
    fclose(f);
    if (status != 0) real_data_free(data);
    return status;
}

void real_data_free(real_data *data) {
    if (data->arrays)
        for (int i = 0; i < data->count; ++i) free(data->arrays[i].values);
    free(data->arrays);
    data->arrays = NULL;
    data->count = 0;
}

static const real_array *find(const real_data *data, const char *name, char *error) {
    for (int i = 0; i < data->count; ++i)
        if (strcmp(data->arrays[i].name, name) == 0) return &data->arrays[i];
    snprintf(error, REAL_ERROR_SIZE, "data has no array %s", name);
    return NULL;
}

const double *real_data_array(const real_data *data, const char *name, int count, char *error) {
    const real_array *array = find(data, name, error);
    if (!array) return NULL;
    if (array->count != count) {
        snprintf(error, REAL_ERROR_SIZE, "data array %s has %d values, expected %d", name,
                 array->count, count);
        return NULL;
    }
    return array->values;
}

int real_data_int(const real_data *data, const char *name, int *value, char *error) {
    const double *v = real_data_array(data, name, 1, error);
    if (!v) return -1;
    if (v[0] != floor(v[0]) || fabs(v[0]) > 1e9) {
        snprintf(error, REAL_ERROR_SIZE, "data %s = %g is not an integer", name, v[0]);
        return -1;
    }
    *value = (int)v[0];
    return 0;
}

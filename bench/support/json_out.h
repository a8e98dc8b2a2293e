/* A growable text buffer for writing one JSON object per line (the benchmark's run records). */
#ifndef VBMC_BENCH_JSON_OUT_H
#define VBMC_BENCH_JSON_OUT_H

#include <stddef.h>

typedef struct json_out {
    char *text;
    size_t length, capacity;
    int failed;         /* an allocation failed; the text is incomplete */
    int need_separator; /* a value was written at the current nesting level */
} json_out;

void json_init(json_out *out);
void json_free(json_out *out);

void json_begin_object(json_out *out);
void json_end_object(json_out *out);
void json_begin_array(json_out *out);
void json_end_array(json_out *out);

/* A key inside an object; the next value call writes its value. */
void json_key(json_out *out, const char *key);

void json_string(json_out *out, const char *value); /* NULL writes null */
void json_int(json_out *out, long long value);
void json_double(json_out *out, double value); /* non-finite values are written as null */
void json_double_array(json_out *out, const double *values, int count);

/* End the record with a newline (JSON lines). */
void json_end_line(json_out *out);

#endif

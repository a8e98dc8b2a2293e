/* JSON writer for the benchmark's run records. */
#include "json_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_init(json_out *out) {
    memset(out, 0, sizeof *out);
}

void json_free(json_out *out) {
    free(out->text);
    json_init(out);
}

static void append(json_out *out, const char *text, size_t length) {
    if (out->failed) return;
    if (out->length + length + 1 > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 1024;
        while (out->length + length + 1 > capacity) capacity *= 2;
        char *grown = realloc(out->text, capacity);
        if (!grown) {
            out->failed = 1;
            return;
        }
        out->text = grown;
        out->capacity = capacity;
    }
    memcpy(out->text + out->length, text, length);
    out->length += length;
    out->text[out->length] = '\0';
}

static void append_str(json_out *out, const char *text) {
    append(out, text, strlen(text));
}

/* Commas between the values of an array or the members of an object. */
static void separate(json_out *out) {
    if (out->need_separator) append_str(out, ",");
    out->need_separator = 1;
}

void json_begin_object(json_out *out) {
    separate(out);
    append_str(out, "{");
    out->need_separator = 0;
}

void json_end_object(json_out *out) {
    append_str(out, "}");
    out->need_separator = 1;
}

void json_begin_array(json_out *out) {
    separate(out);
    append_str(out, "[");
    out->need_separator = 0;
}

void json_end_array(json_out *out) {
    append_str(out, "]");
    out->need_separator = 1;
}

static void write_quoted(json_out *out, const char *value) {
    append_str(out, "\"");
    for (const unsigned char *c = (const unsigned char *)value; *c; ++c) {
        char escaped[8];
        if (*c == '"' || *c == '\\') {
            escaped[0] = '\\';
            escaped[1] = (char)*c;
            append(out, escaped, 2);
        } else if (*c < 0x20) {
            snprintf(escaped, sizeof escaped, "\\u%04x", *c);
            append_str(out, escaped);
        } else {
            append(out, (const char *)c, 1);
        }
    }
    append_str(out, "\"");
}

void json_key(json_out *out, const char *key) {
    separate(out);
    write_quoted(out, key);
    append_str(out, ":");
    out->need_separator = 0;
}

void json_string(json_out *out, const char *value) {
    separate(out);
    if (value)
        write_quoted(out, value);
    else
        append_str(out, "null");
}

void json_int(json_out *out, long long value) {
    char text[32];
    separate(out);
    snprintf(text, sizeof text, "%lld", value);
    append_str(out, text);
}

void json_double(json_out *out, double value) {
    char text[40];
    separate(out);
    if (isfinite(value)) {
        snprintf(text, sizeof text, "%.17g", value);
        append_str(out, text);
    } else {
        append_str(out, "null");
    }
}

void json_double_array(json_out *out, const double *values, int count) {
    json_begin_array(out);
    for (int i = 0; i < count; ++i) json_double(out, values[i]);
    json_end_array(out);
}

void json_end_line(json_out *out) {
    append_str(out, "\n");
    out->need_separator = 0;
}

/* evidence_bench: the log evidence estimate (vbmc_post_log_evidence) of one saved posterior of a
 * synthetic problem against the problem's true log evidence, through the public C API only.
 *
 *   evidence_bench --problem NAME --post FILE --seed S --out FILE
 *
 * FILE is a posterior saved by vbmc_bench --save-post. Appends one JSON line with the true log
 * evidence (lml), the ELBO and its SD, the estimate log_z and its SD with the wall and CPU time of
 * the estimate, and BBQ's (vbmc_post_log_evidence_bbq; null when BBQ gives none) with its CPU time. Exit code 0, 1 on a usage error, 2 if the library failed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vbmc/vbmc.h>

#include "bench_clock.h"
#include "json_out.h"
#include "problems.h"

typedef struct evidence_args {
    const char *problem, *post_path, *out_path;
    long long seed;
} evidence_args;

static int parse_args(int argc, char **argv, evidence_args *a) {
    memset(a, 0, sizeof *a);
    a->seed = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *arg = argv[i], *value = argv[i + 1];
        char *end = NULL;
        if (strcmp(arg, "--problem") == 0) a->problem = value;
        else if (strcmp(arg, "--post") == 0) a->post_path = value;
        else if (strcmp(arg, "--out") == 0) a->out_path = value;
        else if (strcmp(arg, "--seed") == 0) a->seed = strtoll(value, &end, 10);
        else {
            fprintf(stderr, "evidence_bench: unknown argument %s\n", arg);
            return -1;
        }
        if (end && *end) {
            fprintf(stderr, "evidence_bench: %s needs a number\n", arg);
            return -1;
        }
    }
    if (argc % 2 == 0 || !a->problem || !a->post_path || !a->out_path || a->seed < 0) {
        fprintf(stderr, "usage: evidence_bench --problem NAME --post FILE --seed S --out FILE\n");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    evidence_args a;
    if (parse_args(argc, argv, &a) != 0) return 1;
    const bench_problem *p = bench_problem_find(a.problem);
    if (!p) {
        fprintf(stderr, "evidence_bench: unknown problem %s\n", a.problem);
        return 1;
    }
    vbmc_post *post = NULL;
    double elbo = NAN, elbo_sd = NAN, log_z = NAN, log_z_sd = NAN, wall = NAN, cpu = NAN;
    double bbq = NAN, bbq_sd = NAN, bbq_cpu = NAN;
    const char *failed = NULL;
    vbmc_status status = vbmc_post_load(&post, a.post_path);
    if (status < 0) failed = "vbmc_post_load";
    if (!failed && (status = vbmc_post_elbo(post, &elbo, &elbo_sd)) < 0) failed = "vbmc_post_elbo";
    if (!failed) {
        const double wall0 = bench_seconds(CLOCK_MONOTONIC), cpu0 = bench_seconds(CLOCK_PROCESS_CPUTIME_ID);
        status = vbmc_post_log_evidence(post, &log_z, &log_z_sd);
        wall = bench_seconds(CLOCK_MONOTONIC) - wall0;
        cpu = bench_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
        if (status < 0) failed = "vbmc_post_log_evidence";
    }
    if (!failed) {
        const double cpu0 = bench_seconds(CLOCK_PROCESS_CPUTIME_ID);
        status = vbmc_post_log_evidence_bbq(post, &bbq, &bbq_sd);
        bbq_cpu = bench_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
        if (status < 0) failed = "vbmc_post_log_evidence_bbq";
    }
    json_out line;
    json_init(&line);
    json_begin_object(&line);
    json_key(&line, "problem"); json_string(&line, p->name);
    json_key(&line, "D"); json_int(&line, p->dim);
    json_key(&line, "seed"); json_int(&line, a.seed);
    json_key(&line, "post"); json_string(&line, a.post_path);
    json_key(&line, "status"); json_string(&line, vbmc_status_name(status));
    json_key(&line, "failed_call"); json_string(&line, failed);
    json_key(&line, "error"); json_string(&line, failed ? vbmc_last_error(NULL) : NULL);
    json_key(&line, "lml"); json_double(&line, p->lml);
    json_key(&line, "elbo"); json_double(&line, elbo);
    json_key(&line, "elbo_sd"); json_double(&line, elbo_sd);
    json_key(&line, "log_z"); json_double(&line, log_z);
    json_key(&line, "log_z_sd"); json_double(&line, log_z_sd);
    json_key(&line, "log_z_wall_s"); json_double(&line, wall);
    json_key(&line, "log_z_cpu_s"); json_double(&line, cpu);
    json_key(&line, "log_z_bbq"); json_double(&line, bbq);
    json_key(&line, "log_z_bbq_sd"); json_double(&line, bbq_sd);
    json_key(&line, "log_z_bbq_cpu_s"); json_double(&line, bbq_cpu);
    json_end_object(&line);
    json_end_line(&line);
    FILE *out = strcmp(a.out_path, "-") == 0 ? stdout : fopen(a.out_path, "a");
    int write_failed = !out || line.failed || fputs(line.text, out) < 0;
    if (out && out != stdout) write_failed |= fclose(out) != 0;
    json_free(&line);
    vbmc_post_destroy(post);
    if (write_failed) {
        fprintf(stderr, "evidence_bench: cannot write %s\n", a.out_path);
        return 2;
    }
    return failed ? 2 : 0;
}

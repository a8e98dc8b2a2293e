/* vbmc_workers: one run of libvbmc feeding W simulated workers, through the public C API only.
 *
 *   vbmc_workers --problem NAME --seed S --workers W --out FILE [--max-fun-evals N]
 *                [--eval-min A] [--eval-max B] [--unit-seconds U] [--opt name=value ...]
 *
 * The protocol of vbmc_bench (budget 50*(D+2), x0 uniform in the plausible box from the run's
 * seed, library seed = run seed, display off) with option max_pending = W. Each evaluation takes
 * a simulated time drawn from U(A, B) (default U(0.5, 1.5)) from a stream of its own seeded by
 * the run's seed; nothing sleeps. The host asks until every worker is busy or the run answers
 * VBMC_WAIT, then the evaluation that finishes first in simulated time is told, and so on, as a
 * master/worker loop with results in any order would; it stops at VBMC_DONE (evaluations still
 * out are dropped, and counted as dispatched). With W = 1 this is the sequential run.
 *
 * The order of events follows the simulated clock alone, so a run is deterministic. Its record
 * has the simulated wall time with a host that takes no time (sim_wall), an estimate of the wall
 * time when one simulated unit lasts U seconds (default 1) and the host's own measured CPU time
 * delays the workers (sim_wall_hosted: the same order of events, each ask and tell starting when
 * the host is free and its result has arrived; CPU rather than wall time, which on a shared
 * machine includes waiting for a core), the simulated time when the locating stage ended
 * (sim_wall_locate, 0 without one), the library's real time (wall and CPU, per run and per
 * evaluation told), evaluations told and dispatched, and the LML error and gsKL of the
 * final posterior. Exit code: 0 if the run finished, 1 on a usage error, 2 if the library
 * failed. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "bench_clock.h"
#include "bench_rng.h"
#include "bench_target.h"
#include "gauss.h"
#include "json_out.h"

#define MAX_EXTRA_OPTIONS 16
#define MAX_WORKERS 1024
/* The duration stream's seed is the run's seed plus this ("workers" in ASCII). */
#define DURATION_STREAM 0x776F726B657273ull

typedef struct args {
    const char *problem, *out_path;
    long long seed, max_fun_evals;
    int workers;
    double eval_min, eval_max, unit_seconds;
    int extra_count;
    const char *extra_options[MAX_EXTRA_OPTIONS];
} args;

/* One simulated worker: the point it evaluates and when it finishes, on both clocks. */
typedef struct worker {
    int busy;
    double x[VBMC_MAX_DIM];
    double finish;        /* host that takes no time */
    double finish_hosted; /* host whose measured time delays the dispatch */
} worker;

/* The library's time, measured around every call, and the hosted clock it advances. */
typedef struct host_clock {
    double wall, cpu; /* seconds inside the library */
    double now;       /* hosted simulated time: when the host is next free */
    double unit_seconds;
} host_clock;

/* Runs a library call (ask or tell, by kind) on the host clock: it starts when the host is free
 * and, for a tell, when the result has arrived (arrival, hosted time). */
typedef struct call {
    int is_tell;
    const double *x;
    double value;
    double *out;
} call;

static vbmc_status timed_call(vbmc *run, call c, double arrival, host_clock *host) {
    const double wall0 = bench_seconds(CLOCK_MONOTONIC), cpu0 = bench_seconds(CLOCK_PROCESS_CPUTIME_ID);
    const vbmc_status status = c.is_tell ? vbmc_tell(run, c.x, c.value, 0.0) : vbmc_ask(run, c.out);
    const double cpu = bench_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    host->wall += bench_seconds(CLOCK_MONOTONIC) - wall0;
    host->cpu += cpu;
    if (arrival > host->now) host->now = arrival;
    host->now += cpu / host->unit_seconds;
    return status;
}

static int parse_args(int argc, char **argv, args *a) {
    memset(a, 0, sizeof *a);
    a->seed = -1;
    a->workers = 1;
    a->eval_min = 0.5;
    a->eval_max = 1.5;
    a->unit_seconds = 1.0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *key = argv[i], *value = argv[i + 1];
        char *end = NULL;
        if (!strcmp(key, "--problem")) a->problem = value;
        else if (!strcmp(key, "--out")) a->out_path = value;
        else if (!strcmp(key, "--seed")) a->seed = strtoll(value, &end, 10);
        else if (!strcmp(key, "--max-fun-evals")) a->max_fun_evals = strtoll(value, &end, 10);
        else if (!strcmp(key, "--workers")) a->workers = (int)strtol(value, &end, 10);
        else if (!strcmp(key, "--eval-min")) a->eval_min = strtod(value, &end);
        else if (!strcmp(key, "--eval-max")) a->eval_max = strtod(value, &end);
        else if (!strcmp(key, "--unit-seconds")) a->unit_seconds = strtod(value, &end);
        else if (!strcmp(key, "--opt") && a->extra_count < MAX_EXTRA_OPTIONS && strchr(value, '='))
            a->extra_options[a->extra_count++] = value;
        else return -1;
        if (end && *end) return -1;
    }
    if (argc % 2 == 0 || !a->problem || !a->out_path || a->seed < 0 || a->max_fun_evals < 0 ||
        a->workers < 1 || a->workers > MAX_WORKERS || !(a->eval_min > 0.0) ||
        !(a->eval_max >= a->eval_min) || !(a->unit_seconds > 0.0))
        return -1;
    return 0;
}

static vbmc_status make_run(const args *a, const bench_target *p, long long budget, vbmc **run,
                            char *error, size_t size) {
    vbmc_opts *opts = NULL;
    vbmc_status status = vbmc_opts_create(&opts);
    char text[64];
    if (status == VBMC_OK) status = vbmc_opts_set(opts, "display", "off");
    snprintf(text, sizeof text, "%lld", budget);
    if (status == VBMC_OK) status = vbmc_opts_set(opts, "max_fun_evals", text);
    if (status == VBMC_OK) status = vbmc_opts_set_int(opts, "seed", a->seed);
    if (status == VBMC_OK) status = vbmc_opts_set_int(opts, "max_pending", a->workers);
    for (int i = 0; status == VBMC_OK && i < a->extra_count; ++i) {
        const char *eq = strchr(a->extra_options[i], '=');
        snprintf(text, sizeof text, "%.*s", (int)(eq - a->extra_options[i]), a->extra_options[i]);
        status = vbmc_opts_set(opts, text, eq + 1);
    }
    if (status != VBMC_OK) {
        snprintf(error, size, "options: %s", vbmc_opts_error(opts));
        vbmc_opts_destroy(opts);
        return status;
    }
    /* x0 uniform in the plausible box from the run's seed, as vbmc_bench. */
    double x0[VBMC_MAX_DIM];
    bench_rng rng;
    bench_rng_seed(&rng, (uint64_t)a->seed);
    for (int i = 0; i < p->dim; ++i) x0[i] = p->plb[i] + bench_rng_uniform(&rng) * (p->pub[i] - p->plb[i]);
    status = vbmc_create(run, p->dim, x0, p->lb, p->ub, p->plb, p->pub, opts);
    if (status != VBMC_OK) snprintf(error, size, "vbmc_create: %s", vbmc_last_error(NULL));
    vbmc_opts_destroy(opts);
    return status;
}

/* The busy worker whose evaluation finishes first (ties: the lowest index), or -1. */
static int first_to_finish(const worker *w, int n) {
    int first = -1;
    for (int i = 0; i < n; ++i)
        if (w[i].busy && (first < 0 || w[i].finish < w[first].finish)) first = i;
    return first;
}

/* The simulation's outcome. */
typedef struct outcome {
    vbmc_status status;
    const char *failed_call;
    double sim_wall, sim_wall_hosted;
    double sim_wall_locate; /* simulated time when the locating stage ended (0 if it never ran) */
    long long dispatched;
    int max_busy;
} outcome;

/* The master/worker loop on simulated time (see the file's comment). */
static outcome simulate(vbmc *run, const bench_target *p, const args *a, host_clock *host) {
    worker *w = calloc((size_t)a->workers, sizeof *w);
    bench_rng durations;
    bench_rng_seed(&durations, (uint64_t)a->seed + DURATION_STREAM);
    outcome o = {VBMC_OK, NULL, 0.0, 0.0, 0.0, 0, 0};
    double now = 0.0; /* simulated time with a host that takes no time */
    int done = 0, was_locating = 0;
    if (!w) return (outcome){VBMC_E_NOMEM, "calloc", 0, 0, 0, 0, 0};
    while (!done) {
        for (int i = 0; i < a->workers && !done; ++i) {
            if (w[i].busy) continue;
            const call ask = {0, NULL, 0.0, w[i].x};
            o.status = timed_call(run, ask, 0.0, host);
            if (o.status == VBMC_WAIT) break;
            if (o.status == VBMC_DONE) done = 1;
            if (o.status != VBMC_OK) break;
            const double duration = a->eval_min + (a->eval_max - a->eval_min) * bench_rng_uniform(&durations);
            w[i].busy = 1;
            w[i].finish = now + duration;
            w[i].finish_hosted = host->now + duration;
            ++o.dispatched;
        }
        if (o.status < 0) {
            o.failed_call = "vbmc_ask";
            break;
        }
        int busy = 0;
        for (int i = 0; i < a->workers; ++i) busy += w[i].busy;
        if (busy > o.max_busy) o.max_busy = busy;
        if (done) break;
        const int i = first_to_finish(w, a->workers);
        if (i < 0) {
            o.status = VBMC_E_STATE;
            o.failed_call = "vbmc_ask (nothing pending, nothing handed out)";
            break;
        }
        now = w[i].finish;
        w[i].busy = 0;
        const call tell = {1, w[i].x, bench_target_log_joint(p, w[i].x), NULL};
        o.status = timed_call(run, tell, w[i].finish_hosted, host);
        if (o.status != VBMC_OK) {
            o.failed_call = "vbmc_tell";
            break;
        }
        double locating = 0.0;
        if (vbmc_stat(run, "locating", &locating) == VBMC_OK && locating == 0.0 && was_locating) o.sim_wall_locate = now;
        was_locating = locating != 0.0;
    }
    o.sim_wall = now;
    o.sim_wall_hosted = host->now;
    free(w);
    return o;
}

static double stat_or_nan(const vbmc *run, const char *name) {
    double value = NAN;
    return vbmc_stat(run, name, &value) == VBMC_OK ? value : NAN;
}

static int write_line(const char *path, const json_out *line) {
    if (line->failed) return -1;
    if (!strcmp(path, "-")) return fputs(line->text, stdout) < 0 ? -1 : 0;
    const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644); /* one write: no interleaving */
    if (fd < 0) return -1;
    const ssize_t written = write(fd, line->text, line->length);
    close(fd);
    return written == (ssize_t)line->length ? 0 : -1;
}

/* Accuracy of the final posterior: |ELBO - lml| and gsKL against the ground truth. */
static void accuracy(const bench_target *p, const vbmc_post *post, double *lml_err, double *gskl) {
    double elbo, mean[VBMC_MAX_DIM], cov[VBMC_MAX_DIM * VBMC_MAX_DIM];
    *lml_err = *gskl = NAN;
    if (post && vbmc_post_elbo(post, &elbo, NULL) == VBMC_OK) *lml_err = fabs(elbo - p->lml);
    if (post && vbmc_post_moments(post, mean, cov) == VBMC_OK)
        *gskl = bench_gskl(p->dim, mean, cov, p->mean, p->cov);
}

static void write_record(json_out *line, const args *a, const bench_target *p, long long budget,
                         const outcome *o, const host_clock *host, vbmc *run, const vbmc_post *post,
                         const char *error) {
    double lml_err, gskl;
    accuracy(p, post, &lml_err, &gskl);
    const double fevals = run ? stat_or_nan(run, "func_count") : NAN;
    json_begin_object(line);
    json_key(line, "problem"); json_string(line, p->name);
    json_key(line, "family"); json_string(line, p->family);
    json_key(line, "D"); json_int(line, p->dim);
    json_key(line, "seed"); json_int(line, a->seed);
    json_key(line, "workers"); json_int(line, a->workers);
    json_key(line, "budget"); json_int(line, budget);
    json_key(line, "eval_time"); json_double_array(line, (const double[]){a->eval_min, a->eval_max}, 2);
    json_key(line, "unit_seconds"); json_double(line, a->unit_seconds);
    json_key(line, "status"); json_string(line, vbmc_status_name(o->status));
    json_key(line, "failed_call"); json_string(line, o->failed_call);
    json_key(line, "error"); json_string(line, o->failed_call ? error : NULL);
    json_key(line, "lml_err"); json_double(line, lml_err);
    json_key(line, "gskl"); json_double(line, gskl);
    json_key(line, "fevals"); json_double(line, fevals);
    json_key(line, "dispatched"); json_int(line, o->dispatched);
    json_key(line, "max_busy"); json_int(line, o->max_busy);
    json_key(line, "iterations"); json_double(line, run ? stat_or_nan(run, "iteration") : NAN);
    json_key(line, "converged"); json_double(line, run ? stat_or_nan(run, "converged") : NAN);
    json_key(line, "locate_evals"); json_double(line, run ? stat_or_nan(run, "locate_evals") : NAN);
    json_key(line, "sim_wall"); json_double(line, o->sim_wall);
    json_key(line, "sim_wall_hosted"); json_double(line, o->sim_wall_hosted);
    json_key(line, "sim_wall_locate"); json_double(line, o->sim_wall_locate);
    json_key(line, "library_wall_s"); json_double(line, host->wall);
    json_key(line, "library_cpu_s"); json_double(line, host->cpu);
    json_key(line, "library_wall_per_eval_s"); json_double(line, host->wall / fevals);
    json_key(line, "library_cpu_per_eval_s"); json_double(line, host->cpu / fevals);
    static const char *const phases[] = {"gp_train", "vp_optim", "acquisition", "final_boost", "locate", "total"};
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; ++i) {
        char name[32];
        snprintf(name, sizeof name, "time_%s", phases[i]);
        json_key(line, name); json_double(line, run ? stat_or_nan(run, name) : NAN);
        snprintf(name, sizeof name, "cpu_%s", phases[i]);
        json_key(line, name); json_double(line, run ? stat_or_nan(run, name) : NAN);
    }
    json_key(line, "blas_threads"); json_string(line, getenv("OPENBLAS_NUM_THREADS"));
    json_key(line, "version"); json_string(line, vbmc_version());
    json_end_object(line);
    json_end_line(line);
}

int main(int argc, char **argv) {
    args a;
    if (parse_args(argc, argv, &a) != 0) {
        fprintf(stderr, "usage: vbmc_workers --problem NAME --seed S --workers W --out FILE "
                        "[--max-fun-evals N] [--eval-min A] [--eval-max B] [--unit-seconds U] "
                        "[--opt name=value ...]\n");
        return 1;
    }
    bench_target target;
    char error[512] = "";
    if (bench_target_open(&target, a.problem, BENCH_BOX_PRIOR, ".", error, sizeof error) != 0) {
        fprintf(stderr, "vbmc_workers: %s\n", error);
        bench_target_close(&target);
        return 1;
    }
    const long long budget = a.max_fun_evals ? a.max_fun_evals : 50LL * (target.dim + 2);
    vbmc *run = NULL;
    vbmc_post *post = NULL;
    host_clock host = {0.0, 0.0, 0.0, a.unit_seconds};
    outcome o = {VBMC_OK, NULL, NAN, NAN, NAN, 0, 0};
    o.status = make_run(&a, &target, budget, &run, error, sizeof error);
    if (o.status != VBMC_OK) o.failed_call = "vbmc_create";
    if (o.status == VBMC_OK) o = simulate(run, &target, &a, &host);
    if (o.status == VBMC_DONE && vbmc_posterior(run, &post) != VBMC_OK) o.failed_call = "vbmc_posterior";
    if (o.failed_call && run && !error[0]) snprintf(error, sizeof error, "%s", vbmc_last_error(run));
    json_out line;
    json_init(&line);
    write_record(&line, &a, &target, budget, &o, &host, run, post, error);
    const int write_failed = write_line(a.out_path, &line);
    json_free(&line);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
    bench_target_close(&target);
    if (write_failed) {
        fprintf(stderr, "vbmc_workers: cannot write %s\n", a.out_path);
        return 1;
    }
    if (o.failed_call) {
        fprintf(stderr, "vbmc_workers: %s failed: %s: %s\n", o.failed_call, vbmc_status_name(o.status), error);
        return 2;
    }
    return 0;
}

/* vbmc_mpi_bench: one real run of the MPI driver, with a target that sleeps.
 *
 *   mpirun -np W+1 vbmc_mpi_bench --problem NAME --seed S --out FILE [--eval-min A] [--eval-max B]
 *
 * Rank 0 creates the run as vbmc_bench does (budget 50*(D+2), x0 uniform in the plausible box
 * from the seed, library seed = seed, display off) with option max_pending = W, and calls
 * vbmc_mpi_run; the W other ranks evaluate the problem's log joint after sleeping a time drawn
 * from U(A, B) seconds (default U(0.5, 1.5)), from a stream of each rank's own. Rank 0 appends
 * one JSON line to FILE ("-": standard output): the wall time of the whole run, the evaluations told, the library's own
 * time (vbmc_stat time_total, cpu_total) and the LML error and gsKL of the final posterior. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vbmc/vbmc_mpi.h>

#include "bench_rng.h"
#include "bench_target.h"
#include "gauss.h"
#include "json_out.h"

typedef struct args {
    const char *problem, *out_path;
    long long seed;
    double eval_min, eval_max;
} args;

typedef struct worker_state {
    const bench_target *target;
    bench_rng durations;
    double eval_min, eval_max;
} worker_state;

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double sleeping_log_joint(const double *x, double *sd, MPI_Comm group, void *userdata) {
    (void)sd;
    (void)group;
    worker_state *w = userdata;
    const double pause = w->eval_min + (w->eval_max - w->eval_min) * bench_rng_uniform(&w->durations);
    struct timespec t = {(time_t)pause, (long)((pause - floor(pause)) * 1e9)};
    nanosleep(&t, NULL);
    return bench_target_log_joint(w->target, x);
}

static int parse_args(int argc, char **argv, args *a) {
    memset(a, 0, sizeof *a);
    a->seed = -1;
    a->eval_min = 0.5;
    a->eval_max = 1.5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--problem")) a->problem = argv[i + 1];
        else if (!strcmp(argv[i], "--out")) a->out_path = argv[i + 1];
        else if (!strcmp(argv[i], "--seed")) a->seed = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--eval-min")) a->eval_min = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--eval-max")) a->eval_max = atof(argv[i + 1]);
        else return -1;
    }
    return argc % 2 == 1 && a->problem && a->out_path && a->seed >= 0 && a->eval_min >= 0 &&
                   a->eval_max >= a->eval_min
               ? 0
               : -1;
}

static vbmc *make_run(const bench_target *p, const args *a, int workers) {
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    double x0[VBMC_MAX_DIM];
    bench_rng rng;
    bench_rng_seed(&rng, (uint64_t)a->seed);
    for (int i = 0; i < p->dim; ++i) x0[i] = p->plb[i] + bench_rng_uniform(&rng) * (p->pub[i] - p->plb[i]);
    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "off");
    vbmc_opts_set_int(opts, "max_fun_evals", 50LL * (p->dim + 2));
    vbmc_opts_set_int(opts, "seed", a->seed);
    vbmc_opts_set_int(opts, "max_pending", workers);
    if (vbmc_create(&run, p->dim, x0, p->lb, p->ub, p->plb, p->pub, opts) != VBMC_OK)
        fprintf(stderr, "vbmc_mpi_bench: vbmc_create: %s\n", vbmc_last_error(NULL));
    vbmc_opts_destroy(opts);
    return run;
}

static double stat_of(const vbmc *run, const char *name) {
    double v = NAN;
    vbmc_stat(run, name, &v);
    return v;
}

static void write_record(const args *a, const bench_target *p, int workers, vbmc_status status, double wall,
                         vbmc *run) {
    double elbo = NAN, lml_err = NAN, gskl = NAN, mean[VBMC_MAX_DIM], cov[VBMC_MAX_DIM * VBMC_MAX_DIM];
    vbmc_post *post = NULL;
    if (status == VBMC_DONE && vbmc_posterior(run, &post) == VBMC_OK) {
        if (vbmc_post_elbo(post, &elbo, NULL) == VBMC_OK) lml_err = fabs(elbo - p->lml);
        if (vbmc_post_moments(post, mean, cov) == VBMC_OK) gskl = bench_gskl(p->dim, mean, cov, p->mean, p->cov);
    }
    vbmc_post_destroy(post);
    json_out line;
    json_init(&line);
    json_begin_object(&line);
    json_key(&line, "problem"); json_string(&line, p->name);
    json_key(&line, "D"); json_int(&line, p->dim);
    json_key(&line, "seed"); json_int(&line, a->seed);
    json_key(&line, "workers"); json_int(&line, workers);
    json_key(&line, "eval_seconds"); json_double_array(&line, (const double[]){a->eval_min, a->eval_max}, 2);
    json_key(&line, "status"); json_string(&line, vbmc_status_name(status));
    json_key(&line, "error"); json_string(&line, status == VBMC_DONE ? NULL : vbmc_mpi_last_error());
    json_key(&line, "wall_s"); json_double(&line, wall);
    json_key(&line, "fevals"); json_double(&line, stat_of(run, "func_count"));
    json_key(&line, "lml_err"); json_double(&line, lml_err);
    json_key(&line, "gskl"); json_double(&line, gskl);
    json_key(&line, "library_wall_s"); json_double(&line, stat_of(run, "time_total"));
    json_key(&line, "library_cpu_s"); json_double(&line, stat_of(run, "cpu_total"));
    json_key(&line, "version"); json_string(&line, vbmc_version());
    json_end_object(&line);
    json_end_line(&line);
    FILE *out = strcmp(a->out_path, "-") == 0 ? stdout : fopen(a->out_path, "a");
    if (out && !line.failed) fputs(line.text, out);
    if (out && out != stdout) fclose(out);
    json_free(&line);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    args a;
    bench_target target;
    char error[256];
    if (parse_args(argc, argv, &a) != 0 ||
        bench_target_open(&target, a.problem, BENCH_BOX_PRIOR, ".", error, sizeof error) != 0) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np W+1 vbmc_mpi_bench --problem NAME --seed S --out FILE "
                                       "[--eval-min A] [--eval-max B]\n");
        MPI_Finalize();
        return 1;
    }
    worker_state w = {&target, {{0}, 0, 0}, a.eval_min, a.eval_max};
    bench_rng_seed(&w.durations, (uint64_t)a.seed * 1000003ull + (uint64_t)rank);
    vbmc *run = rank == 0 ? make_run(&target, &a, size - 1) : NULL;
    const double start = seconds_now();
    const vbmc_status status = vbmc_mpi_run(run, sleeping_log_joint, &w, MPI_COMM_WORLD, 1, 0.0);
    const double wall = seconds_now() - start;
    if (rank == 0) write_record(&a, &target, size - 1, status, wall, run);
    vbmc_destroy(run);
    bench_target_close(&target);
    MPI_Finalize();
    return status == VBMC_DONE ? 0 : 2;
}

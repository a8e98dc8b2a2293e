/* vbmc_bench: one benchmark run of libvbmc on one problem, through the public C API only.
 *
 *   vbmc_bench --problem NAME --seed S --out FILE [--max-fun-evals N] [--trace]
 *              [--box prior|informed] [--noise SD] [--data-dir DIR] [--opt name=value ...]
 *              [--stop-after-locate] [--save-post PATH]
 *   vbmc_bench --list | --list-real
 *
 * Protocol (shared/bench/README.md, the paper's): budget 50*(D+2) evaluations, x0 uniform in the
 * plausible box drawn with the run's seed, plb/pub = the plausible box, no hard bounds, the
 * library's seed = the run's seed. A real posterior ("real:NAME", bench/real) has its model's
 * hard bounds and, as plausible box, its prior box or informed box (--box). With --noise SD,
 * each log-joint value gets N(0, SD^2) noise from a stream of its own seeded by the run's seed,
 * and SD is told as its noise SD. Appends one JSON line to FILE ("-": standard output) with the
 * accuracy metrics (|ELBO - lml| and gsKL), the overhead (wall and CPU time spent outside the
 * target, per run and per evaluation), the peak resident memory and, with --trace, the metrics of
 * the posterior snapshot at the end of every iteration. The trace snapshots are bench work and
 * are not counted as library overhead. With --stop-after-locate the run stops once the locating
 * stage has ended (or the first iteration has run without one), for measuring the stage alone:
 * the line then has no posterior metrics, and best_log_joint says how high the stage climbed.
 * With --save-post the final posterior is also saved to PATH (vbmc_post_save), e.g. for
 * refine_bench.
 * Exit code: 0 if the run finished, 1 on a usage error
 * (nothing written), 2 if the library failed (the line says where). */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "bench_rng.h"
#include "bench_target.h"
#include "gauss.h"
#include "json_out.h"

#define MAX_EXTRA_OPTIONS 32
/* The noise stream's seed is the run's seed plus this ("noise" in ASCII), so it is independent
 * of the stream that draws x0. */
#define NOISE_STREAM 0x6E6F697365ull

typedef struct bench_args {
    const char *problem;
    long long seed;
    const char *out_path;
    long long max_fun_evals; /* 0: the protocol's 50*(D+2) */
    int trace;
    int stop_after_locate;
    int extra_count;
    const char *extra_options[MAX_EXTRA_OPTIONS]; /* "name=value" */
    bench_box box;
    const char *box_name;  /* as given, NULL if not given */
    double noise_sd;       /* SD of the noise added to the log joint; 0: exact */
    const char *data_dir;  /* where the real posteriors' data files are */
    const char *save_post; /* where to save the final posterior, or NULL */
} bench_args;

/* Wall and process CPU clocks, in seconds. */
typedef struct clocks {
    double wall, cpu;
} clocks;

static clocks now(void) {
    struct timespec wall, cpu;
    clock_gettime(CLOCK_MONOTONIC, &wall);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    clocks c = {wall.tv_sec + 1e-9 * wall.tv_nsec, cpu.tv_sec + 1e-9 * cpu.tv_nsec};
    return c;
}

static void accumulate(clocks *total, clocks start, clocks end) {
    total->wall += end.wall - start.wall;
    total->cpu += end.cpu - start.cpu;
}

/* Accuracy of a posterior snapshot against the ground truth. */
typedef struct accuracy {
    double elbo, elbo_sd, lml_err, gskl;
    double mean[VBMC_MAX_DIM];
} accuracy;

static vbmc_status measure(const bench_target *p, const vbmc_post *post, accuracy *acc) {
    double cov[VBMC_MAX_DIM * VBMC_MAX_DIM];
    vbmc_status status = vbmc_post_elbo(post, &acc->elbo, &acc->elbo_sd);
    if (status < 0) return status;
    status = vbmc_post_moments(post, acc->mean, cov);
    if (status < 0) return status;
    acc->lml_err = fabs(acc->elbo - p->lml);
    acc->gskl = bench_gskl(p->dim, acc->mean, cov, p->mean, p->cov);
    return VBMC_OK;
}

/* The ELBO of the posterior under the true target, E_q[log p(x) - log q(x)], by Monte Carlo
 * with n_draws draws (seeded, so reproducible). lml - elbo_true = KL(q || p) >= 0 is the
 * variational error; elbo - elbo_true is the surrogate's (GP and quadrature) error. Returns NaN
 * if memory runs out or the posterior cannot be sampled. */
#define FINAL_TRUE_ELBO_DRAWS 32768
#define TRACE_TRUE_ELBO_DRAWS 4096
static double true_elbo(const bench_target *p, const vbmc_post *post, size_t n_draws,
                        double *elbo_true_sd) {
    const int dim = p->dim;
    double *draws = malloc(sizeof(double) * n_draws * (size_t)dim);
    double *log_q = malloc(sizeof(double) * n_draws);
    double mean = NAN, sd = NAN;
    if (draws && log_q && vbmc_post_sample(post, n_draws, 20181203u, draws) == VBMC_OK &&
        vbmc_post_log_pdf(post, n_draws, draws, log_q) == VBMC_OK) {
        double sum = 0.0, sum_sq = 0.0;
        for (size_t i = 0; i < n_draws; ++i) {
            const double term = bench_target_log_joint(p, draws + i * (size_t)dim) - log_q[i];
            sum += term;
            sum_sq += term * term;
        }
        mean = sum / (double)n_draws;
        const double var = sum_sq / (double)n_draws - mean * mean;
        sd = sqrt((var > 0.0 ? var : 0.0) / (double)n_draws);
    }
    free(draws);
    free(log_q);
    *elbo_true_sd = sd;
    return mean;
}

/* One trace point: the snapshot at the end of an iteration. */
typedef struct trace_point {
    double fevals, iteration, elbo, elbo_sd, lml_err, gskl, elbo_true;
} trace_point;

typedef struct trace {
    trace_point *points;
    int count, capacity;
} trace;

static int trace_push(trace *t, trace_point point) {
    if (t->count == t->capacity) {
        const int capacity = t->capacity ? 2 * t->capacity : 64;
        trace_point *grown = realloc(t->points, sizeof(trace_point) * (size_t)capacity);
        if (!grown) return -1;
        t->points = grown;
        t->capacity = capacity;
    }
    t->points[t->count++] = point;
    return 0;
}

static double stat_or_nan(const vbmc *run, const char *name) {
    double value = NAN;
    if (vbmc_stat(run, name, &value) < 0) return NAN;
    return value;
}

/* If the run has finished an iteration since the last call, snapshot its posterior, measure it
 * and append it to the trace; the time spent is added to *spent (bench work, not overhead).
 * The iteration can end inside vbmc_ask or vbmc_tell, so this is called after both.
 * Returns -1 only if memory ran out. */
static int record_new_iteration(const vbmc *run, const bench_target *p, double *last_iteration,
                                trace *t, clocks *spent) {
    const double iteration = stat_or_nan(run, "iteration");
    if (!(iteration > *last_iteration)) return 0;
    const clocks start = now();
    int result = 0;
    vbmc_post *snapshot = NULL;
    accuracy acc;
    if (vbmc_posterior(run, &snapshot) == VBMC_OK && measure(p, snapshot, &acc) == VBMC_OK) {
        trace_point point = {stat_or_nan(run, "func_count"), iteration, acc.elbo, acc.elbo_sd,
                             acc.lml_err, acc.gskl, NAN};
        double unused_sd;
        point.elbo_true = true_elbo(p, snapshot, TRACE_TRUE_ELBO_DRAWS, &unused_sd);
        result = trace_push(t, point);
        *last_iteration = iteration;
    }
    vbmc_post_destroy(snapshot);
    accumulate(spent, start, now());
    return result;
}

/* The 1-minute load average (Linux /proc/loadavg), NaN where unavailable: wall-clock overheads
 * are only comparable between runs made on an otherwise idle machine. */
static double load_average(void) {
    double load = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1) load = NAN;
        fclose(f);
    }
    return load;
}

static void usage(FILE *stream) {
    fprintf(stream,
            "usage: vbmc_bench --problem NAME --seed S --out FILE [--max-fun-evals N] [--trace]\n"
            "                  [--box prior|informed] [--noise SD] [--data-dir DIR]\n"
            "                  [--opt name=value ...] [--stop-after-locate] [--save-post PATH]\n"
            "       vbmc_bench --list        (synthetic problems: name, dimension, default budget)\n"
            "       vbmc_bench --list-real   (real posteriors: name, dimension, default budget,\n"
            "                                 posteriordb posterior)\n"
            "--box and --data-dir apply to real:NAME problems only (default box prior, data dir\n"
            "%s).\n", BENCH_REAL_DATA_DIR);
}

static int parse_args(int argc, char **argv, bench_args *args) {
    memset(args, 0, sizeof *args);
    args->seed = -1;
    args->data_dir = BENCH_REAL_DATA_DIR;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        const char *value = (i + 1 < argc) ? argv[i + 1] : NULL;
        char *end = NULL;
        if (strcmp(arg, "--trace") == 0) {
            args->trace = 1;
            continue;
        }
        if (strcmp(arg, "--stop-after-locate") == 0) {
            args->stop_after_locate = 1;
            continue;
        }
        if (!value) {
            fprintf(stderr, "vbmc_bench: %s needs a value\n", arg);
            return -1;
        }
        ++i;
        if (strcmp(arg, "--problem") == 0) {
            args->problem = value;
        } else if (strcmp(arg, "--seed") == 0) {
            args->seed = strtoll(value, &end, 10);
            if (*end || args->seed < 0) {
                fprintf(stderr, "vbmc_bench: --seed needs a non-negative integer\n");
                return -1;
            }
        } else if (strcmp(arg, "--out") == 0) {
            args->out_path = value;
        } else if (strcmp(arg, "--max-fun-evals") == 0) {
            args->max_fun_evals = strtoll(value, &end, 10);
            if (*end || args->max_fun_evals <= 0) {
                fprintf(stderr, "vbmc_bench: --max-fun-evals needs a positive integer\n");
                return -1;
            }
        } else if (strcmp(arg, "--box") == 0) {
            args->box_name = value;
            if (strcmp(value, "prior") != 0 && strcmp(value, "informed") != 0) {
                fprintf(stderr, "vbmc_bench: --box needs prior or informed\n");
                return -1;
            }
            args->box = strcmp(value, "prior") == 0 ? BENCH_BOX_PRIOR : BENCH_BOX_INFORMED;
        } else if (strcmp(arg, "--noise") == 0) {
            args->noise_sd = strtod(value, &end);
            if (*end || !(args->noise_sd >= 0.0) || !isfinite(args->noise_sd)) {
                fprintf(stderr, "vbmc_bench: --noise needs a finite SD >= 0\n");
                return -1;
            }
        } else if (strcmp(arg, "--data-dir") == 0) {
            args->data_dir = value;
        } else if (strcmp(arg, "--save-post") == 0) {
            args->save_post = value;
        } else if (strcmp(arg, "--opt") == 0) {
            if (!strchr(value, '=') || args->extra_count == MAX_EXTRA_OPTIONS) {
                fprintf(stderr, "vbmc_bench: --opt needs name=value (at most %d)\n",
                        MAX_EXTRA_OPTIONS);
                return -1;
            }
            args->extra_options[args->extra_count++] = value;
        } else {
            fprintf(stderr, "vbmc_bench: unknown argument %s\n", arg);
            return -1;
        }
    }
    if (!args->problem || args->seed < 0 || !args->out_path) {
        fprintf(stderr, "vbmc_bench: --problem, --seed and --out are required\n");
        return -1;
    }
    if (args->box_name && strncmp(args->problem, BENCH_REAL_PREFIX, strlen(BENCH_REAL_PREFIX))) {
        fprintf(stderr, "vbmc_bench: --box applies to real:NAME problems only\n");
        return -1;
    }
    return 0;
}

/* Options: display off, the budget, the seed, then the --opt overrides. */
static vbmc_status make_options(const bench_args *args, long long budget, vbmc_opts **opts,
                                char *error, size_t error_size) {
    vbmc_status status = vbmc_opts_create(opts);
    if (status < 0) {
        snprintf(error, error_size, "vbmc_opts_create: %s", vbmc_status_name(status));
        return status;
    }
    char name[128];
    const char *value;
    char seed_text[32], budget_text[32];
    snprintf(seed_text, sizeof seed_text, "%lld", args->seed);
    snprintf(budget_text, sizeof budget_text, "%lld", budget);
    const char *settings[3 + MAX_EXTRA_OPTIONS][2] = {
        {"display", "off"}, {"max_fun_evals", budget_text}, {"seed", seed_text}};
    int count = 3;
    for (int i = 0; i < args->extra_count; ++i, ++count) {
        settings[count][0] = args->extra_options[i];
        settings[count][1] = NULL;
    }
    for (int i = 0; i < count; ++i) {
        if (settings[i][1]) {
            snprintf(name, sizeof name, "%s", settings[i][0]);
            value = settings[i][1];
        } else {
            const char *eq = strchr(settings[i][0], '=');
            snprintf(name, sizeof name, "%.*s", (int)(eq - settings[i][0]), settings[i][0]);
            value = eq + 1;
        }
        status = vbmc_opts_set(*opts, name, value);
        if (status < 0) {
            snprintf(error, error_size, "option %s=%s: %s", name, value, vbmc_opts_error(*opts));
            return status;
        }
    }
    return VBMC_OK;
}

static int write_line(const char *path, const json_out *line) {
    if (line->failed) {
        fprintf(stderr, "vbmc_bench: out of memory writing the record\n");
        return -1;
    }
    if (strcmp(path, "-") == 0) {
        fputs(line->text, stdout);
        fflush(stdout);
        return 0;
    }
    /* One write() in append mode, so runs appending to the same file do not interleave. */
    const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) {
        fprintf(stderr, "vbmc_bench: cannot open %s\n", path);
        return -1;
    }
    const ssize_t written = write(fd, line->text, line->length);
    close(fd);
    if (written != (ssize_t)line->length) {
        fprintf(stderr, "vbmc_bench: short write to %s\n", path);
        return -1;
    }
    return 0;
}

static int list_problems(void) {
    for (int i = 0; i < bench_problem_count; ++i)
        printf("%s %d %d\n", bench_problems[i].name, bench_problems[i].dim,
               50 * (bench_problems[i].dim + 2));
    return 0;
}

static int list_real_problems(void) {
    for (int i = 0; i < real_model_count; ++i)
        printf("%s%s %d %d %s\n", BENCH_REAL_PREFIX, real_models[i]->name, real_models[i]->dim,
               50 * (real_models[i]->dim + 2), real_models[i]->posterior);
    return 0;
}

/* The log joint told to the run: the target's value, plus N(0, noise_sd^2) noise where it is
 * finite. */
static double with_noise(double value, double noise_sd, bench_rng *noise) {
    if (noise_sd > 0.0 && isfinite(value)) return value + noise_sd * bench_rng_normal(noise);
    return value;
}

/* With --stop-after-locate: true once the locating stage has ended, or once the first iteration
 * has run without one. */
static int locate_stage_over(const vbmc *run, int *was_locating) {
    if (stat_or_nan(run, "locating") == 1) {
        *was_locating = 1;
        return 0;
    }
    return *was_locating || stat_or_nan(run, "iteration") >= 1;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--list") == 0) return list_problems();
    if (argc == 2 && strcmp(argv[1], "--list-real") == 0) return list_real_problems();
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    bench_args args;
    if (parse_args(argc, argv, &args) != 0) {
        usage(stderr);
        return 1;
    }
    bench_target target;
    char open_error[512];
    if (bench_target_open(&target, args.problem, args.box, args.data_dir, open_error,
                          sizeof open_error) != 0) {
        fprintf(stderr, "vbmc_bench: %s\n", open_error);
        bench_target_close(&target);
        return 1;
    }
    const bench_target *p = &target;
    const int dim = p->dim;
    const long long budget = args.max_fun_evals ? args.max_fun_evals : 50LL * (dim + 2);

    /* x0 uniform in the plausible box, from the run's seed; the noise from a stream of its own. */
    double x0[VBMC_MAX_DIM], x[VBMC_MAX_DIM];
    bench_rng rng, noise;
    bench_rng_seed(&rng, (uint64_t)args.seed);
    bench_rng_seed(&noise, (uint64_t)args.seed + NOISE_STREAM);
    for (int i = 0; i < dim; ++i)
        x0[i] = p->plb[i] + bench_rng_uniform(&rng) * (p->pub[i] - p->plb[i]);

    char error[512] = "";
    const char *failed_call = NULL;
    vbmc_status status = VBMC_OK;
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_post *post = NULL;
    trace trace_points = {NULL, 0, 0};
    accuracy final_acc;
    double elbo_true = NAN, elbo_true_sd = NAN;
    for (int i = 0; i < dim; ++i) final_acc.mean[i] = NAN;
    final_acc.elbo = final_acc.elbo_sd = final_acc.lml_err = final_acc.gskl = NAN;
    clocks target_time = {0, 0}, snapshots = {0, 0};
    long long evaluations = 0;
    double last_iteration = 0.0;
    double best_log_joint = -INFINITY;  /* of the target, without the noise */
    int was_locating = 0;

    status = make_options(&args, budget, &opts, error, sizeof error);
    if (status < 0) failed_call = "vbmc_opts_set";
    const clocks start = now();
    if (status >= 0) {
        status = vbmc_create(&run, dim, x0, p->lb, p->ub, p->plb, p->pub, opts);
        if (status < 0) {
            failed_call = "vbmc_create";
            snprintf(error, sizeof error, "%s", vbmc_last_error(NULL));
        }
    }
    vbmc_opts_destroy(opts);
    while (status >= 0) {
        status = vbmc_ask(run, x);
        if (status < 0) {
            failed_call = "vbmc_ask";
            break;
        }
        if (args.trace &&
            record_new_iteration(run, p, &last_iteration, &trace_points, &snapshots) != 0) {
            status = VBMC_E_NOMEM;
            failed_call = "trace";
            break;
        }
        if (status == VBMC_DONE) break;
        if (evaluations >= 2 * budget + 10) {
            status = VBMC_E_STATE;
            failed_call = "vbmc_ask";
            snprintf(error, sizeof error, "the run kept asking past twice its budget");
            break;
        }
        const clocks before = now();
        const double exact = bench_target_log_joint(p, x);
        const double log_joint = with_noise(exact, args.noise_sd, &noise);
        accumulate(&target_time, before, now());
        if (exact > best_log_joint) best_log_joint = exact;
        ++evaluations;
        status = vbmc_tell(run, x, log_joint, args.noise_sd);
        if (status < 0) {
            failed_call = "vbmc_tell";
            break;
        }
        if (args.trace &&
            record_new_iteration(run, p, &last_iteration, &trace_points, &snapshots) != 0) {
            status = VBMC_E_NOMEM;
            failed_call = "trace";
        }
        if (args.stop_after_locate && locate_stage_over(run, &was_locating)) break;
    }
    if (status == VBMC_DONE) {
        const vbmc_status snapshot_status = vbmc_posterior(run, &post);
        if (snapshot_status < 0) {
            status = snapshot_status;
            failed_call = "vbmc_posterior";
        }
    }
    const clocks end = now();
    if (failed_call && run && !error[0]) snprintf(error, sizeof error, "%s", vbmc_last_error(run));
    if (post) {
        const vbmc_status measured = measure(p, post, &final_acc);
        if (measured < 0) {
            status = measured;
            failed_call = "vbmc_post_moments";
            snprintf(error, sizeof error, "posterior moments failed");
        }
        elbo_true = true_elbo(p, post, FINAL_TRUE_ELBO_DRAWS, &elbo_true_sd);
        if (args.save_post && !failed_call && (status = vbmc_post_save(post, args.save_post)) < 0) {
            failed_call = "vbmc_post_save";
            snprintf(error, sizeof error, "%s", vbmc_last_error(NULL));
        }
    }

    struct rusage usage_info;
    getrusage(RUSAGE_SELF, &usage_info);
    const double wall = end.wall - start.wall;
    const double cpu = end.cpu - start.cpu;
    const double overhead_wall = wall - target_time.wall - snapshots.wall;
    const double overhead_cpu = cpu - target_time.cpu - snapshots.cpu;
    const double fevals = run ? stat_or_nan(run, "func_count") : 0.0;
    const double per_eval = fevals > 0 ? 1.0 / fevals : NAN;
    const char *blas_threads = getenv("OPENBLAS_NUM_THREADS");
    char version[64];
    snprintf(version, sizeof version, "libvbmc %s", vbmc_version());

    json_out line;
    json_init(&line);
    json_begin_object(&line);
    json_key(&line, "problem"); json_string(&line, p->name);
    json_key(&line, "family"); json_string(&line, p->family);
    json_key(&line, "D"); json_int(&line, dim);
    json_key(&line, "seed"); json_int(&line, args.seed);
    json_key(&line, "budget"); json_int(&line, budget);
    json_key(&line, "box");
    json_string(&line, p->problem ? NULL : (args.box == BENCH_BOX_PRIOR ? "prior" : "informed"));
    json_key(&line, "noise"); json_double(&line, args.noise_sd);
    json_key(&line, "status"); json_string(&line, vbmc_status_name(status));
    json_key(&line, "failed_call"); json_string(&line, failed_call);
    json_key(&line, "error"); json_string(&line, failed_call ? error : NULL);
    json_key(&line, "elbo"); json_double(&line, final_acc.elbo);
    json_key(&line, "elbo_sd"); json_double(&line, final_acc.elbo_sd);
    json_key(&line, "lml"); json_double(&line, p->lml);
    json_key(&line, "lml_err"); json_double(&line, final_acc.lml_err);
    json_key(&line, "gskl"); json_double(&line, final_acc.gskl);
    json_key(&line, "elbo_true"); json_double(&line, elbo_true);
    json_key(&line, "elbo_true_sd"); json_double(&line, elbo_true_sd);
    json_key(&line, "fevals"); json_double(&line, fevals);
    json_key(&line, "evaluations"); json_int(&line, evaluations);
    json_key(&line, "iterations"); json_double(&line, run ? stat_or_nan(run, "iteration") : NAN);
    json_key(&line, "converged"); json_double(&line, run ? stat_or_nan(run, "converged") : NAN);
    /* The closing verdict and the locating stage (statistics of libvbmc 0.2; NaN before it). */
    static const char *const verdict[] = {"reliable", "loo_error", "mass_above_data", "mass_unexplored",
                                          "best_value_gap", "box_excess", "locate_evals", "penalty_count"};
    for (size_t i = 0; i < sizeof verdict / sizeof verdict[0]; ++i) {
        json_key(&line, verdict[i]);
        json_double(&line, run ? stat_or_nan(run, verdict[i]) : NAN);
    }
    json_key(&line, "best_log_joint"); json_double(&line, best_log_joint);
    json_key(&line, "stopped_after_locate"); json_int(&line, args.stop_after_locate);
    json_key(&line, "components"); json_int(&line, post ? vbmc_post_components(post) : 0);
    json_key(&line, "wall_s"); json_double(&line, wall);
    json_key(&line, "cpu_s"); json_double(&line, cpu);
    json_key(&line, "target_wall_s"); json_double(&line, target_time.wall);
    json_key(&line, "trace_wall_s"); json_double(&line, snapshots.wall);
    json_key(&line, "overhead_wall_s"); json_double(&line, overhead_wall);
    json_key(&line, "overhead_cpu_s"); json_double(&line, overhead_cpu);
    json_key(&line, "overhead_per_eval_s"); json_double(&line, overhead_wall * per_eval);
    json_key(&line, "overhead_cpu_per_eval_s"); json_double(&line, overhead_cpu * per_eval);
    /* The library's own time by phase (vbmc_stat "time_*" wall, "cpu_*" process CPU; libvbmc 0.2). */
    static const char *const phases[] = {"gp_train", "vp_optim", "acquisition", "final_boost", "locate", "total"};
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; ++i) {
        char name[32];
        snprintf(name, sizeof name, "time_%s", phases[i]);
        json_key(&line, name); json_double(&line, run ? stat_or_nan(run, name) : NAN);
        snprintf(name, sizeof name, "cpu_%s", phases[i]);
        json_key(&line, name); json_double(&line, run ? stat_or_nan(run, name) : NAN);
    }
    json_key(&line, "peak_rss_mb"); json_double(&line, usage_info.ru_maxrss / 1024.0);
    json_key(&line, "load_average"); json_double(&line, load_average());
    json_key(&line, "blas_threads"); json_string(&line, blas_threads);
    json_key(&line, "version"); json_string(&line, version);
    json_key(&line, "x0"); json_double_array(&line, x0, dim);
    json_key(&line, "mean"); json_double_array(&line, final_acc.mean, dim);
    if (args.trace) {
        json_key(&line, "trace_columns");
        json_begin_array(&line);
        json_string(&line, "fevals");
        json_string(&line, "iteration");
        json_string(&line, "elbo");
        json_string(&line, "elbo_sd");
        json_string(&line, "lml_err");
        json_string(&line, "gskl");
        json_string(&line, "elbo_true");
        json_end_array(&line);
        json_key(&line, "trace");
        json_begin_array(&line);
        for (int i = 0; i < trace_points.count; ++i) {
            const trace_point *t = &trace_points.points[i];
            const double row[7] = {t->fevals,  t->iteration, t->elbo,     t->elbo_sd,
                                   t->lml_err, t->gskl,      t->elbo_true};
            json_double_array(&line, row, 7);
        }
        json_end_array(&line);
    }
    json_end_object(&line);
    json_end_line(&line);
    const int write_failed = write_line(args.out_path, &line);
    json_free(&line);
    free(trace_points.points);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
    bench_target_close(&target);
    if (write_failed) return 1;
    if (failed_call) {
        fprintf(stderr, "vbmc_bench: %s %s failed: %s: %s\n", p->name, failed_call,
                vbmc_status_name(status), error);
        return 2;
    }
    return 0;
}

/* The MPI driver under mpirun (tests/mpi/run-mpi-tests runs every mode):
 *   test_mpi_driver any-order         rank 1's second evaluation returns only after rank 2 has
 *                                     begun its sixth: the host must tell results in the order
 *                                     they arrive and keep the other ranks busy meanwhile
 *   test_mpi_driver nan               rank 3 fails every evaluation (NaN): counted, run completes
 *   test_mpi_driver timeout           rank 3's second evaluation takes 3 s, the timeout is 0.5 s:
 *                                     abandoned, the run completes without it, rank 3 rejoins
 *   test_mpi_driver groups            5 ranks in 2 groups of 2 computing each value together
 *   test_mpi_driver kill PATH         automatic checkpoints to PATH; rank 2 aborts the job at its
 *                                     eighth evaluation while rank 3 still holds its second
 *   test_mpi_driver resume PATH       rank 0 loads PATH: the pending points are the first ones
 *                                     the groups evaluate, the run completes, nothing told is lost
 *   test_mpi_driver arguments         refused arguments give VBMC_E_ARG on every rank
 * Exit code 0 when every check of the mode holds on every rank. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vbmc/vbmc_mpi.h>

#define DIM 2
#define MAX_CALLS 512

static int rank, size, failures;
static MPI_Comm side; /* the test's own channel between evaluating ranks */

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "rank %d: check failed at line %d: %s\n", rank, __LINE__, #cond); \
            ++failures;                                                                 \
        }                                                                               \
    } while (0)

static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* What every evaluating rank records. */
static int calls;
static double first_point[DIM];

static double gaussian(const double *x) { return -0.5 * (x[0] * x[0] + 2.0 * x[1] * x[1] - x[0] * x[1]); }

static void record(const double *x) {
    if (calls == 0) memcpy(first_point, x, sizeof first_point);
    ++calls;
}

static double any_order_f(const double *x, double *sd, MPI_Comm group, void *userdata) {
    (void)sd, (void)group, (void)userdata;
    record(x);
    if (rank == 2 && calls == 6) { /* tell rank 1 to go on */
        int go = 1;
        MPI_Send(&go, 1, MPI_INT, 1, 0, side);
    }
    if (rank == 1 && calls == 2) { /* wait for rank 2's sixth evaluation (at most 60 s) */
        int go = 0, arrived = 0;
        MPI_Request request;
        MPI_Irecv(&go, 1, MPI_INT, 2, 0, side, &request);
        for (int i = 0; i < 60000 && !arrived; ++i) {
            MPI_Test(&request, &arrived, MPI_STATUS_IGNORE);
            if (!arrived) sleep_ms(1);
        }
        CHECK(arrived);
        if (!arrived) MPI_Cancel(&request), MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    sleep_ms(2);
    return gaussian(x);
}

static double plain_f(const double *x, double *sd, MPI_Comm group, void *userdata) {
    (void)sd, (void)group, (void)userdata;
    record(x);
    return gaussian(x);
}

static double nan_f(const double *x, double *sd, MPI_Comm group, void *userdata) {
    (void)sd, (void)group, (void)userdata;
    record(x);
    return rank == 3 ? NAN : gaussian(x);
}

static double timeout_f(const double *x, double *sd, MPI_Comm group, void *userdata) {
    (void)sd, (void)group, (void)userdata;
    record(x);
    if (rank == 3 && calls == 2) sleep_ms(3000);
    return gaussian(x);
}

/* Each of the group's two ranks sums one coordinate's term; the sum is the log joint. */
static double group_f(const double *x, double *sd, MPI_Comm group, void *userdata) {
    (void)sd, (void)userdata;
    record(x);
    int group_rank = 0, group_size = 0;
    MPI_Comm_rank(group, &group_rank);
    MPI_Comm_size(group, &group_size);
    CHECK(group_size == 2);
    const double part = group_rank == 0 ? -0.5 * x[0] * x[0] : -0.5 * (2.0 * x[1] * x[1] - x[0] * x[1]);
    double total = 0.0;
    MPI_Allreduce(&part, &total, 1, MPI_DOUBLE, MPI_SUM, group);
    return total;
}

static double kill_f(const double *x, double *sd, MPI_Comm group, void *userdata) {
    (void)sd, (void)group, (void)userdata;
    record(x);
    if (rank == 3 && calls == 2) sleep_ms(60000); /* still out when the job dies */
    if (rank == 2 && calls == 8) MPI_Abort(MPI_COMM_WORLD, 42);
    sleep_ms(2);
    return gaussian(x);
}

static vbmc *make_run(int max_pending, const char *checkpoint) {
    const double plb[DIM] = {-3, -3}, pub[DIM] = {3, 3};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "off");
    vbmc_opts_set_int(opts, "seed", 11);
    vbmc_opts_set_int(opts, "max_pending", max_pending);
    vbmc_opts_set_int(opts, "max_fun_evals", 40);
    vbmc_opts_set_int(opts, "fun_eval_start", 3); /* one design point per group */
    vbmc_opts_set(opts, "locate", "off");         /* whose one point at a time would wait */
    vbmc_opts_set_int(opts, "ns_gp_max", 4);
    vbmc_opts_set_int(opts, "ns_search", 256);
    vbmc_opts_set_int(opts, "min_final_components", 5);
    if (checkpoint) vbmc_opts_set(opts, "checkpoint_file", checkpoint);
    const vbmc_status status = vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts);
    vbmc_opts_destroy(opts);
    CHECK(status == VBMC_OK);
    return run;
}

static double stat_of(const vbmc *run, const char *name) {
    double v = NAN;
    CHECK(vbmc_stat(run, name, &v) == VBMC_OK);
    return v;
}

/* Every rank's evaluation count, on rank 0 (counts[r] for rank r). */
static void gather_counts(int *counts) { MPI_Gather(&calls, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD); }

static int total_calls(const int *counts) {
    int total = 0;
    for (int r = 1; r < size; ++r) total += counts[r];
    return total;
}

/* Runs the driver with the run made on rank 0; checks the status on every rank. */
static vbmc *drive(vbmc_mpi_log_joint_fn f, int group_size, double timeout, const char *checkpoint, vbmc *loaded) {
    vbmc *run = NULL;
    if (rank == 0) run = loaded ? loaded : make_run((size - 1) / group_size, checkpoint);
    const vbmc_status status = vbmc_mpi_run(run, f, NULL, MPI_COMM_WORLD, group_size, timeout);
    if (status != VBMC_DONE) fprintf(stderr, "rank %d: %s: %s\n", rank, vbmc_status_name(status), vbmc_mpi_last_error());
    CHECK(status == VBMC_DONE);
    return run;
}

static void check_finished(vbmc *run) {
    CHECK(stat_of(run, "finished") == 1.0);
    CHECK(stat_of(run, "pending") == 0.0);
    vbmc_post *post = NULL;
    double elbo = NAN;
    CHECK(vbmc_posterior(run, &post) == VBMC_OK);
    if (post) vbmc_post_elbo(post, &elbo, NULL);
    CHECK(isfinite(elbo));
    vbmc_post_destroy(post);
}

static void any_order(void) {
    vbmc *run = drive(any_order_f, 1, 0.0, NULL, NULL);
    int counts[8] = {0};
    gather_counts(counts);
    if (rank == 0) {
        check_finished(run);
        CHECK(counts[2] >= 6);
        CHECK(stat_of(run, "func_count") == total_calls(counts));
    }
    vbmc_destroy(run);
}

static void failing_rank(void) {
    vbmc *run = drive(nan_f, 1, 0.0, NULL, NULL);
    int counts[8] = {0};
    gather_counts(counts);
    if (rank == 0) {
        check_finished(run);
        CHECK(counts[3] >= 1);
        CHECK(stat_of(run, "failed_count") == counts[3]);
        CHECK(stat_of(run, "func_count") == total_calls(counts));
    }
    vbmc_destroy(run);
}

static void late_rank(void) {
    vbmc *run = drive(timeout_f, 1, 0.5, NULL, NULL);
    int counts[8] = {0};
    gather_counts(counts); /* rank 3 gets here once its slow evaluation and the stop are done */
    if (rank == 0) {
        check_finished(run);
        CHECK(counts[3] >= 2);
        CHECK(stat_of(run, "func_count") == total_calls(counts) - 1); /* the abandoned one */
    }
    vbmc_destroy(run);
}

static void groups(void) {
    vbmc *run = drive(group_f, 2, 0.0, NULL, NULL);
    if (rank == 0) check_finished(run);
    vbmc_destroy(run);
}

static void killed(const char *path) {
    if (rank == 0) remove(path);
    MPI_Barrier(MPI_COMM_WORLD);
    drive(kill_f, 1, 0.0, path, NULL);
    CHECK(!"the job should have been aborted");
}

static void resume(const char *path) {
    vbmc *run = NULL;
    double saved = 0.0, pending = 0.0, points[8][DIM];
    if (rank == 0) {
        CHECK(vbmc_load(&run, path) == VBMC_OK);
        saved = stat_of(run, "func_count");
        pending = stat_of(run, "pending");
        CHECK(saved >= 10 && pending >= 1 && pending <= 3);
        for (int i = 0; i < (int)pending; ++i) CHECK(vbmc_pending_point(run, i, points[i]) == VBMC_OK);
    }
    run = drive(plain_f, 1, 0.0, NULL, run);
    int counts[8] = {0};
    double firsts[8][DIM];
    gather_counts(counts);
    MPI_Gather(first_point, DIM, MPI_DOUBLE, firsts, DIM, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        check_finished(run);
        for (int i = 0; i < (int)pending; ++i) CHECK(memcmp(points[i], firsts[i + 1], sizeof points[i]) == 0);
        CHECK(stat_of(run, "func_count") == saved + total_calls(counts));
        remove(path);
    }
    vbmc_destroy(run);
}

static void arguments(void) {
    vbmc *run = rank == 0 ? make_run(3, NULL) : NULL;
    vbmc_status status = vbmc_mpi_run(run, nan_f, NULL, MPI_COMM_WORLD, 2, 0.0); /* 3 ranks, groups of 2 */
    CHECK(status == VBMC_E_ARG);
    CHECK(strstr(vbmc_mpi_last_error(), "group_size = 2") != NULL);
    status = vbmc_mpi_run(run, rank == 2 ? NULL : nan_f, NULL, MPI_COMM_WORLD, 1, 0.0);
    CHECK(status == VBMC_E_ARG);
    CHECK(strstr(vbmc_mpi_last_error(), rank == 2 ? "f is NULL on rank 2" : "another rank") != NULL);
    status = vbmc_mpi_run(run, nan_f, NULL, MPI_COMM_WORLD, 1, -1.0);
    CHECK(status == VBMC_E_ARG);
    vbmc_destroy(run);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &side);
    const char *mode = argc > 1 ? argv[1] : "";
    const char *path = argc > 2 ? argv[2] : "test_mpi_driver.ckpt";
    if (!strcmp(mode, "any-order")) any_order();
    else if (!strcmp(mode, "nan")) failing_rank();
    else if (!strcmp(mode, "timeout")) late_rank();
    else if (!strcmp(mode, "groups")) groups();
    else if (!strcmp(mode, "kill")) killed(path);
    else if (!strcmp(mode, "resume")) resume(path);
    else if (!strcmp(mode, "arguments")) arguments();
    else CHECK(!"unknown mode");
    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s: %s\n", mode, all_failures ? "FAILED" : "ok");
    MPI_Comm_free(&side);
    MPI_Finalize();
    return all_failures ? 1 : 0;
}

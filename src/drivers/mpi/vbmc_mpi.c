/* vbmc_mpi_run: rank 0 asks and tells through libvbmc's public API, the other ranks evaluate.
 *
 * Messages, on a duplicate of the caller's communicator:
 *   host -> group leader   TAG_WORK    x[dim]                   evaluate x
 *   host -> group leader   TAG_STOP    x[0] = the final status  return it
 *   group leader -> host   TAG_RESULT  {log_joint, sd}
 * A leader passes each command on to its group (MPI_Bcast on the group's communicator) and the
 * whole group evaluates. The host keeps one non-blocking receive per group out and polls them all
 * (MPI_Testany), so results are told in the order they arrive. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vbmc/vbmc_mpi.h"

enum { TAG_WORK = 1, TAG_STOP = 2, TAG_RESULT = 3 };

/* The host polls for results every kPollMin seconds at first, backing off to kPollMax. */
static const double kPollMin = 1e-4, kPollMax = 2e-3;

static _Thread_local char last_error[512];

static vbmc_status fail(vbmc_status status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(last_error, sizeof last_error, format, args);
    va_end(args);
    return status;
}

/* Every MPI call goes through this: an error (only seen with an error handler that returns)
 * becomes VBMC_E_IO with MPI's own text. */
#define MPI_TRY(call)                                                                  \
    do {                                                                               \
        const int mpi_rc_ = (call);                                                    \
        if (mpi_rc_ != MPI_SUCCESS) return mpi_failure(mpi_rc_, #call);               \
    } while (0)

static vbmc_status mpi_failure(int rc, const char *call) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) snprintf(text, sizeof text, "error %d", rc);
    return fail(VBMC_E_IO, "%s failed: %s", call, text);
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sleep_seconds(double s) {
    struct timespec t = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    nanosleep(&t, NULL);
}

/* The log joint of either flavour. */
typedef struct evaluator {
    vbmc_mpi_log_joint_fn f;
    vbmc_mpi_log_joint_fint_fn f_fortran;
    void *userdata;
} evaluator;

static int has_function(const evaluator *e) { return e->f != NULL || e->f_fortran != NULL; }

static double evaluate(const evaluator *e, const double *x, double *sd, MPI_Comm group) {
    *sd = 0.0;
    return e->f ? e->f(x, sd, group, e->userdata) : e->f_fortran(x, sd, MPI_Comm_c2f(group), e->userdata);
}

/* Who is who: this rank, the groups, the communicators of the driver. */
typedef struct layout {
    int rank, size, dim, group_size, groups;
    MPI_Comm comm;  /* duplicate of the caller's */
    MPI_Comm group; /* this rank's group (MPI_COMM_NULL on the host) */
} layout;

static int leader_of(const layout *l, int g) { return 1 + g * l->group_size; }

/* This rank's arguments: "" if accepted, else why not, into reason[size]. */
static void check_arguments(const vbmc *run, const evaluator *e, int rank, int size, int group_size,
                            double timeout, char *reason, size_t reason_size) {
    reason[0] = '\0';
    if (size < 2) snprintf(reason, reason_size, "the communicator has %d rank: the host needs at least one more", size);
    else if (group_size < 1 || (size - 1) % group_size != 0)
        snprintf(reason, reason_size, "group_size = %d does not divide the %d evaluating ranks", group_size, size - 1);
    else if (!(timeout >= 0.0)) snprintf(reason, reason_size, "timeout = %g is not >= 0 (0: no timeout)", timeout);
    else if (rank == 0 && vbmc_dim(run) == 0) snprintf(reason, reason_size, "run is not a live handle on rank 0");
    else if (rank != 0 && !has_function(e)) snprintf(reason, reason_size, "f is NULL on rank %d", rank);
}

/* Collective: agrees on the arguments (refused on every rank if any rank refuses them), learns
 * the dimension from the host, and builds the communicators. */
static vbmc_status set_up(const vbmc *run, const evaluator *e, MPI_Comm comm, int group_size, double timeout,
                          layout *l) {
    l->comm = l->group = MPI_COMM_NULL;
    MPI_TRY(MPI_Comm_rank(comm, &l->rank));
    MPI_TRY(MPI_Comm_size(comm, &l->size));
    char reason[256];
    check_arguments(run, e, l->rank, l->size, group_size, timeout, reason, sizeof reason);
    int accepted = reason[0] == '\0', all_accepted = 0;
    MPI_TRY(MPI_Allreduce(&accepted, &all_accepted, 1, MPI_INT, MPI_MIN, comm));
    if (!all_accepted)
        return fail(VBMC_E_ARG, "%s", accepted ? "the arguments of another rank were refused" : reason);
    l->dim = l->rank == 0 ? vbmc_dim(run) : 0;
    MPI_TRY(MPI_Bcast(&l->dim, 1, MPI_INT, 0, comm));
    l->group_size = group_size;
    l->groups = (l->size - 1) / group_size;
    MPI_TRY(MPI_Comm_dup(comm, &l->comm));
    const int color = l->rank == 0 ? MPI_UNDEFINED : (l->rank - 1) / group_size;
    MPI_TRY(MPI_Comm_split(l->comm, color, l->rank, &l->group));
    return VBMC_OK;
}

/* ---- Evaluating ranks ----------------------------------------------------------------------- */

/* Completes a request by polling with pauses instead of MPI's busy wait, so that ranks waiting
 * for work leave the cores they share (with the host, on an oversubscribed node) to others. */
static vbmc_status wait_gently(MPI_Request *request, MPI_Status *status) {
    double pause = kPollMin;
    for (;;) {
        int done = 0;
        MPI_TRY(MPI_Test(request, &done, status));
        if (done) return VBMC_OK;
        sleep_seconds(pause);
        pause = fmin(2.0 * pause, kPollMax);
    }
}

/* A broadcast from the group's leader, waited for gently. */
static vbmc_status group_broadcast(void *buffer, int count, MPI_Datatype type, MPI_Comm group) {
    MPI_Request request;
    MPI_TRY(MPI_Ibcast(buffer, count, type, 0, group, &request));
    return wait_gently(&request, MPI_STATUS_IGNORE);
}

/* Until told to stop: receive a point (the leader) or hear it from the leader (the others),
 * evaluate it together, and the leader sends the result back. Returns the host's final status. */
static vbmc_status serve(const layout *l, const evaluator *e) {
    int group_rank = 0;
    MPI_TRY(MPI_Comm_rank(l->group, &group_rank));
    double x[VBMC_MAX_DIM];
    for (;;) {
        int command = TAG_STOP;
        vbmc_status status = VBMC_OK;
        if (group_rank == 0) {
            MPI_Request request;
            MPI_Status received;
            MPI_TRY(MPI_Irecv(x, l->dim, MPI_DOUBLE, 0, MPI_ANY_TAG, l->comm, &request));
            status = wait_gently(&request, &received);
            command = received.MPI_TAG;
        }
        if (status == VBMC_OK && l->group_size > 1) status = group_broadcast(&command, 1, MPI_INT, l->group);
        if (status == VBMC_OK && l->group_size > 1) status = group_broadcast(x, l->dim, MPI_DOUBLE, l->group);
        if (status != VBMC_OK) return status;
        if (command == TAG_STOP) {
            const vbmc_status final = (vbmc_status)(int)x[0];
            return final == VBMC_DONE ? final : fail(final, "the host stopped with %s", vbmc_status_name(final));
        }
        double result[2];
        result[0] = evaluate(e, x, &result[1], l->group);
        if (group_rank == 0) MPI_TRY(MPI_Send(result, 2, MPI_DOUBLE, 0, TAG_RESULT, l->comm));
    }
}

/* ---- The host ------------------------------------------------------------------------------ */

enum group_state { IDLE, BUSY, LOST };

typedef struct host {
    vbmc *run;
    const layout *l;
    double timeout;
    enum group_state *state;
    double *x;              /* groups x dim: the point each group evaluates */
    double *result;         /* groups x 2 */
    double *deadline;
    MPI_Request *request;   /* the result receive of each group (BUSY or LOST), else MPI_REQUEST_NULL */
    double *redo;           /* pending points found at the start, not yet dispatched */
    int redo_count, redo_next;
    int busy, lost;
    vbmc_status answer;     /* the last ask's answer, or the first failure */
    char error[512];        /* the first failure's message */
} host;

static int asking(const host *h) { return h->answer == VBMC_OK || h->answer == VBMC_WAIT; }

static void note_failure(host *h, vbmc_status status) {
    if (status >= 0 || h->answer < 0) return;
    h->answer = status;
    snprintf(h->error, sizeof h->error, "%s", vbmc_last_error(h->run));
}

static vbmc_status collect_pending_points(host *h) {
    double pending = 0.0;
    if (vbmc_stat(h->run, "pending", &pending) != VBMC_OK) return VBMC_OK;
    const int dim = h->l->dim;
    h->redo_count = (int)pending;
    h->redo = malloc(sizeof(double) * (size_t)(h->redo_count > 0 ? h->redo_count : 1) * (size_t)dim);
    if (!h->redo) return fail(VBMC_E_NOMEM, "out of memory");
    for (int i = 0; i < h->redo_count; ++i) vbmc_pending_point(h->run, i, h->redo + (size_t)i * dim);
    return VBMC_OK;
}

/* Idle groups get a pending point or a new ask, until the run answers VBMC_WAIT, finishes or
 * fails. */
static vbmc_status dispatch(host *h) {
    const int dim = h->l->dim;
    for (int g = 0; g < h->l->groups && asking(h); ++g) {
        if (h->state[g] != IDLE) continue;
        double *x = h->x + (size_t)g * dim;
        if (h->redo_next < h->redo_count) {
            memcpy(x, h->redo + (size_t)h->redo_next++ * dim, sizeof(double) * (size_t)dim);
            h->answer = VBMC_OK;
        } else {
            const vbmc_status answer = vbmc_ask(h->run, x);
            if (answer < 0) note_failure(h, answer);
            else h->answer = answer;
            if (answer != VBMC_OK) break;
        }
        MPI_TRY(MPI_Send(x, dim, MPI_DOUBLE, leader_of(h->l, g), TAG_WORK, h->l->comm));
        MPI_TRY(MPI_Irecv(h->result + 2 * g, 2, MPI_DOUBLE, leader_of(h->l, g), TAG_RESULT, h->l->comm, &h->request[g]));
        h->deadline[g] = h->timeout > 0.0 ? seconds_now() + h->timeout : INFINITY;
        h->state[g] = BUSY;
        ++h->busy;
    }
    return VBMC_OK;
}

/* A group's result has arrived: told if it was awaited; a lost group's is dropped and the group
 * rejoins. */
static void receive(host *h, int g) {
    if (h->state[g] == BUSY) {
        --h->busy;
        note_failure(h, vbmc_tell(h->run, h->x + (size_t)g * h->l->dim, h->result[2 * g], h->result[2 * g + 1]));
    } else {
        --h->lost;
    }
    h->state[g] = IDLE;
}

/* Busy groups past their deadline: their points are abandoned and the groups left alone. */
static void abandon_late(host *h) {
    const double now = seconds_now();
    for (int g = 0; g < h->l->groups; ++g) {
        if (h->state[g] != BUSY || h->deadline[g] > now) continue;
        vbmc_abandon(h->run, h->x + (size_t)g * h->l->dim);
        h->state[g] = LOST;
        --h->busy;
        ++h->lost;
    }
}

/* Waits until a result arrives or a deadline passes. */
static vbmc_status wait_for_results(host *h) {
    double pause = kPollMin;
    for (;;) {
        int index = MPI_UNDEFINED, arrived = 0;
        MPI_TRY(MPI_Testany(h->l->groups, h->request, &index, &arrived, MPI_STATUS_IGNORE));
        if (arrived && index != MPI_UNDEFINED) {
            receive(h, index);
            return VBMC_OK;
        }
        const int busy_before = h->busy;
        abandon_late(h);
        if (h->busy != busy_before) return VBMC_OK;
        sleep_seconds(pause);
        pause = fmin(2.0 * pause, kPollMax);
    }
}

/* Lost groups' receives are cancelled; every group is told to stop with the final status. */
static vbmc_status stop_groups(host *h, vbmc_status final) {
    double message[VBMC_MAX_DIM] = {0};
    message[0] = (double)final;
    for (int g = 0; g < h->l->groups; ++g) {
        if (h->request[g] != MPI_REQUEST_NULL) {
            MPI_TRY(MPI_Cancel(&h->request[g]));
            MPI_TRY(MPI_Wait(&h->request[g], MPI_STATUS_IGNORE));
        }
        MPI_TRY(MPI_Send(message, h->l->dim, MPI_DOUBLE, leader_of(h->l, g), TAG_STOP, h->l->comm));
    }
    return VBMC_OK;
}

static vbmc_status drive(host *h) {
    vbmc_status status = collect_pending_points(h);
    while (status == VBMC_OK) {
        status = dispatch(h);
        if (status != VBMC_OK) break;
        const int waiting_for_lost = asking(h) && h->busy == 0 && h->lost > 0;
        if (h->busy == 0 && !waiting_for_lost) break;
        status = wait_for_results(h);
    }
    if (status == VBMC_OK && h->answer == VBMC_WAIT)
        status = fail(VBMC_E_INTERNAL, "vbmc_ask waits with nothing pending");
    if (status == VBMC_OK && h->answer < 0) status = fail(h->answer, "%s", h->error);
    if (status == VBMC_OK) status = h->answer; /* VBMC_DONE */
    const vbmc_status stopped = stop_groups(h, status);
    return status == VBMC_DONE && stopped != VBMC_OK ? stopped : status;
}

static vbmc_status run_host(vbmc *run, const layout *l, double timeout) {
    const size_t n = (size_t)l->groups, dim = (size_t)l->dim;
    host h = {run, l, timeout, calloc(n, sizeof(enum group_state)), calloc(n * dim, sizeof(double)),
              calloc(2 * n, sizeof(double)), calloc(n, sizeof(double)), malloc(n * sizeof(MPI_Request)),
              NULL, 0, 0, 0, 0, VBMC_OK, ""};
    vbmc_status status = VBMC_OK;
    if (!h.state || !h.x || !h.result || !h.deadline || !h.request) {
        status = fail(VBMC_E_NOMEM, "out of memory");
    } else {
        for (size_t g = 0; g < n; ++g) h.request[g] = MPI_REQUEST_NULL;
        status = drive(&h);
    }
    free(h.state);
    free(h.x);
    free(h.result);
    free(h.deadline);
    free(h.request);
    free(h.redo);
    return status;
}

/* ---- Entry points ---------------------------------------------------------------------------- */

static vbmc_status run_driver(vbmc *run, const evaluator *e, MPI_Comm comm, int group_size, double timeout) {
    last_error[0] = '\0';
    layout l;
    vbmc_status status = set_up(run, e, comm, group_size, timeout, &l);
    if (status == VBMC_OK)
        status = l.rank == 0 ? run_host(run, &l, isinf(timeout) ? 0.0 : timeout) : serve(&l, e);
    if (l.group != MPI_COMM_NULL) MPI_Comm_free(&l.group);
    if (l.comm != MPI_COMM_NULL) MPI_Comm_free(&l.comm);
    if (status == VBMC_DONE) last_error[0] = '\0';
    return status;
}

VBMC_MPI_API vbmc_status vbmc_mpi_run(vbmc *run, vbmc_mpi_log_joint_fn f, void *userdata, MPI_Comm comm,
                                      int group_size, double timeout) {
    const evaluator e = {f, NULL, userdata};
    return run_driver(run, &e, comm, group_size, timeout);
}

VBMC_MPI_API vbmc_status vbmc_mpi_run_f(vbmc *run, vbmc_mpi_log_joint_fint_fn f, void *userdata, MPI_Fint comm,
                                        int group_size, double timeout) {
    const evaluator e = {NULL, f, userdata};
    return run_driver(run, &e, MPI_Comm_f2c(comm), group_size, timeout);
}

VBMC_MPI_API const char *vbmc_mpi_last_error(void) { return last_error; }

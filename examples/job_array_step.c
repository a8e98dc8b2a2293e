/* One step of a host that runs VBMC through a batch scheduler's job array, by files only: no
 * process stays up between steps, so run the step whenever jobs have finished (from the jobs'
 * epilogue, a cron entry, or a loop in the submitting script).
 *
 *   job_array_step DIR [TIMEOUT_SECONDS]
 *
 *   DIR/run.ckpt   the run, created by the first step and saved by every step (vbmc_save)
 *   DIR/todo/N.x   a point for array task N: one coordinate per line in C99 hexadecimal
 *                  floating point (%a), which reads back bitwise, as vbmc_tell needs
 *   DIR/done/N.y   its log joint, written by task N when it has finished ("nan" if it failed)
 *   DIR/next       the next task number
 *
 * A step loads the run, tells every finished result, gives up the points whose task has not
 * answered within TIMEOUT_SECONDS (vbmc_abandon; default: never), writes again the file of any
 * pending point that has none (vbmc_pending_point: a step killed after its asks and before its
 * save), asks until the run answers VBMC_WAIT, saves the run and prints the numbers of the new
 * tasks to submit, one per line, or "done ELBO" once the run has finished.
 * The log joint here is the correlated 3-D Gaussian of run_driver.c. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <vbmc/vbmc.h>

#define DIM 3
#define TASKS 8 /* array tasks out at once: option max_pending */
#define MAX_FILES 1024

static char dir[512];

static const char *path_of(const char *folder, long id, const char *ext) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s/%ld.%s", dir, folder, id, ext);
    return path;
}

static int write_point(long id, const double *x) {
    FILE *f = fopen(path_of("todo", id, "x"), "w");
    if (!f) return -1;
    for (int d = 0; d < DIM; ++d) fprintf(f, "%a\n", x[d]);
    return fclose(f);
}

static int read_numbers(const char *path, double *values, int count) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int read = 0;
    while (read < count && fscanf(f, "%lf", &values[read]) == 1) ++read; /* strtod reads %a and nan */
    fclose(f);
    return read == count ? 0 : -1;
}

/* The numbers N of the files DIR/todo/N.x. */
static int list_tasks(long *ids) {
    char folder[600];
    snprintf(folder, sizeof folder, "%s/todo", dir);
    DIR *d = opendir(folder);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL && n < MAX_FILES;) {
        char *end = NULL;
        const long id = strtol(e->d_name, &end, 10);
        if (end != e->d_name && strcmp(end, ".x") == 0) ids[n++] = id;
    }
    if (d) closedir(d);
    return n;
}

static long take_task_number(void) {
    char path[600];
    snprintf(path, sizeof path, "%s/next", dir);
    long next = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &next) != 1) next = 0;
        fclose(f);
    }
    f = fopen(path, "w");
    if (f) {
        fprintf(f, "%ld\n", next + 1);
        fclose(f);
    }
    return next;
}

static vbmc *open_run(void) {
    char path[600];
    snprintf(path, sizeof path, "%s/run.ckpt", dir);
    vbmc *run = NULL;
    if (vbmc_load(&run, path) == VBMC_OK) return run;
    const double plb[DIM] = {-2, -2, -2}, pub[DIM] = {2, 2, 2};
    vbmc_opts *opts = NULL;
    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "off");
    vbmc_opts_set_int(opts, "max_pending", TASKS);
    if (vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts) != VBMC_OK)
        fprintf(stderr, "vbmc_create: %s\n", vbmc_last_error(NULL));
    vbmc_opts_destroy(opts);
    return run;
}

static int is_pending(const vbmc *run, const double *x) {
    double pending = 0, p[DIM];
    vbmc_stat(run, "pending", &pending);
    for (int i = 0; i < (int)pending; ++i)
        if (vbmc_pending_point(run, i, p) == VBMC_OK && memcmp(p, x, sizeof p) == 0) return 1;
    return 0;
}

/* Finished tasks are told; tasks whose point is no longer pending are dropped; tasks older than
 * the timeout are abandoned. Returns the number of tasks still out, their points in out[]. */
static int collect(vbmc *run, double timeout, double out[][DIM]) {
    long ids[MAX_FILES];
    const int n = list_tasks(ids);
    int still_out = 0;
    for (int i = 0; i < n; ++i) {
        double x[DIM], value;
        struct stat info;
        if (read_numbers(path_of("todo", ids[i], "x"), x, DIM) != 0) continue;
        const int pending = is_pending(run, x);
        if (pending && read_numbers(path_of("done", ids[i], "y"), &value, 1) == 0) {
            if (vbmc_tell(run, x, value, 0.0) != VBMC_OK) fprintf(stderr, "tell: %s\n", vbmc_last_error(run));
        } else if (pending && timeout > 0 && stat(path_of("todo", ids[i], "x"), &info) == 0 &&
                   difftime(time(NULL), info.st_mtime) > timeout) {
            vbmc_abandon(run, x); /* the run will ask again */
        } else if (pending) {
            memcpy(out[still_out++], x, sizeof x);
            continue;
        }
        remove(path_of("todo", ids[i], "x"));
        remove(path_of("done", ids[i], "y"));
    }
    return still_out;
}

/* A pending point without a task file gets one again; then new asks until VBMC_WAIT. */
static vbmc_status dispatch(vbmc *run, double out[][DIM], int still_out) {
    double pending = 0, x[DIM];
    vbmc_stat(run, "pending", &pending);
    for (int i = 0; i < (int)pending; ++i) {
        vbmc_pending_point(run, i, x);
        int has_file = 0;
        for (int k = 0; k < still_out; ++k) has_file |= memcmp(out[k], x, sizeof x) == 0;
        if (has_file) continue;
        const long id = take_task_number();
        if (write_point(id, x) == 0) printf("%ld\n", id);
    }
    vbmc_status status;
    while ((status = vbmc_ask(run, x)) == VBMC_OK) {
        const long id = take_task_number();
        if (write_point(id, x) == 0) printf("%ld\n", id);
    }
    return status;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: job_array_step DIR [TIMEOUT_SECONDS]\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    const double timeout = argc > 2 ? atof(argv[2]) : 0.0;
    char folder[600];
    snprintf(folder, sizeof folder, "%s/todo", dir);
    mkdir(folder, 0755);
    snprintf(folder, sizeof folder, "%s/done", dir);
    mkdir(folder, 0755);
    vbmc *run = open_run();
    if (!run) return 1;
    static double out[MAX_FILES][DIM];
    const int still_out = collect(run, timeout, out);
    const vbmc_status status = dispatch(run, out, still_out);
    char path[600];
    snprintf(path, sizeof path, "%s/run.ckpt", dir);
    if (vbmc_save(run, path) != VBMC_OK) fprintf(stderr, "vbmc_save: %s\n", vbmc_last_error(run));
    if (status == VBMC_DONE) {
        vbmc_post *post = NULL;
        double elbo = NAN;
        if (vbmc_posterior(run, &post) == VBMC_OK) vbmc_post_elbo(post, &elbo, NULL);
        printf("done %.6f\n", elbo);
        vbmc_post_destroy(post);
    } else if (status != VBMC_WAIT) {
        fprintf(stderr, "vbmc_ask: %s\n", vbmc_last_error(run));
    }
    vbmc_destroy(run);
    return status == VBMC_DONE || status == VBMC_WAIT ? 0 : 1;
}

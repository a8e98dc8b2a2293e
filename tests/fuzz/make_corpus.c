/* Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/) from real runs:
 * checkpoints during the initial design, after the first iterations and at the end, with and
 * without pending points, bounded and unbounded; posterior files; option lists; API scripts.
 * The load / post_load seeds start with the mode byte of their target (0: the file as is, 1: its
 * payload alone).
 *   cc make_corpus.c -lvbmc -lm && ./a.out tests/fuzz/corpus */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vbmc/vbmc.h>

static const char *root;

static uint64_t read_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

/* Two seeds per file: mode byte 0 + the file as written, and mode byte 1 + its bare payload (the
 * container's magic, version, writer version and length stripped, and its CRC), which the
 * targets wrap in a valid container so that mutations reach the payload reader. */
static void copy_with_mode(const char *from, const char *target, const char *name) {
    static unsigned char bytes[1 << 22];
    FILE *in = fopen(from, "rb");
    if (!in) exit(1);
    const size_t size = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    remove(from);
    const size_t text_at = 8 + 4, payload_at = text_at + 8 + read_u64(bytes + text_at) + 8;
    if (size < payload_at + 4) exit(1);
    char to[512];
    snprintf(to, sizeof to, "%s/%s/%s", root, target, name);
    FILE *out = fopen(to, "wb");
    if (!out) exit(1);
    fputc(0, out);
    fwrite(bytes, 1, size, out);
    fclose(out);
    snprintf(to, sizeof to, "%s/%s/%s.payload", root, target, name);
    out = fopen(to, "wb");
    if (!out) exit(1);
    fputc(1, out);
    fwrite(bytes + payload_at, 1, size - payload_at - 4, out);
    fclose(out);
}

static void write_text(const char *target, const char *name, const void *bytes, size_t size) {
    char to[512];
    snprintf(to, sizeof to, "%s/%s/%s", root, target, name);
    FILE *out = fopen(to, "wb");
    if (!out) exit(1);
    fwrite(bytes, 1, size, out);
    fclose(out);
}

/* Width of the target: 1, or 1e-3 for a run that starts with the locating stage. */
static double width = 1.0;
static int with_priors = 0; /* per-coordinate priors on the bounded 3-D run (checkpoint format 8) */

static double target(const double *x, int dim) {
    double q = 0;
    for (int d = 0; d < dim; ++d) q += (x[d] - 0.2) * (x[d] - 0.2) / (width * width);
    return -0.5 * q;
}

/* The options of the corpus runs. */
static vbmc_opts *corpus_options(int budget) {
    vbmc_opts *opts = NULL;
    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "off");
    vbmc_opts_set_int(opts, "max_fun_evals", budget);
    vbmc_opts_set_int(opts, "max_pending", 4);
    vbmc_opts_set_int(opts, "ns_gp_max", 4);
    vbmc_opts_set_int(opts, "min_final_components", 4);
    return opts;
}

/* `stop_after` tells of asked points (every seventh value failed), then `pending` asks. */
static void advance(vbmc *run, int dim, int stop_after, int pending) {
    double x[3];
    for (int told = 0; told < stop_after && vbmc_ask(run, x) == VBMC_OK; ++told)
        vbmc_tell(run, x, told % 7 == 3 ? NAN : target(x, dim), 0.0);
    for (int i = 0; i < pending; ++i) vbmc_ask(run, x);
}

static vbmc *started(int dim, int bounded, int budget) {
    const double lb[3] = {-3, -3, 0}, ub[3] = {3, INFINITY, 5}, plb[3] = {-1, -1, 0.5}, pub[3] = {1, 1.5, 2};
    vbmc_opts *opts = corpus_options(budget);
    vbmc *run = NULL;
    if (vbmc_create(&run, dim, NULL, bounded ? lb : NULL, bounded ? ub : NULL, plb, pub, opts) != VBMC_OK) exit(2);
    vbmc_opts_destroy(opts);
    if (with_priors) {
        const double uniform[2] = {-3, 3}, gaussian[2] = {0, 1}, spline[4] = {0, 0.5, 2, 5};
        if (vbmc_set_prior(run, 0, "uniform", uniform, 2) != VBMC_OK || vbmc_set_prior(run, 1, "gaussian", gaussian, 2) != VBMC_OK ||
            vbmc_set_prior(run, 2, "spline_trapezoidal", spline, 4) != VBMC_OK)
            exit(3);
    }
    return run;
}

static void save_files(const char *name, vbmc *run);

/* Runs and saves a checkpoint after `stop_after` tells (leaving `pending` asked points), and a
 * posterior file when there is one. */
static void snapshot(const char *name, int dim, int bounded, int budget, int stop_after, int pending) {
    vbmc *run = started(dim, bounded, budget);
    advance(run, dim, stop_after, pending);
    save_files(name, run);
}

/* A run warm-started from another's posterior with its evaluations re-used, saved after a few tells. */
static void warm_snapshot(const char *name, int dim, int bounded) {
    vbmc *previous = started(dim, bounded, 25);
    advance(previous, dim, 17, 0);
    vbmc_opts *opts = corpus_options(20);
    vbmc *run = NULL;
    if (vbmc_create_warm(&run, previous, opts, 1) != VBMC_OK) exit(2);
    vbmc_opts_destroy(opts);
    vbmc_destroy(previous);
    advance(run, dim, 6, 1);
    save_files(name, run);
}

/* The run's checkpoint, and its posterior file when it has a posterior; destroys the run. */
static void save_files(const char *name, vbmc *run) {
    char file[600];
    vbmc_save(run, "corpus.tmp");
    snprintf(file, sizeof file, "%s.ckpt", name);
    copy_with_mode("corpus.tmp", "load", file);
    vbmc_post *post = NULL;
    if (vbmc_posterior(run, &post) == VBMC_OK) {
        vbmc_post_save(post, "corpus.tmp");
        snprintf(file, sizeof file, "%s.post", name);
        copy_with_mode("corpus.tmp", "post_load", file);
        vbmc_post_destroy(post);
    }
    vbmc_destroy(run);
}

int main(int argc, char **argv) {
    root = argc > 1 ? argv[1] : "tests/fuzz/corpus";
    snapshot("design_1d", 1, 0, 15, 2, 1);
    snapshot("design_3d_bounded", 3, 1, 20, 5, 2);
    snapshot("iter1_2d", 2, 0, 25, 11, 0);
    snapshot("iter2_2d_bounded", 2, 1, 25, 17, 1);
    snapshot("finished_1d", 1, 0, 14, 14, 0);
    snapshot("finished_3d_bounded", 3, 1, 20, 20, 0);
    width = 1e-3;
    snapshot("locating_2d", 2, 0, 60, 16, 2);
    snapshot("located_3d_bounded", 3, 1, 200, 150, 0);
    width = 1.0;
    warm_snapshot("warm_2d_bounded", 2, 1);
    with_priors = 1;
    snapshot("prior_iter2_3d_bounded", 3, 1, 25, 17, 1);
    with_priors = 0;
    const char *option_lists[] = {
        "max_fun_evals=30\nseed=4\ndisplay=off\n",
        "fun_eval_start=3\nmax_pending=4\ndo_final_boost=false\nbounded_transform=logit\n",
        "tol_sd=1e-3\ntol_skl=0.5\nwarmup=false\nsearch_acq_fcn=us\n",
        "checkpoint_every=3\nns_search=100\nmin_final_components=2\nelbo_starts=1\n",
        "locate=on\nlocate_spread=5\nlocate_max_fraction=0.2\n",
        "retry_max_fun_evals=20\nmax_fun_evals=12\n",
        "max_fun_evals=50*(D+2)\nseed=-1\nbogus=1\n=\n",
    };
    for (size_t i = 0; i < sizeof option_lists / sizeof option_lists[0]; ++i) {
        char name[32];
        snprintf(name, sizeof name, "options_%zu", i);
        write_text("options", name, option_lists[i], strlen(option_lists[i]));
    }
    /* API scripts: header bytes (dim, seed, budget, start, per_iter, pending, boost, bounded), ops. */
    unsigned char script[256];
    for (int s = 0; s < 4; ++s) {
        const unsigned char header[8] = {(unsigned char)s, (unsigned char)(7 * s), 4, 2, 1, (unsigned char)s, 0, (unsigned char)s};
        memcpy(script, header, sizeof header);
        for (size_t i = sizeof header; i < sizeof script; ++i) script[i] = (unsigned char)((i * (s + 3)) % 12 < 7 ? 0 : i * 31 + s);
        char name[32];
        snprintf(name, sizeof name, "api_%d", s);
        write_text("api", name, script, sizeof script);
    }
    return 0;
}

/* vbmc_history, vbmc_history_posterior, vbmc_history_action, vbmc_evaluations and
 * vbmc_post_sample_components: the run's records read back through the public API agree with what
 * was told and with the run's own statistics, survive a checkpoint bitwise, and wrong counts,
 * iterations or names are refused with a message naming them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

enum { DIM = 2, BUDGET = 24, FAILED_AT = 4 };

typedef struct {
    vbmc *run;
    double x[BUDGET + 1][DIM]; /* told points, in order (the last one by tell_extra) */
    double y[BUDGET + 1];
    int told;
} told_run;

static double log_joint(const double *x) { return -0.5 * (x[0] * x[0] + 4.0 * x[1] * x[1]); }

static void tell(told_run *t, const double *x, double y, int extra) {
    memcpy(t->x[t->told], x, sizeof t->x[0]);
    t->y[t->told] = y;
    ++t->told;
    assert_int_equal(extra ? vbmc_tell_extra(t->run, x, y, 0.0) : vbmc_tell(t->run, x, y, 0.0), VBMC_OK);
}

/* A cheap run told `count` asked values (one of them failed) and one extra evaluation. */
static void start_run(told_run *t, int count) {
    const double plb[DIM] = {-2, -2}, pub[DIM] = {2, 2}, extra[DIM] = {0.25, -0.5};
    vbmc_opts *opts = NULL;
    memset(t, 0, sizeof *t);
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", BUDGET), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "fun_eval_start", 6), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_gp_max", 4), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "min_final_components", 5), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", 7), VBMC_OK);
    assert_int_equal(vbmc_create(&t->run, DIM, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    tell(t, extra, log_joint(extra), 1);
    double x[DIM];
    while (t->told <= count && vbmc_ask(t->run, x) == VBMC_OK)
        tell(t, x, t->told == FAILED_AT ? NAN : log_joint(x), 0);
}

static double stat(const vbmc *run, const char *name) {
    double value = NAN;
    assert_int_equal(vbmc_stat(run, name, &value), VBMC_OK);
    return value;
}

static void test_history_follows_the_iterations(void **state) {
    (void)state;
    told_run t;
    start_run(&t, 16);
    const size_t n = (size_t)stat(t.run, "iteration");
    assert_true(n >= 2);
    double elbo[BUDGET], sd[BUDGET], count[BUDGET], flag[BUDGET];
    assert_int_equal(vbmc_history(t.run, "elbo", n, elbo), VBMC_OK);
    assert_int_equal(vbmc_history(t.run, "elbo_sd", n, sd), VBMC_OK);
    assert_int_equal(vbmc_history(t.run, "func_count", n, count), VBMC_OK);
    assert_true(stat(t.run, "finished") == 0.0);
    /* While the run goes on, its ELBO is the last iteration's. */
    assert_true(elbo[n - 1] == stat(t.run, "elbo"));
    assert_true(sd[n - 1] == stat(t.run, "elbo_sd"));
    for (size_t i = 0; i < n; ++i) {
        assert_true(isfinite(elbo[i]) && sd[i] >= 0.0);
        assert_true(count[i] <= stat(t.run, "func_count") && (i == 0 || count[i] > count[i - 1]));
    }
    const char *flags[] = {"stable", "warmup"};
    for (int f = 0; f < 2; ++f) {
        assert_int_equal(vbmc_history(t.run, flags[f], n, flag), VBMC_OK);
        for (size_t i = 0; i < n; ++i) assert_true(flag[i] == 0.0 || flag[i] == 1.0);
    }
    const char *others[] = {"skl", "r_index", "components", "train_count", "gp_samples"};
    for (int f = 0; f < 5; ++f) assert_int_equal(vbmc_history(t.run, others[f], n, flag), VBMC_OK);
    assert_int_equal(vbmc_history(t.run, "components", n, flag), VBMC_OK);
    assert_true(flag[n - 1] == stat(t.run, "components"));
    vbmc_destroy(t.run);
}

/* The hyperparameter summaries: one positive finite value per iteration. */
static void test_history_summarises_the_hyperparameters(void **state) {
    (void)state;
    told_run t;
    start_run(&t, 16);
    const size_t n = (size_t)stat(t.run, "iteration");
    const char *names[] = {"gp_output_scale", "gp_length_scale", "gp_noise_sd"};
    double values[BUDGET];
    for (int f = 0; f < 3; ++f) {
        for (size_t i = 0; i < n; ++i) values[i] = NAN;
        assert_int_equal(vbmc_history(t.run, names[f], n, values), VBMC_OK);
        for (size_t i = 0; i < n; ++i) assert_true(isfinite(values[i]) && values[i] > 0.0);
    }
    /* The noise of an exact target is small against the output scale of a log joint spreading over units. */
    double sf[BUDGET], sn[BUDGET];
    assert_int_equal(vbmc_history(t.run, "gp_output_scale", n, sf), VBMC_OK);
    assert_int_equal(vbmc_history(t.run, "gp_noise_sd", n, sn), VBMC_OK);
    assert_true(sn[n - 1] < sf[n - 1]);
    vbmc_destroy(t.run);
}

/* log q of two snapshots at the same draws of the first, bitwise equal. */
static void assert_same_posterior(const vbmc_post *a, const vbmc_post *b) {
    enum { N = 64 };
    double x[N * DIM], pa[N], pb[N], ea, eb, sa, sb;
    assert_int_equal(vbmc_post_sample(a, N, 5, x), VBMC_OK);
    assert_int_equal(vbmc_post_log_pdf(a, N, x, pa), VBMC_OK);
    assert_int_equal(vbmc_post_log_pdf(b, N, x, pb), VBMC_OK);
    assert_memory_equal(pa, pb, sizeof pa);
    assert_int_equal(vbmc_post_elbo(a, &ea, &sa), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(b, &eb, &sb), VBMC_OK);
    assert_true(ea == eb && sa == sb);
    assert_int_equal(vbmc_post_components(a), vbmc_post_components(b));
}

/* The posterior of iteration 0 read back at the end is the one vbmc_posterior gave right after
 * it, also from a loaded checkpoint; the actions are the iteration table's. */
static void test_history_posterior_is_the_past_one(void **state) {
    (void)state;
    told_run t;
    start_run(&t, 0);
    vbmc_post *then = NULL;
    double x[DIM];
    while (vbmc_ask(t.run, x) == VBMC_OK) {
        tell(&t, x, log_joint(x), 0);
        if (then == NULL && stat(t.run, "iteration") == 1.0) assert_int_equal(vbmc_posterior(t.run, &then), VBMC_OK);
    }
    assert_non_null(then);
    const int n = (int)stat(t.run, "iteration");
    assert_true(n >= 3);
    vbmc_post *past = NULL;
    assert_int_equal(vbmc_history_posterior(t.run, 0, &past), VBMC_OK);
    assert_same_posterior(then, past);
    /* The last iteration's posterior is that iteration's (its ELBO is the series' last entry), not
     * the boosted final one. */
    vbmc_post *last = NULL;
    double elbo_last, series[BUDGET];
    assert_int_equal(vbmc_history_posterior(t.run, n - 1, &last), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(last, &elbo_last, NULL), VBMC_OK);
    assert_int_equal(vbmc_history(t.run, "elbo", (size_t)n, series), VBMC_OK);
    assert_true(elbo_last == series[n - 1]);

    char action[128];
    assert_int_equal(vbmc_history_action(t.run, 0, action, sizeof action), VBMC_OK);
    assert_string_equal(action, "start warm-up");
    for (int i = 1; i < n; ++i) {
        assert_int_equal(vbmc_history_action(t.run, i, action, sizeof action), VBMC_OK);
        assert_true(strstr(action, "start warm-up") == NULL);
    }

    char path[64];
    snprintf(path, sizeof path, "test_records_past.ckpt.%ld", (long)getpid());
    assert_int_equal(vbmc_save(t.run, path), VBMC_OK);
    vbmc *loaded = NULL;
    assert_int_equal(vbmc_load(&loaded, path), VBMC_OK);
    remove(path);
    vbmc_post *reloaded = NULL;
    assert_int_equal(vbmc_history_posterior(loaded, 0, &reloaded), VBMC_OK);
    assert_same_posterior(then, reloaded);
    /* The surrogate comes along: refined draws agree bitwise. */
    double ra[8 * DIM], rb[8 * DIM];
    assert_int_equal(vbmc_post_sample_refined(past, 8, 3, ra), VBMC_OK);
    assert_int_equal(vbmc_post_sample_refined(reloaded, 8, 3, rb), VBMC_OK);
    assert_memory_equal(ra, rb, sizeof ra);
    char reread[128];
    for (int i = 0; i < n; ++i) {
        assert_int_equal(vbmc_history_action(t.run, i, action, sizeof action), VBMC_OK);
        assert_int_equal(vbmc_history_action(loaded, i, reread, sizeof reread), VBMC_OK);
        assert_string_equal(action, reread);
    }
    vbmc_post_destroy(reloaded);
    vbmc_post_destroy(last);
    vbmc_post_destroy(past);
    vbmc_post_destroy(then);
    vbmc_destroy(loaded);
    vbmc_destroy(t.run);
}

static void test_history_posterior_and_action_refuse_bad_arguments(void **state) {
    (void)state;
    told_run t;
    start_run(&t, 16);
    const int n = (int)stat(t.run, "iteration");
    vbmc_post *post = (vbmc_post *)&t; /* set to NULL by the failing calls */
    assert_int_equal(vbmc_history_posterior(t.run, n, &post), VBMC_E_ARG);
    assert_null(post);
    assert_message_mentions(vbmc_last_error(t.run), "iteration = ");
    assert_int_equal(vbmc_history_posterior(t.run, -1, &post), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(t.run), "-1");
    assert_int_equal(vbmc_history_posterior(t.run, 0, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(t.run), "out");
    assert_int_equal(vbmc_history_posterior(NULL, 0, &post), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "run");

    char action[4] = "xyz";
    assert_int_equal(vbmc_history_action(t.run, 0, action, sizeof action), VBMC_E_ARG); /* "start warm-up" */
    assert_string_equal(action, "");
    assert_message_mentions(vbmc_last_error(t.run), "needs 14");
    assert_int_equal(vbmc_history_action(t.run, n, action, sizeof action), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(t.run), "iteration = ");
    assert_int_equal(vbmc_history_action(t.run, 0, NULL, 0), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(t.run), "buf");
    assert_int_equal(vbmc_history_action(NULL, 0, action, sizeof action), VBMC_E_ARG);
    char big[64];
    assert_int_equal(vbmc_history_action(t.run, 0, big, sizeof big), VBMC_OK); /* still usable */
    assert_int_equal(vbmc_history_posterior(t.run, n - 1, &post), VBMC_OK);
    vbmc_post_destroy(post);
    vbmc_destroy(t.run);

    start_run(&t, 1); /* before the first iteration nothing is completed */
    assert_int_equal(vbmc_history_posterior(t.run, 0, &post), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(t.run), "stat \"iteration\" = 0");
    vbmc_destroy(t.run);
}

static void test_history_refuses_wrong_counts_and_names(void **state) {
    (void)state;
    told_run t;
    start_run(&t, 16);
    const size_t n = (size_t)stat(t.run, "iteration");
    double values[BUDGET];
    assert_int_equal(vbmc_history(t.run, "elbo", n + 1, values), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(t.run), "n = ");
    assert_int_equal(vbmc_history(t.run, "elbow", n, values), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(t.run), "elbow");
    assert_int_equal(vbmc_history(t.run, "elbo", n, NULL), VBMC_E_ARG);
    assert_int_equal(vbmc_history(t.run, NULL, n, values), VBMC_E_ARG);
    assert_int_equal(vbmc_history(NULL, "elbo", 0, values), VBMC_E_ARG);
    assert_int_equal(vbmc_history(t.run, "elbo", n, values), VBMC_OK); /* still usable */
    vbmc_destroy(t.run);

    start_run(&t, 1); /* before the first iteration: an empty record, names still checked */
    assert_true(stat(t.run, "iteration") == 0.0);
    assert_int_equal(vbmc_history(t.run, "elbo", 0, NULL), VBMC_OK);
    assert_int_equal(vbmc_history(t.run, "elbow", 0, NULL), VBMC_E_ARG);
    vbmc_destroy(t.run);
}

static void test_evaluations_are_what_was_told(void **state) {
    (void)state;
    told_run t;
    start_run(&t, 16);
    const size_t n = (size_t)stat(t.run, "func_count");
    assert_int_equal((int)n, t.told);
    double x[(BUDGET + 1) * DIM], y[BUDGET + 1], sd[BUDGET + 1];
    int in_training[BUDGET + 1];
    assert_int_equal(vbmc_evaluations(t.run, n, x, y, sd, in_training), VBMC_OK);
    assert_memory_equal(x, t.x, n * DIM * sizeof(double));
    int training = 0;
    for (size_t i = 0; i < n; ++i) {
        assert_true(i == FAILED_AT ? isnan(y[i]) : y[i] == t.y[i]);
        assert_true(sd[i] == 0.0);
        assert_true(in_training[i] == 0 || in_training[i] == 1);
        training += in_training[i];
    }
    assert_int_equal(in_training[FAILED_AT], 0);
    assert_int_equal(training, (int)stat(t.run, "train_count"));
    assert_int_equal(vbmc_evaluations(t.run, n, NULL, NULL, NULL, NULL), VBMC_OK);
    assert_int_equal(vbmc_evaluations(t.run, n - 1, x, y, sd, in_training), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(t.run), "func_count");
    vbmc_destroy(t.run);
}

static void test_records_survive_a_checkpoint(void **state) {
    (void)state;
    told_run t;
    start_run(&t, 16);
    char path[64];
    snprintf(path, sizeof path, "test_records.ckpt.%ld", (long)getpid());
    assert_int_equal(vbmc_save(t.run, path), VBMC_OK);
    vbmc *loaded = NULL;
    assert_int_equal(vbmc_load(&loaded, path), VBMC_OK);
    remove(path);
    const size_t n = (size_t)stat(t.run, "iteration"), m = (size_t)stat(t.run, "func_count");
    double a[BUDGET], b[BUDGET], xa[(BUDGET + 1) * DIM], xb[(BUDGET + 1) * DIM];
    assert_int_equal(vbmc_history(t.run, "elbo", n, a), VBMC_OK);
    assert_int_equal(vbmc_history(loaded, "elbo", n, b), VBMC_OK);
    assert_memory_equal(a, b, n * sizeof(double));
    assert_int_equal(vbmc_evaluations(t.run, m, xa, NULL, NULL, NULL), VBMC_OK);
    assert_int_equal(vbmc_evaluations(loaded, m, xb, NULL, NULL, NULL), VBMC_OK);
    assert_memory_equal(xa, xb, m * DIM * sizeof(double));
    vbmc_destroy(loaded);
    vbmc_destroy(t.run);
}

static void test_sample_components_labels_the_same_draws(void **state) {
    (void)state;
    told_run t;
    start_run(&t, BUDGET + 1);
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(t.run, &post), VBMC_OK);
    enum { N = 5000 }; /* more than one chunk of the sampler (4096) */
    static double plain[N * DIM], labelled[N * DIM];
    static int component[N];
    assert_int_equal(vbmc_post_sample(post, N, 99, plain), VBMC_OK);
    assert_int_equal(vbmc_post_sample_components(post, N, 99, labelled, component), VBMC_OK);
    assert_memory_equal(plain, labelled, sizeof plain);
    for (int i = 0; i < N; ++i) assert_true(component[i] >= 0 && component[i] < vbmc_post_components(post));
    assert_int_equal(vbmc_post_sample_components(post, N, 99, labelled, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "component");
    assert_int_equal(vbmc_post_sample_components(post, 0, 99, NULL, NULL), VBMC_OK);
    vbmc_post_destroy(post);
    vbmc_destroy(t.run);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_history_follows_the_iterations),
        cmocka_unit_test(test_history_refuses_wrong_counts_and_names),
        cmocka_unit_test(test_history_summarises_the_hyperparameters),
        cmocka_unit_test(test_history_posterior_is_the_past_one),
        cmocka_unit_test(test_history_posterior_and_action_refuse_bad_arguments),
        cmocka_unit_test(test_evaluations_are_what_was_told),
        cmocka_unit_test(test_records_survive_a_checkpoint),
        cmocka_unit_test(test_sample_components_labels_the_same_draws),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

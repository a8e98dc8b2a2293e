// gp_train on data from a quadratic log density: sensible MAP and samples (predictive mean
// close to the truth at held-out points), reproducible given the seed, memory carried across
// calls and serialised bitwise.
#include <cmath>

#include "gp/train.hpp"
#include "gp_test_data.hpp"
#include "io/serial.hpp"
#include "test_util.h"

using namespace libvbmc;

// log density of N(0, diag(1, 4)) with a correlation-free quadratic form, plus a constant.
static double truth(const double* x) { return -0.5 * (x[0] * x[0] + x[1] * x[1] / 4.0) - 3.0; }

static GpData quadratic_data(int n, Rng& rng) {
    GpData data;
    data.x = Matrix(n, 2);
    for (int i = 0; i < n; ++i) {
        data.x(i, 0) = 5.0 * rng.uniform() - 2.5;
        data.x(i, 1) = 8.0 * rng.uniform() - 4.0;
        data.y.push_back(truth(data.x.row(i)));
        data.s2.push_back(0.0);
    }
    return data;
}

static GpTrainSettings base_settings() {
    GpTrainSettings s;
    s.plausible_lower = {-2.0, -4.0};
    s.plausible_upper = {2.0, 4.0};
    return s;
}

static void check_predictions(const Gp& gp, Rng& rng, double tol) {
    Matrix xs(30, 2);
    for (int j = 0; j < xs.rows; ++j) {
        xs(j, 0) = 3.0 * rng.uniform() - 1.5;
        xs(j, 1) = 5.0 * rng.uniform() - 2.5;
    }
    std::vector<double> mean, var;
    gp_predict(gp, xs, mean, var);
    for (int j = 0; j < xs.rows; ++j) {
        assert_close(mean[j], truth(xs.row(j)), tol);
        assert_true(var[j] >= 0.0 && var[j] < 0.05);
    }
}

static void test_map_recovers_quadratic(void**) {
    Rng data_rng(51), rng(52);
    const GpData data = quadratic_data(40, data_rng);
    GpTrainSettings s = base_settings();
    s.stop_sampling = true;
    GpTrainMemory memory;
    assert_int_equal(gp_train_sample_count(s, data.size(), 2), 0);
    const Gp gp = gp_train(data, s, memory, rng);
    assert_int_equal(gp.samples.size(), 1);
    check_predictions(gp, data_rng, 0.02);
    // The MAP sits on the noise floor (exact data) and inside every bound.
    const std::vector<double>& t = gp.samples[0].theta;
    assert_true(t[hyp::log_sn(2)] >= std::log(std::sqrt(1e-5)));
    assert_true(t[hyp::log_sn(2)] < std::log(1e-2));
    assert_int_equal(memory.trainings, 1);
    assert_int_equal(memory.records.size(), 1);
}

static void test_sampling_reproducible_and_memory_round_trip(void**) {
    Rng data_rng(53);
    GpData data = quadratic_data(40, data_rng);
    GpTrainSettings s = base_settings();
    const int ns = gp_train_sample_count(s, data.size(), 2);
    assert_int_equal(ns, 8);  // min(round(50 / sqrt(40)), ns_gp_max_warmup)
    GpTrainMemory m1, m2;
    Rng r1(54), r2(54);
    const Gp a = gp_train(data, s, m1, r1);
    const Gp b = gp_train(data, s, m2, r2);
    assert_int_equal(a.samples.size(), 8);
    for (size_t k = 0; k < a.samples.size(); ++k)
        for (size_t i = 0; i < a.samples[k].theta.size(); ++i) assert_close(a.samples[k].theta[i], b.samples[k].theta[i], 0.0);
    check_predictions(a, data_rng, 0.05);

    // Second iteration: more data, starts and widths from the memory.
    m1.set_last_skl(0.05);
    for (int i = 0; i < 5; ++i) {
        double x[2] = {4.0 * data_rng.uniform() - 2.0, 6.0 * data_rng.uniform() - 3.0};
        data.x.append_row(x, 2);
        data.y.push_back(truth(x));
        data.s2.push_back(0.0);
    }
    s.recompute_var_post = false;
    s.previous_r_index = 3.0;
    const Gp c = gp_train(data, s, m1, r1);
    assert_int_equal(c.samples.size(), 7);  // round(50 / sqrt(45))
    check_predictions(c, data_rng, 0.05);
    assert_int_equal(m1.trainings, 2);

    Writer w;
    m1.write(w);
    Reader rd(w.bytes().data(), w.bytes().size());
    const GpTrainMemory back = GpTrainMemory::read(rd);
    assert_int_equal(rd.remaining(), 0);
    Writer w2;
    back.write(w2);
    assert_true(w.bytes() == w2.bytes());
    assert_int_equal(back.records.size(), m1.records.size());
    assert_close(back.records[0].skl, 0.05, 0.0);
    assert_true(std::isnan(back.records.back().skl));
}

static void test_noise_hpd(void**) {
    Rng data_rng(55), rng(56);
    GpData data = quadratic_data(30, data_rng);
    for (double& v : data.s2) v = 0.04;
    GpTrainSettings s = base_settings();
    s.stop_sampling = true;
    s.hyperprior.uncertainty_handling_level = 2;
    GpTrainMemory memory;
    const Gp gp = gp_train(data, s, memory, rng);
    const double sn2 = std::exp(2.0 * gp.samples[0].theta[hyp::log_sn(2)]);
    assert_close(gp_noise_hpd(gp), sn2 + 0.04, 1e-15);
}

// Records that neither seed starting points (first half of the history) nor carry covariance
// weight (large sKL makes the weights collapse) are dropped; the recent ones stay.
static void test_memory_forgets_negligible_records(void**) {
    Rng data_rng(57), rng(58);
    const GpData data = quadratic_data(12, data_rng);
    GpTrainSettings s = base_settings();
    s.stop_sampling = true;
    GpTrainMemory memory;
    for (int it = 0; it < 6; ++it) {
        gp_train(data, s, memory, rng);
        memory.set_last_skl(1e6);
    }
    assert_int_equal(memory.trainings, 6);
    // Trainings 0..1 are older than the seeding half and weigh < 1e-12: dropped.
    assert_true(memory.records.size() <= 4);
    assert_true(memory.records.size() >= 3);
    s.weighted_hyp_cov = false;  // without the weighted covariance only the seeding half is kept
    gp_train(data, s, memory, rng);
    assert_int_equal(memory.records.size(), 7 - 3);
}

// The design of random starts shrinks from gp_train_n_init to gp_train_n_init_final along
// 1 - (1 - xr)^3 of the spent budget, and stays finite when the budget leaves no room for it.
static void test_design_size_follows_the_budget(void**) {
    GpTrainSettings s = base_settings();
    s.fun_eval_start = 10.0;
    s.max_fun_evals = 110.0;
    assert_int_equal(gp_train_design_size(s, 10, 2), 1024);
    assert_int_equal(gp_train_design_size(s, 60, 2), static_cast<int>(std::nearbyint(1024.0 - 960.0 * 0.875)));
    assert_int_equal(gp_train_design_size(s, 110, 2), 64);
    assert_int_equal(gp_train_design_size(s, 500, 2), 64);
    assert_int_equal(gp_train_design_size(s, 5, 2), 1024);
    s.max_fun_evals = 10.0;
    assert_int_equal(gp_train_design_size(s, 10, 2), 64);
    s.max_fun_evals = 6.0;
    assert_int_equal(gp_train_design_size(s, 8, 2), 64);
    s.gp_train_n_init_final = 2;
    assert_int_equal(gp_train_design_size(s, 8, 2), 9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_recovers_quadratic),
        cmocka_unit_test(test_sampling_reproducible_and_memory_round_trip),
        cmocka_unit_test(test_noise_hpd),
        cmocka_unit_test(test_design_size_follows_the_budget),
        cmocka_unit_test(test_memory_forgets_negligible_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

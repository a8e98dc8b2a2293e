// The L-BFGS memory: with no pair it is the scaled identity; it satisfies the secant equation of
// its newest pair, stays symmetric positive definite, and on a quadratic with D pairs along
// independent directions equals the inverse Hessian's action on the newest; it skips pairs that
// do not curve down, forgets the oldest beyond its capacity, and reads back what it wrote.
#include "optim/lbfgs_memory.hpp"

#include <cmath>

#include "linalg/linalg.hpp"
#include "optim_test_helpers.hpp"
#include "test_util.h"
#include "util/error.hpp"

using namespace libvbmc;
using namespace optim_test;

static std::vector<double> times(const Matrix& a, const std::vector<double>& v) {
    std::vector<double> out(v.size(), 0.0);
    for (int i = 0; i < a.rows; ++i)
        for (int j = 0; j < a.cols; ++j) out[static_cast<size_t>(i)] += a(i, j) * v[static_cast<size_t>(j)];
    return out;
}

static std::vector<double> random_vector(int n, Rng& rng) {
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = rng.normal();
    return v;
}

// Pairs s, y = A s of the quadratic -1/2 x^T A x (y is the gradient's fall along s).
static LbfgsMemory memory_of_quadratic(const Matrix& a, int pairs, int capacity, Rng& rng) {
    LbfgsMemory memory(a.rows, capacity, 1.0);
    for (int k = 0; k < pairs; ++k) {
        const std::vector<double> s = random_vector(a.rows, rng);
        memory.add(s, times(a, s));
    }
    return memory;
}

static void test_empty_is_the_scaled_identity(void**) {
    const LbfgsMemory memory(3, 5, 0.25);
    const std::vector<double> v = {1.0, -2.0, 4.0};
    const std::vector<double> hv = memory.apply(v);
    for (size_t i = 0; i < 3; ++i) assert_close(hv[i], 0.25 * v[i], 1e-15);
    assert_true(memory.empty());
}

static void test_secant_equation_and_definiteness(void**) {
    Rng rng(11);
    const int n = 5;
    const Matrix a = with_spectrum(random_rotation(n, rng), {1e-2, 0.3, 1.0, 7.0, 400.0});
    LbfgsMemory memory(n, 3, 1.0);
    std::vector<double> s, y;
    for (int k = 0; k < 4; ++k) {
        s = random_vector(n, rng);
        y = times(a, s);
        memory.add(s, y);
    }
    const std::vector<double> hy = memory.apply(y);
    for (size_t i = 0; i < s.size(); ++i) assert_close(hy[i], s[i], 1e-9 * (1.0 + std::fabs(s[i])));
    Matrix h = memory.matrix();
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) assert_close(h(i, j), h(j, i), 1e-9 * (std::fabs(h(i, j)) + 1e-12));
    assert_true(cholesky_in_place(h));
    const std::vector<double> v = random_vector(n, rng), direct = memory.apply(v), dense = times(memory.matrix(), v);
    for (size_t i = 0; i < v.size(); ++i) assert_close(direct[i], dense[i], 1e-10 * (1.0 + std::fabs(dense[i])));
}

// With D pairs along A-conjugate directions (the steps of exact line searches on a quadratic)
// the estimate is A^-1, as BFGS's is after D such steps (Nocedal & Wright, theorem 6.5's setting).
static void test_full_memory_on_a_quadratic_is_the_inverse(void**) {
    Rng rng(12);
    const int n = 4;
    const Matrix rotation = random_rotation(n, rng);
    const Matrix a = with_spectrum(rotation, {0.5, 2.0, 3.0, 50.0});
    LbfgsMemory memory(n, n, 1.0);
    for (int k = 0; k < n; ++k) {  // eigenvectors of A are A-conjugate
        std::vector<double> s(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) s[static_cast<size_t>(i)] = (1.0 + k) * rotation(i, k);
        memory.add(s, times(a, s));
    }
    const std::vector<double> v = random_vector(n, rng);
    const std::vector<double> hav = memory.apply(times(a, v));
    for (size_t i = 0; i < v.size(); ++i) assert_close(hav[i], v[i], 1e-8 * (1.0 + std::fabs(v[i])));
}

static void test_skips_pairs_that_do_not_curve_down_and_forgets_the_oldest(void**) {
    LbfgsMemory memory(2, 2, 1.0);
    memory.add({1.0, 0.0}, {-1.0, 0.0});  // s.y < 0
    assert_true(memory.empty());
    memory.add({1.0, 0.0}, {2.0, 0.0});
    memory.add({0.0, 1.0}, {0.0, 4.0});
    memory.add({1.0, 1.0}, {8.0, 8.0});  // the oldest kept pair leaves
    LbfgsMemory last_two(2, 2, 1.0);
    last_two.add({0.0, 1.0}, {0.0, 4.0});
    last_two.add({1.0, 1.0}, {8.0, 8.0});
    const std::vector<double> v = {0.3, -1.7}, p = memory.apply(v), q = last_two.apply(v);
    assert_memory_equal(p.data(), q.data(), sizeof(double) * 2);
    const std::vector<double> newest = memory.apply({8.0, 8.0});
    assert_close(newest[0], 1.0, 1e-12);
    assert_close(newest[1], 1.0, 1e-12);
}

static void test_round_trip_and_refusals(void**) {
    Rng rng(13);
    const Matrix a = with_spectrum(random_rotation(3, rng), {1.0, 2.0, 3.0});
    const LbfgsMemory memory = memory_of_quadratic(a, 2, 5, rng);
    Writer out;
    memory.write(out);
    Reader in(out.bytes().data(), out.bytes().size());
    const LbfgsMemory copy = LbfgsMemory::read(in);
    const std::vector<double> v = {0.3, -0.7, 1.1}, p = memory.apply(v), q = copy.apply(v);
    assert_memory_equal(p.data(), q.data(), sizeof(double) * 3);
    for (size_t cut = 0; cut < out.bytes().size(); cut += 9) {
        Reader truncated(out.bytes().data(), cut);
        bool refused = false;
        try {
            LbfgsMemory::read(truncated);
        } catch (const Error&) {
            refused = true;
        }
        assert_true(refused);
    }
    Writer bad;  // one pair with s.y < 0
    bad.i64(2);
    bad.i64(3);
    bad.f64(1.0);
    bad.u64(1);
    bad.doubles({1.0, 0.0});
    bad.doubles({-1.0, 0.0});
    Reader bad_in(bad.bytes().data(), bad.bytes().size());
    bool refused = false;
    try {
        LbfgsMemory::read(bad_in);
    } catch (const Error&) {
        refused = true;
    }
    assert_true(refused);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_is_the_scaled_identity),
        cmocka_unit_test(test_secant_equation_and_definiteness),
        cmocka_unit_test(test_full_memory_on_a_quadratic_is_the_inverse),
        cmocka_unit_test(test_skips_pairs_that_do_not_curve_down_and_forgets_the_oldest),
        cmocka_unit_test(test_round_trip_and_refusals),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}

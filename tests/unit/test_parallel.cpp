// parallel_for runs every task exactly once, on at most the workers asked for, and hands the
// first exception back to the caller after every worker has stopped.
#include "util/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace libvbmc;

static void test_every_index_once(void**) {
    for (int threads : {0, 1, 2, 5, 64}) {
        const int count = 1000;
        std::vector<std::atomic<int>> runs(count);
        std::vector<int> worker_of(count, -1);
        parallel_for(count, resolve_thread_count(threads), [&](int index, int worker) {
            ++runs[index];
            worker_of[index] = worker;
        });
        const int workers = std::min(resolve_thread_count(threads), count);
        for (int i = 0; i < count; ++i) {
            assert_int_equal(runs[i].load(), 1);
            assert_true(worker_of[i] >= 0 && worker_of[i] < workers);
        }
    }
}

// One thread (or none asked for) runs the tasks in order on the calling thread.
static void test_one_thread_in_order(void**) {
    for (int threads : {-3, 1}) {
        std::vector<int> order;
        parallel_for(7, threads, [&](int index, int worker) {
            assert_int_equal(worker, 0);
            order.push_back(index);
        });
        assert_int_equal(static_cast<int>(order.size()), 7);
        for (int i = 0; i < 7; ++i) assert_int_equal(order[i], i);
    }
    parallel_for(0, 4, [](int, int) { fail(); });
}

static void test_exception_reaches_caller(void**) {
    for (int threads : {1, 3}) {
        std::atomic<int> started{0};
        bool caught = false;
        try {
            // Later tasks take 2 ms, so the whole loop would take a second: far longer than
            // the failure needs to reach the other workers.
            parallel_for(500, threads, [&](int index, int) {
                ++started;
                if (index == 10) throw std::runtime_error("task 10 failed");
                if (index > 10) std::this_thread::sleep_for(std::chrono::milliseconds(2));
            });
        } catch (const std::runtime_error& e) {
            caught = std::string(e.what()) == "task 10 failed";
        }
        assert_true(caught);
        assert_true(started.load() < 500);  // no new task is handed out after the failure
    }
}

static void test_resolve_thread_count(void**) {
    assert_int_equal(resolve_thread_count(3), 3);
    assert_true(resolve_thread_count(0) >= 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_index_once),
        cmocka_unit_test(test_one_thread_in_order),
        cmocka_unit_test(test_exception_reaches_caller),
        cmocka_unit_test(test_resolve_thread_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#include "util/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace libvbmc {

int resolve_thread_count(int setting) {
    if (setting > 0) return setting;
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

namespace {
thread_local int t_threads = 1;
}  // namespace

int current_threads() { return t_threads; }

ThreadScope::ThreadScope(int threads) : previous_(t_threads) { t_threads = resolve_thread_count(threads); }

ThreadScope::~ThreadScope() { t_threads = previous_; }

void parallel_for(int count, int threads, const std::function<void(int index, int worker)>& task) {
    const int workers = std::min(std::max(threads, 1), count);
    if (workers <= 1) {
        for (int index = 0; index < count; ++index) task(index, 0);
        return;
    }
    std::atomic<int> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr first_error;
    std::mutex error_mutex;
    const auto work = [&](int worker) {
        for (int index = next++; index < count && !failed; index = next++) {
            try {
                task(index, worker);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(error_mutex);
                if (!first_error) first_error = std::current_exception();
                failed = true;
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(static_cast<size_t>(workers - 1));
    try {
        for (int worker = 1; worker < workers; ++worker) pool.emplace_back(work, worker);
    } catch (...) {
        // A thread the system would not start: the ones that did and this one share the work.
    }
    work(0);
    for (std::thread& thread : pool) thread.join();
    if (first_error) std::rethrow_exception(first_error);
}

}  // namespace libvbmc

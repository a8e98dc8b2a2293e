// vbmc_run_threads: the log joint evaluated on a pool of threads while the calling thread, the
// only one that touches the run, asks and tells through the public API. Results are told in the
// order their evaluations finish; an evaluation that outlives the timeout is abandoned and its
// thread replaced, so the pool keeps its size.
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/driver_errors.hpp"

using namespace libvbmc;

namespace {

using Clock = std::chrono::steady_clock;

// The largest pool, as the largest max_pending.
constexpr int kMaxDriverThreads = 1024;

// One evaluation slot, served by one thread. Guarded by Shared::mutex.
struct Slot {
    enum class State { idle, assigned, finished, stop };
    State state = State::idle;
    bool abandoned = false;  // the host gave up on it; its thread exits when f returns
    std::vector<double> x;
    double value = 0.0, sd = 0.0;
    Clock::time_point deadline;
    std::condition_variable wake;  // the thread waits here for a point or for stop
};

// What the host and every thread share; threads hold it by shared_ptr, so an abandoned thread
// that outlives the call still finds it.
struct Shared {
    std::mutex mutex;
    std::condition_variable finished;         // the host waits here for results
    std::deque<std::shared_ptr<Slot>> done;   // finished slots, in order of completion
    vbmc_log_joint_fn f = nullptr;
    void* userdata = nullptr;
};

void serve(std::shared_ptr<Shared> shared, std::shared_ptr<Slot> slot) {
    std::unique_lock<std::mutex> lock(shared->mutex);
    for (;;) {
        slot->wake.wait(lock, [&] { return slot->state == Slot::State::assigned || slot->state == Slot::State::stop; });
        if (slot->state == Slot::State::stop) return;
        const std::vector<double> x = slot->x;
        lock.unlock();
        double sd = 0.0;
        const double value = shared->f(x.data(), &sd, shared->userdata);
        lock.lock();
        if (slot->abandoned || slot->state == Slot::State::stop) return;
        slot->value = value;
        slot->sd = sd;
        slot->state = Slot::State::finished;
        shared->done.push_back(slot);
        shared->finished.notify_one();
    }
}

class Pool {
public:
    Pool(vbmc* run, vbmc_log_joint_fn f, void* userdata, double timeout)
        : run_(run), dim_(vbmc_dim(run)), timeout_(timeout), shared_(std::make_shared<Shared>()) {
        shared_->f = f;
        shared_->userdata = userdata;
    }

    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(shared_->mutex);
            for (auto& slot : slots_) {
                slot->state = Slot::State::stop;
                slot->wake.notify_one();
            }
        }
        for (std::thread& t : threads_)
            if (t.joinable()) t.join();
    }

    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    // Pending points first, then asks, until the run is done or a call fails; the evaluations
    // still out are then waited for and told. Returns VBMC_DONE or the first error.
    vbmc_status drive(int threads) {
        for (int i = 0; i < threads; ++i) start_thread(static_cast<size_t>(i));
        queue_pending_points();
        for (;;) {
            dispatch();
            if (busy_ == 0) break;
            std::unique_lock<std::mutex> lock(shared_->mutex);
            wait_for_results(lock);
            tell_results(lock);
            abandon_late(lock);
        }
        if (result_ == VBMC_WAIT)  // nothing out, yet nothing to hand out
            return driver_error(run_, VBMC_E_INTERNAL, "internal error: vbmc_ask waits with nothing pending");
        // The tells of the evaluations still out cleared the failed call's message: restore it.
        return result_ < 0 ? driver_error(run_, result_, error_) : result_;
    }

private:
    void start_thread(size_t i) {
        if (i == slots_.size()) {
            slots_.push_back(nullptr);
            threads_.emplace_back();
        }
        slots_[i] = std::make_shared<Slot>();
        threads_[i] = std::thread(serve, shared_, slots_[i]);
    }

    void queue_pending_points() {
        double pending = 0.0;
        if (vbmc_stat(run_, "pending", &pending) != VBMC_OK) return;
        for (int i = 0; i < static_cast<int>(pending); ++i) {
            std::vector<double> x(static_cast<size_t>(dim_));
            if (vbmc_pending_point(run_, i, x.data()) == VBMC_OK) redo_.push_back(x);
        }
    }

    // Idle slots get a pending point or a new ask, until the run answers VBMC_WAIT, finishes or fails.
    void dispatch() {
        if (result_ != VBMC_OK && result_ != VBMC_WAIT) return;
        for (auto& slot : slots_) {
            {
                std::lock_guard<std::mutex> lock(shared_->mutex);
                if (slot->state != Slot::State::idle) continue;
            }
            std::vector<double> x(static_cast<size_t>(dim_));
            if (!redo_.empty()) {
                x = redo_.front();
                redo_.pop_front();
                result_ = VBMC_OK;
            } else {
                result_ = vbmc_ask(run_, x.data());
            }
            if (result_ < 0) error_ = vbmc_last_error(run_);
            if (result_ != VBMC_OK) return;
            std::lock_guard<std::mutex> lock(shared_->mutex);
            slot->x = x;
            slot->deadline = timeout_ > 0.0 ? Clock::now() + to_duration(timeout_) : Clock::time_point::max();
            slot->state = Slot::State::assigned;
            slot->wake.notify_one();
            ++busy_;
        }
    }

    static Clock::duration to_duration(double seconds) {
        return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    }

    void wait_for_results(std::unique_lock<std::mutex>& lock) {
        Clock::time_point first = Clock::time_point::max();
        for (const auto& slot : slots_)
            if (slot->state == Slot::State::assigned && slot->deadline < first) first = slot->deadline;
        const auto ready = [&] { return !shared_->done.empty(); };
        if (first == Clock::time_point::max()) shared_->finished.wait(lock, ready);
        else shared_->finished.wait_until(lock, first, ready);
    }

    // Tells the finished evaluations in the order they finished (the lock is released during the
    // calls). A failed tell leaves its point pending and stops the asks.
    void tell_results(std::unique_lock<std::mutex>& lock) {
        while (!shared_->done.empty()) {
            const std::shared_ptr<Slot> slot = shared_->done.front();
            shared_->done.pop_front();
            const std::vector<double> x = slot->x;
            const double value = slot->value, sd = slot->sd;
            lock.unlock();
            const vbmc_status told = vbmc_tell(run_, x.data(), value, sd);
            lock.lock();
            slot->state = Slot::State::idle;
            --busy_;
            if (told != VBMC_OK && result_ >= 0) {
                result_ = told;
                error_ = vbmc_last_error(run_);
            }
        }
    }

    // Evaluations past their deadline: the point is abandoned (the run will ask again) and the
    // slot gets a fresh thread; the late one is left to finish on its own, its value ignored.
    void abandon_late(std::unique_lock<std::mutex>& lock) {
        const Clock::time_point now = Clock::now();
        for (size_t i = 0; i < slots_.size(); ++i) {
            const std::shared_ptr<Slot> slot = slots_[i];
            if (slot->state != Slot::State::assigned || slot->deadline > now) continue;
            slot->abandoned = true;
            --busy_;
            threads_[i].detach();
            start_thread(i);
            lock.unlock();
            vbmc_abandon(run_, slot->x.data());
            lock.lock();
        }
    }

    vbmc* run_;
    int dim_;
    double timeout_;
    std::shared_ptr<Shared> shared_;
    std::vector<std::shared_ptr<Slot>> slots_;
    std::vector<std::thread> threads_;
    std::deque<std::vector<double>> redo_;  // pending points found at the start, not yet dispatched
    int busy_ = 0;                          // slots assigned or finished, not yet told
    vbmc_status result_ = VBMC_OK;          // the last ask's answer, or the first failure
    std::string error_;                     // the first failure's message
};

}  // namespace

extern "C" VBMC_API vbmc_status vbmc_run_threads(vbmc* run, vbmc_log_joint_fn f, void* userdata, int threads,
                                                 double timeout) {
    if (vbmc_dim(run) == 0) return driver_error(run, VBMC_E_ARG, "run is not a live handle");
    if (f == nullptr) return driver_error(run, VBMC_E_ARG, "f is NULL");
    if (threads < 1 || threads > kMaxDriverThreads)
        return driver_error(run, VBMC_E_ARG, "threads = " + std::to_string(threads) + " is outside [1, " +
                                                 std::to_string(kMaxDriverThreads) + "]");
    if (!(timeout >= 0.0))
        return driver_error(run, VBMC_E_ARG, "timeout = " + std::to_string(timeout) + " is not >= 0 (0: no timeout)");
    return driver_guarded(run, [&] {
        Pool pool(run, f, userdata, std::isinf(timeout) ? 0.0 : timeout);
        return pool.drive(threads);
    });
}

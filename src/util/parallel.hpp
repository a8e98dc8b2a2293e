// The library's own worker threads (option num_threads). Parallel loops whose tasks write to
// disjoint places and whose results the caller combines in a fixed order, so a run gives bitwise
// the same values whatever the number of threads.
#pragma once
#include <functional>

namespace libvbmc {

// The workers a setting asks for: 0 = one per hardware thread, otherwise the setting itself.
int resolve_thread_count(int setting);

// The workers the library's parallel loops use on the calling thread: 1 unless a ThreadScope
// says otherwise. The C API sets it from the run's option num_threads for each call on a run.
int current_threads();

class ThreadScope {
public:
    explicit ThreadScope(int threads);  // threads as resolve_thread_count takes it
    ~ThreadScope();
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

private:
    int previous_;
};

// Runs task(index, worker) for every index in [0, count) on min(threads, count) workers, the
// calling thread being worker 0; workers take the next index as they become free. An exception
// thrown by a task stops the handing out of new indices and is rethrown here (the first one
// thrown) once every worker has stopped. threads <= 1 runs the tasks in order on this thread.
void parallel_for(int count, int threads, const std::function<void(int index, int worker)>& task);

}  // namespace libvbmc

// Live handles by id. The pointer a caller holds is an id, never an address, and the library never
// dereferences it: a destroyed handle, one destroyed twice, or a stale one whose memory a new
// object now occupies is recognised as invalid without reading freed memory. Ids come from one
// counter shared by every handle type and are never reused.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace libvbmc {

// The next id: a multiple of 16 (so it looks like an aligned pointer), never 0, never repeated.
uintptr_t next_handle_id();

// The live objects of one handle type. Handle is the public opaque type (never completed in
// C++), Object what it stands for.
template <typename Handle, typename Object>
class HandleTable {
public:
    Handle* add(std::unique_ptr<Object> object) {
        const uintptr_t id = next_handle_id();
        std::lock_guard<std::mutex> lock(mutex_);
        live_.emplace(id, std::move(object));
        return reinterpret_cast<Handle*>(id);
    }

    // The object behind a live handle; nullptr for NULL, a destroyed or a foreign handle.
    Object* find(const Handle* handle) {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = live_.find(reinterpret_cast<uintptr_t>(handle));
        return it == live_.end() ? nullptr : it->second.get();
    }

    // Frees the object of a live handle (outside the lock); anything else is ignored.
    void destroy(const Handle* handle) {
        std::unique_ptr<Object> object;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            const auto it = live_.find(reinterpret_cast<uintptr_t>(handle));
            if (it == live_.end()) return;
            object = std::move(it->second);
            live_.erase(it);
        }
    }

private:
    std::mutex mutex_;
    std::unordered_map<uintptr_t, std::unique_ptr<Object>> live_;
};

}  // namespace libvbmc

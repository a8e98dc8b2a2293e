// libFuzzer target: random sequences of API calls with random values on one run. The input is
// read as a stream of operation codes and operands; a run in dimension 1..3 with a small budget
// and cheap search settings is driven through ask / tell (finite, NaN, +-Inf, noisy values) /
// tell of foreign points / tell_extra / abandon / pending_point / stat / posterior / save+load,
// with or without the locating stage forced on.
// Every call must return a status; the handle must stay usable; a run with nothing pending
// must have a point to ask or be finished.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "vbmc/vbmc.h"

namespace {

class Input {
public:
    Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    bool empty() const { return pos_ >= size_; }
    uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
    double real() {
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | byte();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
    }
    // A value from a small menu of interesting ones, or raw bits.
    double value() {
        switch (byte() % 8) {
            case 0: return NAN;
            case 1: return INFINITY;
            case 2: return -INFINITY;
            case 3: return -1e300;
            case 4: return real();
            default: return -0.5 * (byte() % 50);
        }
    }

private:
    const uint8_t* data_;
    size_t size_;
    size_t pos_ = 0;
};

void check(bool ok) {
    if (!ok) __builtin_trap();
}

bool is_status(vbmc_status s) { return s >= VBMC_E_INTERNAL && s <= VBMC_WAIT && s != VBMC_E_INTERNAL; }

// Ask, checking liveness: with nothing pending the run has a point to give or has finished, and
// it never answers the old error for "tell one first".
vbmc_status ask_live(vbmc* run, double* x) {
    double pending = 0;
    check(vbmc_stat(run, "pending", &pending) == VBMC_OK);
    const vbmc_status s = vbmc_ask(run, x);
    check(s != VBMC_E_STATE);
    if (pending == 0) check(s != VBMC_WAIT);
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Input in(data, size);
    const int dim = 1 + in.byte() % 3;
    vbmc_opts* opts = nullptr;
    check(vbmc_opts_create(&opts) == VBMC_OK);
    vbmc_opts_set(opts, "display", "off");
    vbmc_opts_set_int(opts, "seed", in.byte());
    vbmc_opts_set_int(opts, "max_fun_evals", 6 + in.byte() % 14);
    vbmc_opts_set_int(opts, "fun_eval_start", 3 + in.byte() % 4);
    vbmc_opts_set_int(opts, "fun_evals_per_iter", 1 + in.byte() % 3);
    vbmc_opts_set_int(opts, "elbo_starts", 1);
    vbmc_opts_set_int(opts, "ns_gp_max_warmup", 2);
    vbmc_opts_set_int(opts, "max_pending", 1 + in.byte() % 3);
    vbmc_opts_set_int(opts, "ns_search", 64);
    vbmc_opts_set_int(opts, "search_max_fun_evals", 40);
    vbmc_opts_set_int(opts, "ns_gp_max", 2);
    vbmc_opts_set_int(opts, "min_final_components", 2);
    const uint8_t flags = in.byte();
    vbmc_opts_set(opts, "do_final_boost", (flags & 1) ? "true" : "false");
    vbmc_opts_set(opts, "locate", (flags & 2) ? "on" : "auto");  // the locating stage, whatever the values
    std::vector<double> lb(static_cast<size_t>(dim)), ub(static_cast<size_t>(dim)), plb(static_cast<size_t>(dim)),
        pub(static_cast<size_t>(dim));
    const bool bounded = in.byte() & 1;
    for (int d = 0; d < dim; ++d) {
        plb[static_cast<size_t>(d)] = -1.0 - 0.1 * d;
        pub[static_cast<size_t>(d)] = 1.0 + 0.2 * d;
        lb[static_cast<size_t>(d)] = -3.0;
        ub[static_cast<size_t>(d)] = (d == 0) ? INFINITY : 4.0;
    }
    vbmc* run = nullptr;
    check(vbmc_create(&run, dim, nullptr, bounded ? lb.data() : nullptr, bounded ? ub.data() : nullptr, plb.data(),
                      pub.data(), opts) == VBMC_OK);
    vbmc_opts_destroy(opts);
    const std::string path = std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + std::string("/vbmc_fuzz_api_") + std::to_string(static_cast<long>(getpid()));
    std::vector<double> x(static_cast<size_t>(dim)), y(static_cast<size_t>(dim));
    double v;
    for (int step = 0; step < 200 && !in.empty(); ++step) {
        vbmc_status s = VBMC_OK;
        switch (in.byte() % 12) {
            case 0:
            case 1:
            case 2: {  // ask and tell the answer, the usual loop
                s = ask_live(run, x.data());
                if (s == VBMC_OK) s = vbmc_tell(run, x.data(), -0.5 * x[0] * x[0] + in.value() * 1e-3, 0.0);
                break;
            }
            case 3: s = ask_live(run, x.data()); break;
            case 4: {  // tell a pending point (or the last asked one) with a hostile value / SD
                double pending = 0;
                vbmc_stat(run, "pending", &pending);
                if (pending > 0) vbmc_pending_point(run, in.byte() % static_cast<int>(pending), x.data());
                s = vbmc_tell(run, x.data(), in.value(), (in.byte() & 1) ? std::fabs(in.value()) : 0.0);
                break;
            }
            case 5:  // a point never asked
                for (double& c : y) c = in.real();
                s = vbmc_tell(run, y.data(), in.value(), 0.0);
                break;
            case 6:
                for (double& c : y) c = (in.byte() - 128) / 40.0;
                s = vbmc_tell_extra(run, y.data(), in.value(), 0.0);
                break;
            case 7: {
                double pending = 0;
                vbmc_stat(run, "pending", &pending);
                if (pending > 0) vbmc_pending_point(run, 0, x.data());
                s = vbmc_abandon(run, x.data());
                break;
            }
            case 8: s = vbmc_pending_point(run, static_cast<int>(in.byte()) - 2, y.data()); break;
            case 9:
                for (const char* name : {"iteration", "func_count", "elbo", "r_index", "stable_count", "bogus"})
                    check(is_status(vbmc_stat(run, name, &v)));
                break;
            case 10: {
                vbmc_post* post = nullptr;
                if (vbmc_posterior(run, &post) == VBMC_OK) {
                    std::vector<double> draws(3 * static_cast<size_t>(dim)), lp(3), mean(static_cast<size_t>(dim));
                    check(vbmc_post_sample(post, 3, in.byte(), draws.data()) == VBMC_OK);
                    check(vbmc_post_log_pdf(post, 3, draws.data(), lp.data()) == VBMC_OK);
                    check(vbmc_post_moments(post, mean.data(), nullptr) == VBMC_OK);
                    vbmc_post_destroy(post);
                }
                break;
            }
            case 11: {  // checkpoint round trip: the loaded run replaces the original
                check(vbmc_save(run, path.c_str()) == VBMC_OK);
                vbmc* loaded = nullptr;
                check(vbmc_load(&loaded, path.c_str()) == VBMC_OK);
                vbmc_destroy(run);
                run = loaded;
                break;
            }
        }
        check(is_status(s));
        if (s == VBMC_E_NUMERIC) break;  // reported, not a crash; the handle is still released below
    }
    vbmc_destroy(run);
    std::remove(path.c_str());
    return 0;
}

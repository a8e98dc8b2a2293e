// The option table: every user-settable option with PyVBMC's snake_case name, type, default
// (possibly a function of the dimension D) and one-line help; values are validated when set.
#pragma once
#include <string>
#include <vector>

#include "io/serial.hpp"

namespace libvbmc {

enum class OptionType { integer, real, text, boolean };

struct OptionSpec {
    const char* name;
    OptionType type;
    const char* default_text;  // as shown to users, e.g. "50*(D+2)"
    const char* help;
    double min_value;          // numeric options: inclusive range
    double max_value;
    const char* choices;       // text options: '|'-separated allowed values, nullptr = any text
    bool list = false;         // text options with choices: a ','-separated list of them is allowed
};

const std::vector<OptionSpec>& option_table();
// The pieces of text between separators ("a,b" -> {"a", "b"}; "" -> {""}).
std::vector<std::string> split_text(const std::string& text, char separator);
int option_index(const std::string& name);  // -1 if unknown
const char* option_type_name(OptionType type);

// Values as set by the user: numeric options hold a double, text options a string; an unset
// option keeps its (possibly D-dependent) default, resolved by resolve().
class OptionValues {
public:
    OptionValues();
    // Parse and validate; throws Error(option) naming the option and the value.
    void set_text(const std::string& name, const std::string& value);
    void set_number(const std::string& name, double value);
    // Integers beyond 2^53 in magnitude are refused (a double would round them).
    void set_integer(const std::string& name, long long value);
    std::string get_text(const std::string& name) const;
    bool is_set(int index) const { return set_[static_cast<size_t>(index)]; }
    double number(int index) const { return numbers_[static_cast<size_t>(index)]; }
    const std::string& text(int index) const { return texts_[static_cast<size_t>(index)]; }

    // Checkpoints store the user's values, so a resumed run resolves the same settings.
    void write(Writer& out) const;
    static OptionValues read(Reader& in);

private:
    void check_number(int index, double value) const;
    std::vector<bool> set_;
    std::vector<double> numbers_;
    std::vector<std::string> texts_;
};

// All options resolved for a dimension: what the engine reads.
struct Settings {
    int dim = 0;
    std::string display;
    int max_fun_evals, max_iter, fun_eval_start, fun_evals_per_iter, tol_stable_count;
    int min_fun_evals, min_iter, min_final_components, retry_max_fun_evals;
    bool do_final_boost;
    std::string component_scales;
    std::string locate;
    bool locate_climb;
    double locate_spread, locate_max_fraction;
    std::string search_acq_fcn;
    unsigned long long seed;
    int max_pending;
    int ns_gp_max, ns_gp_max_warmup, stable_gp_sampling;
    double gp_mean_dof;  // 0: negative-quadratic GP mean; nu > 0: its heavy-tailed variant
    double tol_gp_var_mcmc;
    int elbo_starts;
    double tol_sd, tol_skl, tol_improvement, tol_stable_excpt_frac;
    bool warmup;
    double warmup_keep_threshold, warmup_keep_threshold_false_alarm, stop_warmup_thresh;
    int tol_stable_warmup;
    double warmup_no_impro_threshold, stop_warmup_reliability;
    double elcbo_impro_weight, best_safe_sd, best_frac_back;
    bool rank_criterion;
    std::string bounded_transform;
    int search_max_fun_evals, ns_search;
    int num_threads;  // 0 = one per hardware thread (util/parallel.hpp)
    bool warp_rotoscaling;
    int warp_every_iters, warp_min_k;
    double warp_tol_reliability, warp_tol_improvement, warp_roto_corr_thresh;
    std::string checkpoint_file;
    int checkpoint_every;
    bool specify_target_noise, uncertainty_handling;  // noisy mode declared by option
    double noise_size;
    int noise_shaping;  // 1 on, 0 off, -1 unset (on in noisy mode)
    double noise_shaping_threshold, noise_shaping_factor;

    // The noisy-mode defaults of the options the user left unset (PyVBMC update_defaults).
    void apply_noisy_defaults(const OptionValues& values);

    static Settings resolve(const OptionValues& values, int dim);
};

}  // namespace libvbmc

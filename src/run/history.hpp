// What the run remembers of each iteration: the statistics of the iteration table, the
// quantities the warm-up / termination rules look back on (paper sections 3.5-3.7), and enough
// to rebuild that iteration's posterior and surrogate for the final choice.
#pragma once
#include <string>
#include <vector>

#include "io/serial.hpp"
#include "run/surrogate_values.hpp"
#include "transforms/parameter_transform.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

struct IterationRecord {
    int iteration = 0;
    int func_count = 0;        // evaluations told by the end of the iteration
    int n_train = 0;           // training-set size of the surrogate
    double elbo = 0.0;
    double elbo_sd = 0.0;
    double skl = 0.0;          // symmetrised KL to the previous iteration's posterior
    double r_index = 0.0;      // reliability index (inf when undefined)
    double elcbo_impro = 0.0;  // slope of the ELCBO against evaluations (NaN when undefined)
    double lcb_max = 0.0;      // max over training points of mean - beta * SD of the surrogate
    double sn2_hpd = 0.0;      // noise variance estimate at high-density points
    bool stable = false;
    bool warmup = false;
    int pruned = 0;            // components pruned by this iteration's optimisation
    int n_gp_samples = 0;
    double gp_sample_var = 0.0;  // spread of the expected log joint across hyperparameter samples
    VariationalPosterior vp;
    ParameterTransform transform;                // the space vp and gp_thetas live in
    std::vector<std::vector<double>> gp_thetas;  // the surrogate's hyperparameter samples
    std::vector<int> train_index;                // which evaluations formed its training set
    ValueShaping value_shaping;                  // how their told values became its targets
    std::string action;

    double elcbo(double beta) const { return elbo - beta * elbo_sd; }
    void write(Writer& out) const;
    static IterationRecord read(Reader& in);
};

// The names of the per-iteration series vbmc_history gives, in the order the header lists them.
const std::vector<std::string>& history_series_names();
// Series `name` of one record (vbmc_history); throws Error(arg) for an unknown name.
double history_value(const IterationRecord& record, const std::string& name);

}  // namespace libvbmc

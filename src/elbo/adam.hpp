// Adam for the stochastic ELBO (PyVBMC vbmc/minimize_adam.py): step size decaying from
// master_max to master_min, early stopping from a linear fit over mini-batches of iterations.
#pragma once
#include <functional>
#include <vector>

namespace libvbmc {

struct AdamSettings {
    double tol_fun = 1e-3;
    int max_iter = 10000;
    double master_min = 0.001;
    double master_max = 0.1;
    double master_decay = 200.0;
    bool early_stopping = true;
};

struct AdamResult {
    std::vector<double> x;          // mean of the last mini-batch of iterates
    double f = 0.0;                 // mean objective over the last mini-batch
    std::vector<double> best_x;     // iterate whose objective value was lowest ("midpoint")
    double best_f = 0.0;
    int iterations = 0;
};

// objective(x, grad) returns f(x) and writes the gradient into grad (same size as x).
AdamResult minimize_adam(const std::function<double(const std::vector<double>&, std::vector<double>&)>& objective,
                         std::vector<double> x0, const AdamSettings& settings);

}  // namespace libvbmc

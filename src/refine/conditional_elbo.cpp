#include "refine/conditional_elbo.hpp"

#include <cmath>

#include "elbo/expected_log_joint.hpp"
#include "util/error.hpp"

namespace libvbmc {

ConditionalElbo::ConditionalElbo(const Gp& gp, const Responsibility& responsibility, int j, const DiagGaussian& component,
                                 const std::vector<double>& centre, double left)
    : gp_(gp), responsibility_(responsibility), j_(j), component_(component), centre_(centre),
      window_var_(component.var.size()) {
    const int dim = static_cast<int>(component.var.size());
    for (int d = 0; d < dim; ++d) window_var_[static_cast<size_t>(d)] = left * component.var[static_cast<size_t>(d)];
    q_.dim = dim;
    q_.k = 1;
    q_.w = {1.0};
    q_.mu = Matrix(1, dim);
    q_.sigma = {1.0};
    q_.lambda.assign(static_cast<size_t>(dim), 1.0);
}

void ConditionalElbo::set_q(const std::vector<double>& nu, const std::vector<double>& log_rho) const {
    for (int d = 0; d < q_.dim; ++d) {
        q_.mu(0, d) = nu[static_cast<size_t>(d)];
        q_.lambda[static_cast<size_t>(d)] = std::exp(log_rho[static_cast<size_t>(d)]);
    }
}

// Degree-3 spherical cubature of E_q[log r(j | w)] and its gradient (header).
double ConditionalElbo::responsibility_term(const std::vector<double>& nu, const std::vector<double>& rho, double* grad) const {
    const int dim = q_.dim;
    const double radius = std::sqrt(static_cast<double>(dim));
    const double weight = 0.5 / dim;
    std::vector<double> w = nu, g(static_cast<size_t>(dim));
    double total = 0.0;
    for (int d = 0; d < dim; ++d) {
        for (const double sign : {1.0, -1.0}) {
            const double step = sign * radius * rho[static_cast<size_t>(d)];
            w[static_cast<size_t>(d)] = nu[static_cast<size_t>(d)] + step;
            total += weight * responsibility_.log_value(j_, w.data(), grad ? g.data() : nullptr);
            if (grad != nullptr) {
                for (int e = 0; e < dim; ++e) grad[e] += weight * g[static_cast<size_t>(e)];
                grad[dim + d] += weight * step * g[static_cast<size_t>(d)];  // d w / d log rho_d = step
            }
        }
        w[static_cast<size_t>(d)] = nu[static_cast<size_t>(d)];
    }
    return total;
}

double ConditionalElbo::value(const std::vector<double>& nu, const std::vector<double>& log_rho, std::vector<double>* grad) const {
    const int dim = q_.dim;
    set_q(nu, log_rho);
    LogJointEstimate log_joint;
    expected_log_joint(q_, gp_, grad != nullptr, false, log_joint);
    double total = log_joint.value;
    if (grad != nullptr) {
        grad->assign(static_cast<size_t>(2 * dim), 0.0);
        for (int d = 0; d < dim; ++d) {
            (*grad)[static_cast<size_t>(d)] = log_joint.grad[static_cast<size_t>(d)];
            (*grad)[static_cast<size_t>(dim + d)] = log_joint.grad[static_cast<size_t>(q_.lambda_offset() + d)];
        }
    }
    total += responsibility_term(nu, q_.lambda, grad ? grad->data() : nullptr);
    // E_q[log N(w; c, s^2 v)] - E_q[log q_j(w)] + H(q), constants dropped.
    for (int d = 0; d < dim; ++d) {
        const size_t i = static_cast<size_t>(d);
        const double rho2 = q_.lambda[i] * q_.lambda[i];
        const double to_centre = nu[i] - centre_[i], to_mean = nu[i] - component_.mean[i];
        total += -0.5 * (to_centre * to_centre + rho2) / window_var_[i] + 0.5 * (to_mean * to_mean + rho2) / component_.var[i] +
                 log_rho[i];
        if (grad != nullptr) {
            (*grad)[i] += -to_centre / window_var_[i] + to_mean / component_.var[i];
            (*grad)[static_cast<size_t>(dim) + i] += -rho2 / window_var_[i] + rho2 / component_.var[i] + 1.0;
        }
    }
    if (!std::isfinite(total)) throw_error(Code::numeric, "the refinement objective is not finite");
    return total;
}

double ConditionalElbo::log_joint_sd(const std::vector<double>& nu, const std::vector<double>& log_rho) const {
    set_q(nu, log_rho);
    LogJointEstimate log_joint;
    expected_log_joint(q_, gp_, false, true, log_joint);
    return std::sqrt(log_joint.variance);
}

}  // namespace libvbmc

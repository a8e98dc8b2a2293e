#include "run/evaluations.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "util/error.hpp"

namespace libvbmc {

void Evaluation::write(Writer& out) const {
    out.doubles(x);
    out.doubles(z);
    out.f64(log_joint);
    out.f64(log_likelihood);
    out.f64(log_prior);
    out.f64(log_joint_sd);
    out.f64(log_jacobian);
    out.boolean(failed);
    out.boolean(extra);
    out.boolean(in_training);
    out.i64(iteration);
}

Evaluation Evaluation::read(Reader& in, int dim) {
    Evaluation e;
    e.x = in.doubles();
    e.z = in.doubles();
    if (static_cast<int>(e.x.size()) != dim || static_cast<int>(e.z.size()) != dim)
        throw_error(Code::format, "an evaluation record has the wrong dimension");
    e.log_joint = in.f64();
    e.log_likelihood = in.f64();
    e.log_prior = in.f64();
    e.log_joint_sd = in.f64();
    e.log_jacobian = in.f64();
    e.failed = in.boolean();
    e.extra = in.boolean();
    e.in_training = in.boolean();
    e.iteration = static_cast<int>(in.bounded(-1, 1 << 30, "evaluation iteration"));
    return e;
}

int EvaluationLog::failed_count() const {
    int n = 0;
    for (const Evaluation& e : evals_) n += e.failed ? 1 : 0;
    return n;
}

double penalty_cut(std::vector<double> values) {
    std::sort(values.begin(), values.end(), std::greater<double>());
    for (size_t k = kPenaltyMinAbove; k < values.size(); ++k) {
        const double gap = values[0] - values[k], gap_above = values[0] - values[k - 1];
        if (gap > kPenaltyMinGap && gap > kPenaltyJump * gap_above) return values[k - 1];
    }
    return -INFINITY;
}

double EvaluationLog::penalty_cut_of_first(int count) const {
    std::vector<double> values;
    for (int i = 0; i < count; ++i)
        if (is_finite_and_kept(evals_[static_cast<size_t>(i)])) values.push_back(evals_[static_cast<size_t>(i)].log_joint_z());
    return penalty_cut(std::move(values));
}

int EvaluationLog::penalty_count() const {
    const double cut = penalty_cut_of_first(size());
    int n = 0;
    for (const Evaluation& e : evals_) n += is_finite_and_kept(e) && e.log_joint_z() < cut ? 1 : 0;
    return n;
}

std::vector<int> EvaluationLog::training_index() const {
    const double cut = penalty_cut_of_first(size());
    std::vector<int> index;
    for (int i = 0; i < size(); ++i) {
        const Evaluation& e = evals_[static_cast<size_t>(i)];
        if (is_finite_and_kept(e) && e.log_joint_z() >= cut) index.push_back(i);
    }
    return index;
}

bool EvaluationLog::is_data_when_told(int i) const {
    const Evaluation& told = evals_[static_cast<size_t>(i)];
    return !told.failed && told.log_joint_z() >= penalty_cut_of_first(i + 1);
}

SurrogatePoint EvaluationLog::told_surrogate_point(int i, const ValueShaping& shaping) const {
    const Evaluation& told = evals_[static_cast<size_t>(i)];
    if (!is_data_when_told(i)) return {NAN, NAN};
    double best = shaping.reference;
    if (std::isnan(best)) {
        best = -INFINITY;
        for (int j = 0; j <= i; ++j)
            if (is_finite_and_kept(evals_[static_cast<size_t>(j)])) best = std::max(best, evals_[static_cast<size_t>(j)].log_joint_z());
    }
    return surrogate_point(told.log_joint_z(), told.log_joint_sd, best, shaping);
}

namespace {
// data.y holds the raw values, sd the told SDs: both become surrogate targets (surrogate_point).
void shape_training_values(GpData& data, const std::vector<double>& sd, const ValueShaping& shaping) {
    double best = shaping.reference;
    if (std::isnan(best)) best = data.y.empty() ? -INFINITY : *std::max_element(data.y.begin(), data.y.end());
    data.s2.resize(data.y.size());
    for (size_t i = 0; i < data.y.size(); ++i) {
        const SurrogatePoint p = surrogate_point(data.y[i], sd[i], best, shaping);
        data.y[i] = p.y;
        data.s2[i] = p.s2;
    }
}
}  // namespace

GpData EvaluationLog::training_data(const std::vector<int>& index, int dim, const ValueShaping& shaping) const {
    GpData data;
    data.x = Matrix(0, dim);
    std::vector<double> sd;
    for (int i : index) {
        const Evaluation& e = evals_[static_cast<size_t>(i)];
        data.x.append_row(e.z.data(), dim);
        data.y.push_back(e.log_joint_z());
        sd.push_back(e.log_joint_sd);
    }
    shape_training_values(data, sd, shaping);
    data.mean_dof = shaping.mean_dof;
    return data;
}

GpData EvaluationLog::training_data(const std::vector<int>& index, const ParameterTransform& transform,
                                    const ValueShaping& shaping) const {
    const int dim = transform.dim();
    GpData data;
    data.x = Matrix(0, dim);
    std::vector<double> z(static_cast<size_t>(dim)), sd;
    for (int i : index) {
        const Evaluation& e = evals_[static_cast<size_t>(i)];
        transform.to_unbounded(e.x.data(), z.data());
        data.x.append_row(z.data(), dim);
        data.y.push_back(e.log_joint + transform.log_abs_det_jacobian(z.data()));
        sd.push_back(e.log_joint_sd);
    }
    shape_training_values(data, sd, shaping);
    data.mean_dof = shaping.mean_dof;
    return data;
}

void EvaluationLog::remap(const ParameterTransform& transform) {
    for (Evaluation& e : evals_) {
        transform.to_unbounded(e.x.data(), e.z.data());
        e.log_jacobian = transform.log_abs_det_jacobian(e.z.data());
    }
}

double EvaluationLog::max_training_value() const {
    double best = -INFINITY;
    for (const Evaluation& e : evals_)
        if (is_finite_and_kept(e)) best = std::max(best, e.log_joint_z());
    return best;
}

double EvaluationLog::typical_noise_sd() const {
    std::vector<double> sd;
    for (int i : training_index()) sd.push_back(evals_[static_cast<size_t>(i)].log_joint_sd);
    if (sd.empty()) return 0.0;
    std::nth_element(sd.begin(), sd.begin() + static_cast<std::ptrdiff_t>(sd.size() / 2), sd.end());
    return sd[sd.size() / 2];
}

void EvaluationLog::write(Writer& out) const {
    out.u64(evals_.size());
    for (const Evaluation& e : evals_) e.write(out);
}

EvaluationLog EvaluationLog::read(Reader& in, int dim) {
    EvaluationLog log;
    const uint64_t n = in.u64();
    if (n > in.remaining()) throw_error(Code::format, "the evaluation count exceeds the file");
    for (uint64_t i = 0; i < n; ++i) log.add(Evaluation::read(in, dim));
    return log;
}

}  // namespace libvbmc

#include "run/history.hpp"

#include <cmath>

#include "gp/gp.hpp"
#include "util/error.hpp"
#include "util/math.hpp"

namespace libvbmc {

namespace {
// The median over the record's hyperparameter samples (gp/gp.hpp layout) of summary(theta, dim);
// NaN without samples.
template <typename Summary>
double median_over_samples(const IterationRecord& record, Summary&& summary) {
    if (record.gp_thetas.empty()) return NAN;
    std::vector<double> values;
    for (const std::vector<double>& theta : record.gp_thetas) values.push_back(summary(theta.data(), record.vp.dim));
    return median(std::move(values));
}

double output_scale(const double* theta, int dim) { return std::exp(theta[hyp::log_sf(dim)]); }
double noise_sd(const double* theta, int dim) { return std::exp(theta[hyp::log_sn(dim)]); }
// The geometric mean of the kernel's length scales ell_d.
double length_scale(const double* theta, int dim) {
    double log_sum = 0.0;
    for (int d = 0; d < dim; ++d) log_sum += theta[hyp::log_ell(d)];
    return std::exp(log_sum / dim);
}
}  // namespace

void IterationRecord::write(Writer& out) const {
    out.i64(iteration);
    out.i64(func_count);
    out.i64(n_train);
    out.f64(elbo);
    out.f64(elbo_sd);
    out.f64(skl);
    out.f64(r_index);
    out.f64(elcbo_impro);
    out.f64(lcb_max);
    out.f64(sn2_hpd);
    out.boolean(stable);
    out.boolean(warmup);
    out.i64(pruned);
    out.i64(n_gp_samples);
    out.f64(gp_sample_var);
    vp.write(out);
    transform.write(out);
    out.u64(gp_thetas.size());
    for (const auto& theta : gp_thetas) out.doubles(theta);
    out.ints(train_index);
    value_shaping.write(out);
    out.text(action);
}

IterationRecord IterationRecord::read(Reader& in) {
    IterationRecord r;
    r.iteration = static_cast<int>(in.bounded(0, 1 << 30, "iteration"));
    r.func_count = static_cast<int>(in.bounded(0, 1 << 30, "func_count"));
    r.n_train = static_cast<int>(in.bounded(0, 1 << 30, "n_train"));
    r.elbo = in.f64();
    r.elbo_sd = in.f64();
    r.skl = in.f64();
    r.r_index = in.f64();
    r.elcbo_impro = in.f64();
    r.lcb_max = in.f64();
    r.sn2_hpd = in.f64();
    r.stable = in.boolean();
    r.warmup = in.boolean();
    r.pruned = static_cast<int>(in.bounded(0, 1 << 30, "pruned"));
    r.n_gp_samples = static_cast<int>(in.bounded(0, 1 << 30, "n_gp_samples"));
    r.gp_sample_var = in.f64();
    r.vp = VariationalPosterior::read(in);
    r.transform = ParameterTransform::read(in);
    const int64_t n_thetas = in.bounded(0, 1 << 20, "number of GP samples");
    for (int64_t i = 0; i < n_thetas; ++i) r.gp_thetas.push_back(in.doubles());
    r.train_index = in.ints();
    r.value_shaping = ValueShaping::read(in);
    r.action = in.text();
    return r;
}

const std::vector<std::string>& history_series_names() {
    static const std::vector<std::string> names = {"func_count", "elbo",       "elbo_sd",    "skl",
                                                   "r_index",    "components", "train_count", "gp_samples",
                                                   "stable",     "warmup",     "gp_output_scale", "gp_length_scale",
                                                   "gp_noise_sd"};
    return names;
}

double history_value(const IterationRecord& record, const std::string& name) {
    if (name == "func_count") return record.func_count;
    if (name == "elbo") return record.elbo;
    if (name == "elbo_sd") return record.elbo_sd;
    if (name == "skl") return record.skl;
    if (name == "r_index") return record.r_index;
    if (name == "components") return record.vp.k;
    if (name == "train_count") return record.n_train;
    if (name == "gp_samples") return record.n_gp_samples;
    if (name == "stable") return record.stable ? 1 : 0;
    if (name == "warmup") return record.warmup ? 1 : 0;
    if (name == "gp_output_scale") return median_over_samples(record, output_scale);
    if (name == "gp_length_scale") return median_over_samples(record, length_scale);
    if (name == "gp_noise_sd") return median_over_samples(record, noise_sd);
    std::string known;
    for (const std::string& n : history_series_names()) known += (known.empty() ? "" : ", ") + n;
    throw_error(Code::arg, "unknown history series \"" + name + "\" (known: " + known + ")");
}

}  // namespace libvbmc

#include "optim/lbfgs_memory.hpp"

#include <cmath>

#include "util/error.hpp"

namespace libvbmc {

namespace {
double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double total = 0.0;
    for (size_t i = 0; i < a.size(); ++i) total += a[i] * b[i];
    return total;
}
}  // namespace

LbfgsMemory::LbfgsMemory(int dim, int capacity, double initial_scale)
    : dim_(dim), capacity_(capacity), initial_scale_(initial_scale) {}

void LbfgsMemory::add(const std::vector<double>& s, const std::vector<double>& y) {
    const double sy = dot(s, y);
    if (!(sy > 1e-12 * std::sqrt(dot(s, s) * dot(y, y)))) return;
    s_.push_back(s);
    y_.push_back(y);
    if (static_cast<int>(s_.size()) > capacity_) {
        s_.erase(s_.begin());
        y_.erase(y_.begin());
    }
}

void LbfgsMemory::clear() {
    s_.clear();
    y_.clear();
}

// Algorithm 7.4: q = v; newest to oldest, a_i = rho_i s_i.q, q -= a_i y_i; r = gamma q; oldest to
// newest, b = rho_i y_i.r, r += (a_i - b) s_i; with rho_i = 1 / (y_i.s_i), gamma = s.y / y.y of
// the newest pair.
std::vector<double> LbfgsMemory::apply(const std::vector<double>& v) const {
    const size_t m = s_.size();
    std::vector<double> q = v, alpha(m), rho(m);
    for (size_t k = m; k-- > 0;) {
        rho[k] = 1.0 / dot(y_[k], s_[k]);
        alpha[k] = rho[k] * dot(s_[k], q);
        for (size_t i = 0; i < q.size(); ++i) q[i] -= alpha[k] * y_[k][i];
    }
    const double gamma = m == 0 ? initial_scale_ : dot(s_[m - 1], y_[m - 1]) / dot(y_[m - 1], y_[m - 1]);
    for (double& value : q) value *= gamma;
    for (size_t k = 0; k < m; ++k) {
        const double beta = rho[k] * dot(y_[k], q);
        for (size_t i = 0; i < q.size(); ++i) q[i] += (alpha[k] - beta) * s_[k][i];
    }
    return q;
}

Matrix LbfgsMemory::matrix() const {
    Matrix h(dim_, dim_);
    std::vector<double> unit(static_cast<size_t>(dim_), 0.0);
    for (int j = 0; j < dim_; ++j) {
        unit[static_cast<size_t>(j)] = 1.0;
        const std::vector<double> column = apply(unit);
        for (int i = 0; i < dim_; ++i) h(i, j) = column[static_cast<size_t>(i)];
        unit[static_cast<size_t>(j)] = 0.0;
    }
    return h;
}

void LbfgsMemory::write(Writer& out) const {
    out.i64(dim_);
    out.i64(capacity_);
    out.f64(initial_scale_);
    out.u64(s_.size());
    for (size_t k = 0; k < s_.size(); ++k) {
        out.doubles(s_[k]);
        out.doubles(y_[k]);
    }
}

LbfgsMemory LbfgsMemory::read(Reader& in) {
    LbfgsMemory m;
    m.dim_ = static_cast<int>(in.bounded(0, 64, "L-BFGS dimension"));
    m.capacity_ = static_cast<int>(in.bounded(1, 64, "L-BFGS memory"));
    m.initial_scale_ = in.f64();
    const int64_t pairs = in.bounded(0, m.capacity_, "L-BFGS pair count");
    for (int64_t k = 0; k < pairs; ++k) {
        m.s_.push_back(in.doubles());
        m.y_.push_back(in.doubles());
        const std::vector<double>&s = m.s_.back(), &y = m.y_.back();
        if (static_cast<int>(s.size()) != m.dim_ || static_cast<int>(y.size()) != m.dim_)
            throw_error(Code::format, "an L-BFGS pair has the wrong dimension");
        if (!(dot(s, y) > 1e-12 * std::sqrt(dot(s, s) * dot(y, y))))
            throw_error(Code::format, "an L-BFGS pair does not curve down (s.y <= 0)");
    }
    return m;
}

}  // namespace libvbmc

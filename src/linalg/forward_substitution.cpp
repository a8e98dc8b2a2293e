#include "linalg/forward_substitution.hpp"

#include <cstring>
#include <string>

#include "util/error.hpp"
#include "util/lanes.hpp"
#include "util/vector_clones.hpp"

namespace libvbmc {

namespace {

// Columns [j0, j0 + kGroups * kLanes) of the solve, accumulators held in registers. The sum
// over c is split into even and odd c (two independent chains per group, so the additions
// overlap in the pipeline): v_i = ((b_i - sum_even) + (-sum_odd)) / L_ii.
template <int kGroups>
__attribute__((always_inline)) inline void solve_columns(const Matrix& l, Matrix& b, int j0) {
    const int n = l.rows;
    for (int i = 0; i < n; ++i) {
        double* b_i = b.row(i) + j0;
        Lanes even[kGroups], odd[kGroups];
        for (int g = 0; g < kGroups; ++g) {
            load(even[g], b_i + g * kLanes);
            odd[g] = Lanes{};
        }
        const double* l_i = l.row(i);
        int c = 0;
        for (; c + 1 < i; c += 2) {
            const double l_even = l_i[c], l_odd = l_i[c + 1];
            const double* v_even = b.row(c) + j0;
            const double* v_odd = b.row(c + 1) + j0;
            for (int g = 0; g < kGroups; ++g) {
                Lanes v, w;
                load(v, v_even + g * kLanes);
                load(w, v_odd + g * kLanes);
                even[g] -= l_even * v;
                odd[g] -= l_odd * w;
            }
        }
        if (c < i) {
            const double* v_c = b.row(c) + j0;
            for (int g = 0; g < kGroups; ++g) {
                Lanes v;
                load(v, v_c + g * kLanes);
                even[g] -= l_i[c] * v;
            }
        }
        for (int g = 0; g < kGroups; ++g) store(b_i + g * kLanes, (even[g] + odd[g]) / l_i[i]);
    }
}

// The last m - j0 < 32 columns, copied into whole groups padded with zeros (lanes are
// independent, so the padding does not touch the real columns).
__attribute__((always_inline)) inline void solve_tail(const Matrix& l, Matrix& b, int j0) {
    const int width = b.cols - j0;
    const int groups = (width + kLanes - 1) / kLanes;
    Matrix padded(b.rows, groups * kLanes);
    for (int i = 0; i < b.rows; ++i) std::memcpy(padded.row(i), b.row(i) + j0, sizeof(double) * width);
    switch (groups) {
        case 1: solve_columns<1>(l, padded, 0); break;
        case 2: solve_columns<2>(l, padded, 0); break;
        case 3: solve_columns<3>(l, padded, 0); break;
        default: solve_columns<4>(l, padded, 0); break;
    }
    for (int i = 0; i < b.rows; ++i) std::memcpy(b.row(i) + j0, padded.row(i), sizeof(double) * width);
}

// The clones differ only in register width (util/vector_clones.hpp).
VBMC_VECTOR_CLONES
void solve_all_columns(const Matrix& l, Matrix& b) {
    constexpr int kBlock = 4 * kLanes;
    int j = 0;
    for (; j + kBlock <= b.cols; j += kBlock) solve_columns<4>(l, b, j);
    if (j < b.cols) solve_tail(l, b, j);
}

}  // namespace

void forward_substitution(const Matrix& l, Matrix& b) {
    if (l.rows != l.cols || b.rows != l.rows)
        throw_error(Code::internal, "forward_substitution: L is " + std::to_string(l.rows) + " x " +
                                        std::to_string(l.cols) + " and B has " + std::to_string(b.rows) +
                                        " rows; L must be square with as many rows as B");
    solve_all_columns(l, b);
}

}  // namespace libvbmc

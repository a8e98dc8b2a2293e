// Dense row-major matrix of doubles: the one numeric container of the engine.
#pragma once
#include <cstddef>
#include <vector>

namespace libvbmc {

struct Matrix {
    int rows = 0;
    int cols = 0;
    std::vector<double> data;  // row-major, rows * cols

    Matrix() = default;
    Matrix(int n_rows, int n_cols, double value = 0.0)
        : rows(n_rows), cols(n_cols), data(static_cast<size_t>(n_rows) * n_cols, value) {}

    double& operator()(int i, int j) { return data[static_cast<size_t>(i) * cols + j]; }
    double operator()(int i, int j) const { return data[static_cast<size_t>(i) * cols + j]; }
    double* row(int i) { return data.data() + static_cast<size_t>(i) * cols; }
    const double* row(int i) const { return data.data() + static_cast<size_t>(i) * cols; }
    bool empty() const { return data.empty(); }
    // New shape; the storage is reused, so the entries are unspecified until written.
    void reshape(int n_rows, int n_cols) {
        rows = n_rows;
        cols = n_cols;
        data.resize(static_cast<size_t>(n_rows) * n_cols);
    }

    static Matrix identity(int n) {
        Matrix m(n, n);
        for (int i = 0; i < n; ++i) m(i, i) = 1.0;
        return m;
    }
    // Append one row (cols must match, or the matrix must be empty with cols set by the row).
    void append_row(const double* values, int n_values);
    void remove_row(int i);
};

}  // namespace libvbmc

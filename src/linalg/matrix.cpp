#include "linalg/matrix.hpp"

#include "util/error.hpp"

namespace libvbmc {

void Matrix::append_row(const double* values, int n_values) {
    if (rows == 0) cols = n_values;
    if (n_values != cols) throw_error(Code::internal, "Matrix::append_row: row length differs from cols");
    data.insert(data.end(), values, values + n_values);
    ++rows;
}

void Matrix::remove_row(int i) {
    if (i < 0 || i >= rows) throw_error(Code::internal, "Matrix::remove_row: index out of range");
    auto first = data.begin() + static_cast<std::ptrdiff_t>(i) * cols;
    data.erase(first, first + cols);
    --rows;
}

}  // namespace libvbmc

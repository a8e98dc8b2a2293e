// Forward substitution for many right-hand sides, vectorised across them.
#pragma once

#include "linalg/matrix.hpp"

namespace libvbmc {

// Solves L V = B in place (B: n x m row-major, L: lower n x n). Row i of V is
// (b_i - sum_{c<i} L_ic v_c) / L_ii, the sum split into even and odd c, each part taken in
// increasing c, so each column's arithmetic is a fixed sequence: the result does not depend on m, on which other columns are
// solved alongside, or on the instruction set, and the first r rows of V depend only on the
// first r rows of L and B.
void forward_substitution(const Matrix& l, Matrix& b);

}  // namespace libvbmc

# The two figures every binding draws, in base graphics: a corner plot of posterior draws with
# the run's evaluations over them, and the ELBO +- SD over the iterations.

# Axis limits of each coordinate: the central 99.8% of the draws, widened by 10%.
view_limits <- function(draws) {
  apply(draws, 2, function(v) {
    range <- stats::quantile(v, c(0.001, 0.999), names = FALSE)
    range + c(-1, 1) * 0.1 * max(diff(range), 1e-12)
  })
}

# Each coordinate's histogram on the diagonal, each pair's 2-D histogram below it, and the
# evaluations (circles where the surrogate trains on them, crosses where it does not).
plot_corner <- function(draws, evaluations = NULL, main = NULL, bins = 40) {
  dim <- ncol(draws)
  labels <- if (is.null(colnames(draws))) paste0("x", seq_len(dim)) else colnames(draws)
  limits <- view_limits(draws)
  old <- graphics::par(mfrow = c(dim, dim), mar = c(3.5, 3.5, 0.5, 0.5), mgp = c(2, 0.6, 0),
                       oma = c(0, 0, if (is.null(main)) 0 else 2, 0))
  on.exit(graphics::par(old))
  palette <- grDevices::colorRampPalette(c("white", "steelblue4"))(32)
  for (row in seq_len(dim)) for (column in seq_len(dim)) {
    if (column > row) {
      graphics::plot.new()
    } else if (column == row) {
      breaks <- seq(limits[1, row], limits[2, row], length.out = bins + 1)
      inside <- draws[, row] >= breaks[1] & draws[, row] <= breaks[bins + 1]
      graphics::hist(draws[inside, row], breaks = breaks, freq = FALSE, col = "steelblue",
                     border = NA, main = "", xlab = labels[row], ylab = "", yaxt = "n")
    } else {
      xb <- seq(limits[1, column], limits[2, column], length.out = bins + 1)
      yb <- seq(limits[1, row], limits[2, row], length.out = bins + 1)
      counts <- table(factor(findInterval(draws[, column], xb), levels = 1:bins),
                      factor(findInterval(draws[, row], yb), levels = 1:bins))
      graphics::image(xb, yb, matrix(as.numeric(counts), bins), col = palette,
                      xlab = labels[column], ylab = labels[row])
      if (!is.null(evaluations)) {
        used <- evaluations$in_training
        graphics::points(evaluations$x[used, column], evaluations$x[used, row], col = "darkorange",
                         cex = 0.7)
        graphics::points(evaluations$x[!used, column], evaluations$x[!used, row], col = "red",
                         pch = 4, cex = 0.7)
      }
    }
  }
  if (!is.null(main)) graphics::mtext(main, outer = TRUE, line = 0.5)
  invisible(NULL)
}

# ELBO +- SD of each iteration against the evaluations told (warm-up hollow), and the returned
# posterior's ELBO +- SD (final) as a dashed line. The vertical range follows the later two
# thirds of the run: early ELBOs far below it are left out of view.
plot_elbo <- function(history, final = NULL, main = NULL) {
  late <- seq_len(nrow(history)) > nrow(history) %/% 3
  range <- range(c((history$elbo - history$elbo_sd)[late], (history$elbo + history$elbo_sd)[late],
                   if (!is.null(final)) final[1] + c(-1, 1) * final[2]))
  range <- range + c(-1, 1) * 0.1 * max(diff(range), 1)
  graphics::plot(history$func_count, history$elbo, type = "n", ylim = range,
                 xlab = "evaluations", ylab = "ELBO", main = if (is.null(main)) "" else main)
  graphics::polygon(c(history$func_count, rev(history$func_count)),
                    c(history$elbo - history$elbo_sd, rev(history$elbo + history$elbo_sd)),
                    col = grDevices::adjustcolor("steelblue", 0.25), border = NA)
  graphics::lines(history$func_count, history$elbo, col = "steelblue")
  graphics::points(history$func_count, history$elbo, col = "steelblue",
                   pch = ifelse(history$warmup, 1, 19))
  if (!is.null(final)) {
    graphics::abline(h = final[1], lty = 2, col = "darkgreen")
    graphics::legend("bottomright", bty = "n", lty = c(1, 2), pch = c(19, NA),
                     col = c("steelblue", "darkgreen"),
                     legend = c("ELBO +- SD (hollow: warm-up)",
                                sprintf("returned posterior: %.4g +- %.2g", final[1], final[2])))
  }
  invisible(NULL)
}

# vbmc_fit: the whole inference in one call, as PyVBMC's VBMC(...).optimize() and MATLAB's
# vbmc(...) do, returning an object with the usual model methods.

vbmc_fit <- function(fn, x0 = NULL, lb = NULL, ub = NULL, plb, pub, options = list()) {
  if (!is.function(fn)) stop("fn must be a function of the parameter vector", call. = FALSE)
  options <- as.list(options)
  if (is.null(options$seed)) options$seed <- random_seed()
  run <- vbmc(lb, ub, plb, pub, x0, options)
  post <- vbmc_run(run, fn)
  structure(list(posterior = post, elbo = post$elbo, elbo_sd = post$elbo_sd,
                 converged = vbmc_stat(run, "converged") == 1,
                 reliable = vbmc_stat(run, "reliable") == 1,
                 message = vbmc_result_message(run),
                 iterations = vbmc_stat(run, "iteration"),
                 func_count = vbmc_stat(run, "func_count"),
                 history = vbmc_history(run), evaluations = vbmc_evaluations(run),
                 run = run, call = match.call()),
            class = "vbmc_fit")
}

print.vbmc_fit <- function(x, digits = 4, ...) {
  cat("VBMC fit (libvbmc):", deparse(x$call, width.cutoff = 60)[1], "\n")
  cat(sprintf("%d parameters, %g evaluations, %g iterations; %s\n", x$posterior$dim,
              x$func_count, x$iterations, if (x$converged) "converged" else "NOT converged"))
  cat(sprintf("ELBO: %.*g (SD %.2g)\n", digits, x$elbo, x$elbo_sd))
  cat("Posterior mean:\n")
  print(coef(x), digits = digits)
  invisible(x)
}

summary.vbmc_fit <- function(object, ...) {
  structure(list(call = object$call, message = object$message, converged = object$converged,
                 reliable = object$reliable, func_count = object$func_count,
                 iterations = object$iterations, posterior = summary(object$posterior)),
            class = "summary.vbmc_fit")
}

print.summary.vbmc_fit <- function(x, digits = 4, ...) {
  cat("VBMC fit (libvbmc):", deparse(x$call, width.cutoff = 60)[1], "\n")
  cat(sprintf("%g evaluations in %g iterations; converged: %s; reliable: %s\n", x$func_count,
              x$iterations, if (x$converged) "yes" else "no", if (x$reliable) "yes" else "no"))
  cat(strwrap(x$message), sep = "\n")
  cat("\n")
  print(x$posterior, digits = digits)
  invisible(x)
}

coef.vbmc_fit <- function(object, ...) vbmc_moments(object$posterior)$mean

vcov.vbmc_fit <- function(object, ...) vbmc_moments(object$posterior)$cov

simulate.vbmc_fit <- function(object, nsim = 1, seed = NULL, ...) {
  vbmc_sample(object$posterior, nsim, seed)
}

plot.vbmc_fit <- function(x, which = c("corner", "elbo"), main = NULL, ...) {
  which <- match.arg(which, several.ok = TRUE)
  if ("corner" %in% which) plot_corner(vbmc_sample(x$posterior, 20000), x$evaluations, main = main)
  if ("elbo" %in% which) plot_elbo(x$history, c(x$elbo, x$elbo_sd), main = main)
  invisible(x)
}

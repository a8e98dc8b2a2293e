# R interface to libvbmc: every function is a thin wrapper over one .Call into src/vbmc_r.c,
# which makes one call of the C library. Point sets are n x dim matrices.

# Signal the library's error as a condition of class "vbmc_error" (called from the C glue).
vbmc_raise <- function(code, name, message) {
  condition <- structure(class = c("vbmc_error", "error", "condition"),
                         list(message = paste0(name, ": ", message), call = NULL,
                              status = code, status_name = name, library_message = message))
  stop(condition)
}

#' Version of the loaded libvbmc, "MAJOR.MINOR.PATCH"
vbmc_version <- function() .Call(C_version)

#' Every option of the library: a data frame with name, type, default and help
vbmc_options <- function() as.data.frame(.Call(C_options), stringsAsFactors = FALSE)

#' Create a run
#'
#' @param lb,ub hard bounds (NULL or -Inf/Inf for unbounded)
#' @param plb,pub finite plausible box; its length is the dimension
#' @param x0 starting point (NULL: the centre of the plausible box)
#' @param options named list of options (PyVBMC's names, see vbmc_options())
vbmc <- function(lb = NULL, ub = NULL, plb, pub, x0 = NULL, options = list()) {
  as_vector <- function(v) if (is.null(v)) NULL else as.double(v)
  if (length(options) > 0 && (is.null(names(options)) || any(names(options) == "")))
    stop("options must be a named list")
  handle <- .Call(C_create, as_vector(lb), as_vector(ub), as_vector(plb), as_vector(pub),
                  as_vector(x0), as.list(options))
  structure(list(handle = handle, dim = .Call(C_dim, handle)), class = "vbmc")
}

#' Resume a run from a checkpoint written by vbmc_save()
vbmc_load <- function(path) {
  handle <- .Call(C_load, path.expand(path))
  structure(list(handle = handle, dim = .Call(C_dim, handle)), class = "vbmc")
}

#' Checkpoint the whole run to a file (atomically)
vbmc_save <- function(run, path) invisible(.Call(C_save, run$handle, path.expand(path)))

#' The next point to evaluate, or NULL when the run has finished
vbmc_ask <- function(run) .Call(C_ask, run$handle)

#' Tell the log joint at a point returned by vbmc_ask(); sd > 0 for a noisy estimate
vbmc_tell <- function(run, x, log_joint, sd = 0) {
  invisible(.Call(C_tell, run$handle, as.double(x), as.double(log_joint), as.double(sd), FALSE))
}

#' Add an evaluation that was not asked for to the training set
vbmc_tell_extra <- function(run, x, log_joint, sd = 0) {
  invisible(.Call(C_tell, run$handle, as.double(x), as.double(log_joint), as.double(sd), TRUE))
}

#' Give up a pending point without a value; the run will ask again
vbmc_abandon <- function(run, x) invisible(.Call(C_abandon, run$handle, as.double(x)))

#' The points asked for and not yet told, as a matrix with one row per point
vbmc_pending <- function(run) .Call(C_pending, run$handle)

#' A scalar fact about the run: "iteration", "func_count", "elbo", "finished", ...
vbmc_stat <- function(run, name) .Call(C_stat, run$handle, name)

#' How the run ended: why it stopped and, if its result is unreliable, why ("" while it runs)
vbmc_result_message <- function(run) .Call(C_result_message, run$handle)

new_posterior <- function(handle) {
  structure(c(list(handle = handle), .Call(C_post_info, handle)), class = "vbmc_posterior")
}

#' A snapshot of the variational posterior (the final one once the run has finished)
vbmc_posterior <- function(run) new_posterior(.Call(C_posterior, run$handle))

#' Ask-tell until the run finishes; returns the posterior
#'
#' fn(x) returns the log joint at x, or c(log_joint, sd) for a noisy estimate. The loop runs in R
#' (an R error must not unwind through the C library), so an error in fn leaves the run usable with
#' its point pending (see vbmc_pending(), vbmc_abandon()); the next vbmc_run evaluates pending
#' points before asking for new ones.
vbmc_run <- function(run, fn) {
  repeat {
    waiting <- vbmc_pending(run)
    x <- if (nrow(waiting) > 0) waiting[1, ] else vbmc_ask(run)
    if (is.null(x)) break
    value <- fn(x)
    vbmc_tell(run, x, value[1], if (length(value) > 1) value[2] else 0)
  }
  vbmc_posterior(run)
}

#' n draws as an n x dim matrix; the same seed gives the same draws
vbmc_sample <- function(post, n, seed = 0) .Call(C_post_sample, post$handle, n, seed)

#' n draws refined against the run's surrogate (vbmc_post_sample_refined), an n x dim matrix
vbmc_sample_refined <- function(post, n, seed = 0) .Call(C_post_sample_refined, post$handle, n, seed)

#' The auxiliary ELBO of n refined draws and its SD: c(elbo = , elbo_sd = )
vbmc_refined_elbo <- function(post, n, seed = 0) {
  values <- .Call(C_post_refined_elbo, post$handle, n, seed)
  c(elbo = values[1], elbo_sd = values[2])
}

#' The tuning of refined draws: aux_count auxiliary variables, each taking variance_ratio
vbmc_set_refinement <- function(post, aux_count, variance_ratio) {
  invisible(.Call(C_post_set_refinement, post$handle, as.integer(aux_count), as.double(variance_ratio)))
}

#' Log density at the rows of x (a matrix with dim columns, or one point as a vector)
vbmc_log_pdf <- function(post, x) {
  points <- matrix(as.double(x), ncol = post$dim)
  .Call(C_post_log_pdf, post$handle, points)
}

#' Posterior mean and covariance: list(mean, cov)
vbmc_moments <- function(post) .Call(C_post_moments, post$handle)

#' The ELBO and its SD: c(elbo = , elbo_sd = )
vbmc_elbo <- function(post) c(elbo = post$elbo, elbo_sd = post$elbo_sd)

#' Write a posterior snapshot to a file (atomically)
vbmc_post_save <- function(post, path) invisible(.Call(C_post_save, post$handle, path.expand(path)))

#' Read a posterior snapshot written by vbmc_post_save()
vbmc_post_load <- function(path) new_posterior(.Call(C_post_load, path.expand(path)))

print.vbmc <- function(x, ...) {
  cat(sprintf("<vbmc run: dim %d, %g evaluations, iteration %g>\n", x$dim,
              vbmc_stat(x, "func_count"), vbmc_stat(x, "iteration")))
  invisible(x)
}

print.vbmc_posterior <- function(x, ...) {
  cat(sprintf("<vbmc posterior: dim %d, %d components, ELBO %.6g (SD %.3g)>\n", x$dim,
              x$components, x$elbo, x$elbo_sd))
  invisible(x)
}

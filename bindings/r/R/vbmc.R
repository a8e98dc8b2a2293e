# R interface to libvbmc: every function is a thin wrapper over .Call routines of src/vbmc_r.c,
# each making one call of the C library. Point sets are n x dim matrices; parameter names (the
# names of plb, pub, x0, lb or ub) are kept on points, draws and moments.

# Signal the library's error as a condition of class "vbmc_error" (called from the C glue).
vbmc_raise <- function(code, name, message) {
  condition <- structure(class = c("vbmc_error", "error", "condition"),
                         list(message = paste0(name, ": ", message), call = NULL,
                              status = code, status_name = name, library_message = message))
  stop(condition)
}

# Show the lines the run's logger buffered: warnings with warning(), the rest with message().
flush_log <- function(run) {
  lines <- .Call(C_take_log, run$handle)
  levels <- attr(lines, "level")
  for (i in seq_along(lines)) {
    if (levels[i] <= vbmc_constants[["LOG_WARN"]]) warning(lines[i], call. = FALSE)
    else message(lines[i])
  }
}

# A seed from R's generator: fresh each call, reproducible after set.seed().
random_seed <- function() floor(stats::runif(1) * 2^26) * 2^26 + floor(stats::runif(1) * 2^26)

# The parameter names: the first of plb, pub, x0, lb, ub that has names.
parameter_names <- function(...) {
  for (v in list(...)) if (!is.null(names(v))) return(names(v))
  NULL
}

as_point <- function(x, dim, what = "x") {
  if (!is.numeric(x) || is.matrix(x) && nrow(x) != 1 || length(x) != dim)
    stop(sprintf("%s must be a numeric vector of length %d", what, dim), call. = FALSE)
  as.double(x)
}

# An n x dim double matrix from one point (a vector of length dim) or a matrix / data frame
# with dim columns; anything else is refused (never recycled or re-read in another shape).
as_points <- function(x, dim, what = "x") {
  if (is.data.frame(x)) x <- as.matrix(x)
  if (!is.numeric(x)) stop(what, " must be numeric", call. = FALSE)
  if (is.null(dim(x))) {
    if (length(x) != dim)
      stop(sprintf("%s must be one point (a vector of length %d) or a matrix with %d columns, not a vector of length %d",
                   what, dim, dim, length(x)), call. = FALSE)
    x <- matrix(x, nrow = 1)
  }
  if (length(dim(x)) != 2 || ncol(x) != dim)
    stop(sprintf("%s must have %d columns (one point per row), not %s", what, dim,
                 paste(dim(x), collapse = " x ")), call. = FALSE)
  storage.mode(x) <- "double"
  x
}

with_names <- function(values, names) {
  if (is.matrix(values)) colnames(values) <- names else names(values) <- names
  values
}

vbmc_version <- function() .Call(C_version)

vbmc_options <- function() as.data.frame(.Call(C_options), stringsAsFactors = FALSE)

new_run <- function(handle, names) {
  run <- structure(list(handle = handle, dim = .Call(C_dim, handle), names = names),
                   class = "vbmc")
  flush_log(run)
  run
}

vbmc <- function(lb = NULL, ub = NULL, plb, pub, x0 = NULL, options = list()) {
  as_vector <- function(v) if (is.null(v)) NULL else as.double(v)
  if (length(options) > 0 && (is.null(names(options)) || any(names(options) == "")))
    stop("options must be a named list", call. = FALSE)
  options <- as.list(options)
  if (is.character(options$checkpoint_file)) options$checkpoint_file <- path.expand(options$checkpoint_file)
  handle <- .Call(C_create, as_vector(lb), as_vector(ub), as_vector(plb), as_vector(pub),
                  as_vector(x0), options)
  new_run(handle, parameter_names(plb, pub, x0, lb, ub))
}

vbmc_load <- function(path) new_run(.Call(C_load, path.expand(path)), NULL)

vbmc_save <- function(run, path) invisible(.Call(C_save, run$handle, path.expand(path)))

vbmc_ask <- function(run) {
  on.exit(flush_log(run))
  x <- .Call(C_ask, run$handle)
  if (is.null(x)) NULL else with_names(x, run$names)
}

vbmc_ask_status <- function(run) {
  on.exit(flush_log(run))
  answer <- .Call(C_ask_status, run$handle)
  x <- if (is.null(answer[[2]])) NULL else with_names(answer[[2]], run$names)
  list(status = names(vbmc_status_codes)[vbmc_status_codes == answer[[1]]], x = x)
}

vbmc_tell <- function(run, x, log_joint, sd = 0) {
  on.exit(flush_log(run))
  invisible(.Call(C_tell, run$handle, as_point(x, run$dim), as.double(log_joint), as.double(sd),
                  FALSE))
}

vbmc_tell_extra <- function(run, x, log_joint, sd = 0) {
  on.exit(flush_log(run))
  invisible(.Call(C_tell, run$handle, as_point(x, run$dim), as.double(log_joint), as.double(sd),
                  TRUE))
}

vbmc_abandon <- function(run, x) invisible(.Call(C_abandon, run$handle, as_point(x, run$dim)))

vbmc_pending <- function(run) with_names(.Call(C_pending, run$handle), run$names)

vbmc_stat <- function(run, name) .Call(C_stat, run$handle, name)

vbmc_result_message <- function(run) .Call(C_result_message, run$handle)

# The series of vbmc_history, in the header's order.
history_series <- c("func_count", "elbo", "elbo_sd", "skl", "r_index", "components",
                    "train_count", "gp_samples", "stable", "warmup", "gp_output_scale",
                    "gp_length_scale", "gp_noise_sd")

vbmc_history <- function(run) {
  series <- lapply(history_series, function(name) .Call(C_history, run$handle, name))
  names(series) <- history_series
  history <- data.frame(iteration = seq_along(series$elbo), series)
  history$stable <- history$stable == 1
  history$warmup <- history$warmup == 1
  history$action <- vapply(seq_len(nrow(history)) - 1L,
                           function(i) .Call(C_history_action, run$handle, i), "")
  history
}

vbmc_evaluations <- function(run) {
  record <- .Call(C_evaluations, run$handle)
  record$x <- with_names(record$x, run$names)
  if (vbmc_stat(run, "has_prior") == 1) record <- c(record, .Call(C_evaluations_prior, run$handle))
  record
}

vbmc_warm_start <- function(previous, options = list(), reuse = TRUE) {
  if (length(options) > 0 && (is.null(names(options)) || any(names(options) == "")))
    stop("options must be a named list", call. = FALSE)
  new_run(.Call(C_create_warm, previous$handle, as.list(options), isTRUE(reuse)), previous$names)
}

# The prior of parameter `coord` (1-based, or a parameter name): kind and its parameters.
vbmc_set_prior <- function(run, coord, kind, params) {
  index <- if (is.character(coord) && coord %in% run$names) match(coord, run$names) else coord
  if (!is.numeric(index) || length(index) != 1 || index != round(index) || index < 1 || index > run$dim)
    stop(sprintf("coord must be a parameter name or a whole number between 1 and %d", run$dim),
         call. = FALSE)
  invisible(.Call(C_set_prior, run$handle, as.integer(index) - 1L, kind, as.double(params)))
}

# The whole prior as a function of x returning the log prior density (instead of vbmc_set_prior).
vbmc_set_prior_fn <- function(run, fn) invisible(.Call(C_set_prior_fn, run$handle, fn))

vbmc_log_prior <- function(run, x) .Call(C_log_prior, run$handle, as_point(x, run$dim))

vbmc_history_posterior <- function(run, iteration) {
  new_posterior(.Call(C_history_posterior, run$handle, as.integer(iteration) - 1L), run$names)
}

# Several runs of the same problem: do they agree, and which is best.
vbmc_diagnose <- function(runs, seed = NULL) {
  if (inherits(runs, "vbmc") || !is.list(runs) || !all(vapply(runs, inherits, TRUE, "vbmc")))
    stop("runs must be a list of runs", call. = FALSE)
  stat_names <- c("agree", "best", "converged_count", "elbo_spread", "max_skl", "max_mtv")
  out <- .Call(C_diagnose, lapply(runs, `[[`, "handle"), if (is.null(seed)) random_seed() else seed,
               stat_names, c("skl", "mtv"))
  stats <- stats::setNames(out[[1]], stat_names)
  list(agree = stats[["agree"]] == 1, best = as.integer(stats[["best"]]) + 1L,
       converged_count = as.integer(stats[["converged_count"]]), elbo_spread = stats[["elbo_spread"]],
       max_skl = stats[["max_skl"]], max_mtv = stats[["max_mtv"]], skl = out[[2]][[1]],
       mtv = out[[2]][[2]], message = out[[3]])
}

# The value told for what fn returned at x: c(log_joint, sd); a clear error for anything else.
told_value <- function(value, x) {
  where <- paste0("at x = (", paste(format(x, digits = 6), collapse = ", "), ")")
  if (length(value) == 1 && is.na(value)) return(c(NaN, 0))  # a failed evaluation
  if (!is.numeric(value) || !(length(value) %in% 1:2))
    stop(sprintf("fn returned %s %s; it must return the log joint (one number) or c(log_joint, sd)",
                 if (is.null(value)) "NULL" else if (!is.numeric(value)) paste("a", class(value)[1])
                 else sprintf("%d numbers", length(value)), where), call. = FALSE)
  c(value[1], if (length(value) == 2) value[2] else 0)
}

vbmc_run <- function(run, fn) {
  repeat {
    waiting <- vbmc_pending(run)
    x <- if (nrow(waiting) > 0) waiting[1, ] else vbmc_ask(run)
    if (is.null(x)) break  # the run has finished: with nothing pending it never says "WAIT"
    value <- told_value(fn(x), x)
    vbmc_tell(run, x, value[1], value[2])
  }
  vbmc_posterior(run)
}

print.vbmc <- function(x, ...) {
  cat(sprintf("<vbmc run: dim %d, %g evaluations, iteration %g>\n", x$dim,
              vbmc_stat(x, "func_count"), vbmc_stat(x, "iteration")))
  invisible(x)
}

plot.vbmc <- function(x, main = "ELBO over the iterations", ...) {
  finished <- vbmc_stat(x, "finished") == 1
  plot_elbo(vbmc_history(x), if (finished) c(vbmc_stat(x, "elbo"), vbmc_stat(x, "elbo_sd")),
            main = main)
}

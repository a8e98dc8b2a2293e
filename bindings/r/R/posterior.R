# Posterior snapshots. The object keeps the snapshot's bytes (vbmc_post_save's file) beside the
# external pointer, so a posterior restored by readRDS() or load() rebuilds its handle on first
# use instead of holding a dead one.

post_bytes <- function(handle) {
  path <- tempfile(fileext = ".vbmcpost")
  on.exit(unlink(path))
  .Call(C_post_save, handle, path)
  readBin(path, "raw", file.size(path))
}

bytes_post <- function(bytes) {
  path <- tempfile(fileext = ".vbmcpost")
  on.exit(unlink(path))
  writeBin(bytes, path)
  .Call(C_post_load, path)
}

new_posterior <- function(handle, names = NULL) {
  cache <- new.env(parent = emptyenv())
  cache$handle <- handle
  structure(c(.Call(C_post_info, handle),
              list(names = names, bytes = post_bytes(handle), cache = cache)),
            class = "vbmc_posterior")
}

# The live handle of a posterior, rebuilt from its bytes after a restore.
post_handle <- function(post) {
  if (!.Call(C_alive, post$cache$handle)) post$cache$handle <- bytes_post(post$bytes)
  post$cache$handle
}

vbmc_posterior <- function(run) new_posterior(.Call(C_posterior, run$handle), run$names)

vbmc_sample <- function(post, n, seed = NULL, components = FALSE) {
  draws <- .Call(C_post_sample, post_handle(post), n, if (is.null(seed)) random_seed() else seed,
                 isTRUE(components))
  with_names(draws, post$names)
}

vbmc_sample_refined <- function(post, n, seed = NULL) {
  draws <- .Call(C_post_sample_refined, post_handle(post), n,
                 if (is.null(seed)) random_seed() else seed)
  with_names(draws, post$names)
}

vbmc_refined_elbo <- function(post, n, seed = NULL) {
  values <- .Call(C_post_refined_elbo, post_handle(post), n,
                  if (is.null(seed)) random_seed() else seed)
  c(elbo = values[1], elbo_sd = values[2])
}

vbmc_set_refinement <- function(post, aux_count, variance_ratio) {
  invisible(.Call(C_post_set_refinement, post_handle(post), as.integer(aux_count),
                  as.double(variance_ratio)))
}

vbmc_log_pdf <- function(post, x) .Call(C_post_log_pdf, post_handle(post), as_points(x, post$dim))

vbmc_moments <- function(post) {
  m <- .Call(C_post_moments, post_handle(post))
  if (!is.null(post$names)) {
    names(m$mean) <- post$names
    dimnames(m$cov) <- list(post$names, post$names)
  }
  m
}

vbmc_mode <- function(post) with_names(.Call(C_post_mode, post_handle(post)), post$names)

# The marginal density of parameter `coord` (1-based, or a parameter name) at `values`.
vbmc_marginal_pdf <- function(post, coord, values) {
  index <- parameter_index(post, coord)
  .Call(C_post_marginal_pdf, post_handle(post), index - 1L, as.double(values))
}

parameter_index <- function(post, coord) {
  if (is.character(coord) && length(coord) == 1 && coord %in% post$names)
    return(match(coord, post$names))
  if (!is.numeric(coord) || length(coord) != 1 || coord != round(coord) || coord < 1 || coord > post$dim)
    stop(sprintf("coord must be a parameter name or a whole number between 1 and %d", post$dim),
         call. = FALSE)
  as.integer(coord)
}

vbmc_kl <- function(p, q, n = 1e5, seed = NULL) {
  values <- .Call(C_post_kl, post_handle(p), post_handle(q), n,
                  if (is.null(seed)) random_seed() else seed)
  list(kl = c(p_q = values[1], q_p = values[2]), kl_sd = c(p_q = values[3], q_p = values[4]))
}

vbmc_mtv <- function(p, q, n = 1e5, seed = NULL) {
  with_names(.Call(C_post_mtv, post_handle(p), post_handle(q), n,
                   if (is.null(seed)) random_seed() else seed), p$names)
}

vbmc_elbo <- function(post) c(elbo = post$elbo, elbo_sd = post$elbo_sd)

vbmc_log_evidence <- function(post) {
  values <- .Call(C_post_log_evidence, post_handle(post))
  c(log_z = values[1], log_z_sd = values[2])
}

vbmc_post_save <- function(post, path) invisible(.Call(C_post_save, post_handle(post), path.expand(path)))

vbmc_post_load <- function(path) new_posterior(.Call(C_post_load, path.expand(path)))

print.vbmc_posterior <- function(x, ...) {
  cat(sprintf("<vbmc posterior: dim %d, %d components, ELBO %.6g (SD %.3g)>\n", x$dim,
              x$components, x$elbo, x$elbo_sd))
  invisible(x)
}

# Mean, SD and quantiles of each parameter, from n draws.
parameter_table <- function(post, n = 10000) {
  draws <- vbmc_sample(post, n)
  quantiles <- t(apply(draws, 2, stats::quantile, probs = c(0.025, 0.5, 0.975)))
  table <- data.frame(mean = vbmc_moments(post)$mean, sd = sqrt(diag(vbmc_moments(post)$cov)),
                      quantiles, check.names = FALSE)
  rownames(table) <- if (is.null(post$names)) paste0("x", seq_len(post$dim)) else post$names
  table
}

summary.vbmc_posterior <- function(object, ...) {
  structure(list(dim = object$dim, components = object$components, elbo = object$elbo,
                 elbo_sd = object$elbo_sd, parameters = parameter_table(object)),
            class = "summary.vbmc_posterior")
}

print.summary.vbmc_posterior <- function(x, digits = 4, ...) {
  cat(sprintf("Variational posterior: %d parameters, mixture of %d Gaussians\n", x$dim,
              x$components))
  cat(sprintf("ELBO (lower bound on log evidence): %.*g (SD %.2g)\n\n", digits, x$elbo,
              x$elbo_sd))
  print(x$parameters, digits = digits)
  invisible(x)
}

plot.vbmc_posterior <- function(x, evaluations = NULL, n = 20000, main = NULL, ...) {
  plot_corner(vbmc_sample(x, n), evaluations, main = main)
}

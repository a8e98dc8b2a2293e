# Tests of the R binding against the installed package (meson sets R_LIBS to the build's copy).
library(vbmc)

failures <- 0
check <- function(condition, what) {
  if (isTRUE(condition)) {
    cat("ok:", what, "\n")
  } else {
    cat("FAILED:", what, "\n")
    failures <<- failures + 1
  }
}
caught <- function(expr) tryCatch({ expr; NULL }, vbmc_error = function(e) e)
gaussian_log_joint <- function(x) -0.5 * sum(x * x)

check(vbmc_version() == paste(vbmc_constants[c("VERSION_MAJOR", "VERSION_MINOR",
                                                "VERSION_PATCH")], collapse = "."),
      "version matches the header macros")
check(all(c("seed", "max_fun_evals") %in% vbmc_options()$name), "option introspection")

e <- caught(vbmc(plb = c(3, -3), pub = c(-3, 3)))
check(inherits(e, "vbmc_error") && e$status == vbmc_status_codes[["E_ARG"]] &&
        grepl("plb", e$library_message), "misordered box raises E_ARG naming plb")

e <- caught(vbmc(plb = -1, pub = 1, options = list(no_such_option = 1)))
check(inherits(e, "vbmc_error") && e$status_name == "VBMC_E_OPTION" &&
        grepl("no_such_option", e$library_message), "unknown option raises E_OPTION")

e <- caught(vbmc(plb = -1, pub = 1, options = list(seed = c(1, 2))))
check(inherits(e, "vbmc_error") && grepl("seed must be a single", e$library_message),
      "an option value that is not a scalar is refused")

run <- vbmc(plb = -1, pub = 1, options = list(seed = 3L, display = "off"))
x <- vbmc_ask(run)
e <- caught(vbmc_tell(run, x + 0.25, 0))
check(inherits(e, "vbmc_error") && e$status == vbmc_status_codes[["E_STATE"]],
      "tell of a point not pending raises E_STATE")
answer <- vbmc_ask_status(run)  # max_pending = 1 and x is out
check(identical(answer$status, "WAIT") && is.null(answer$x) && is.null(vbmc_ask(run)),
      "with every allowed point out, the run says WAIT")
vbmc_tell(run, x, gaussian_log_joint(x))
check(vbmc_stat(run, "func_count") == 1, "the run stays usable after an error")
answer <- vbmc_ask_status(run)
check(identical(answer$status, "OK") && length(answer$x) == 1, "after a tell the run hands out a point")

failing <- vbmc(plb = -1, pub = 1, options = list(display = "off"))
r_error <- tryCatch(vbmc_run(failing, function(x) stop("model failed")), error = function(e) e)
check(conditionMessage(r_error) == "model failed" && nrow(vbmc_pending(failing)) == 1,
      "an R error in fn propagates and leaves the point pending")
vbmc_abandon(failing, vbmc_pending(failing)[1, ])
check(vbmc_stat(failing, "pending") == 0, "abandon clears the pending point")

resumed <- vbmc(plb = -1, pub = 1, options = list(display = "off", max_fun_evals = 12L))
tryCatch(vbmc_run(resumed, function(x) stop("model failed")), error = function(e) NULL)
left <- vbmc_pending(resumed)[1, ]
seen <- NULL
vbmc_run(resumed, function(x) { if (is.null(seen)) seen <<- x; gaussian_log_joint(x) })
check(identical(seen, left) && vbmc_stat(resumed, "func_count") == 12 &&
        vbmc_stat(resumed, "finished") == 1,
      "after an error, vbmc_run starts with the pending point and finishes")

run <- vbmc(plb = c(-2, -2), pub = c(2, 2),
            options = list(seed = 5L, display = "off", max_fun_evals = 40L))
post <- vbmc_run(run, gaussian_log_joint)
check(vbmc_stat(run, "finished") == 1 && is.finite(post$elbo), "run finishes with a finite ELBO")
check(startsWith(vbmc_result_message(run), "Inference terminated: ") &&
        vbmc_stat(run, "reliable") %in% c(0, 1),
      "a finished run says why it stopped and gives a 0/1 reliability verdict")
fresh <- vbmc(plb = c(-2, -2), pub = c(2, 2), options = list(display = "off"))
check(identical(vbmc_result_message(fresh), "") && is.nan(vbmc_stat(fresh, "reliable")),
      "a fresh run has no result message and a NaN reliability verdict")
check(!identical(vbmc_sample(post, 4), vbmc_sample(post, 4)), "draws are fresh by default")
set.seed(5); first <- vbmc_sample(post, 4)
set.seed(5)
check(identical(first, vbmc_sample(post, 4)), "set.seed makes default draws reproducible")
labelled <- vbmc_sample(post, 50, seed = 3, components = TRUE)
check(identical(as.vector(labelled), as.vector(vbmc_sample(post, 50, seed = 3))) &&
        all(attr(labelled, "component") %in% seq_len(post$components)),
      "components = TRUE labels the same draws with 1-based components")
draws <- vbmc_sample(post, 7, seed = 11)
check(identical(dim(draws), c(7L, 2L)) && identical(draws, vbmc_sample(post, 7, seed = 11)),
      "sample gives n x dim, reproducibly")
values <- vbmc_log_pdf(post, draws)
check(length(values) == 7 && abs(vbmc_log_pdf(post, draws[4, ]) - values[4]) <=
        1e-12 * abs(values[4]), "log_pdf of rows and of one point agree")
m <- vbmc_moments(post)
check(length(m$mean) == 2 && identical(dim(m$cov), c(2L, 2L)) &&
        isSymmetric(m$cov, tol = 1e-12), "moments have the right shapes")
path <- tempfile(fileext = ".vbmc")
vbmc_post_save(post, path)
loaded <- vbmc_post_load(path)
check(loaded$elbo == post$elbo && identical(vbmc_log_pdf(loaded, draws), values),
      "posterior save/load round-trips")
refined <- vbmc_sample_refined(post, 7, seed = 11)
check(identical(dim(refined), c(7L, 2L)) && all(is.finite(refined)) &&
        identical(refined, vbmc_sample_refined(post, 7, seed = 11)),
      "refined draws are n x dim, finite and reproducible")
aux <- vbmc_refined_elbo(post, 50, seed = 3)
check(aux[["elbo"]] >= post$elbo && aux[["elbo_sd"]] >= post$elbo_sd,
      "the auxiliary ELBO is not below the mixture's")
e <- caught(vbmc_set_refinement(post, 0, 0.7))
check(inherits(e, "vbmc_error") && e$status_name == "VBMC_E_ARG", "a refinement setting out of range")
e <- caught(vbmc_post_load(tempfile()))
check(inherits(e, "vbmc_error") && e$status_name == "VBMC_E_IO", "loading a missing file")

# ---- validation at the boundary -------------------------------------------------------------
message_of <- function(expr) tryCatch({ expr; "" }, error = function(e) conditionMessage(e))
run3 <- vbmc(plb = c(-2, -2, -2), pub = c(2, 2, 2),
             options = list(seed = 2L, display = "off", max_fun_evals = 30L))
post3 <- vbmc_run(run3, gaussian_log_joint)
check(grepl("vector of length 2", message_of(vbmc_log_pdf(post3, c(1, 2)))),
      "log_pdf refuses a point of the wrong length (no recycling)")
check(grepl("3 columns", message_of(vbmc_log_pdf(post3, matrix(0, 3, 2)))),
      "log_pdf refuses a matrix with the wrong number of columns")
check(length(vbmc_log_pdf(post3, data.frame(a = 0, b = 0, c = 0:1))) == 2,
      "log_pdf takes a data frame of points")
e <- caught(vbmc_log_pdf(post3, c(0, NaN, 0)))
check(inherits(e, "vbmc_error") && grepl("NaN", e$library_message) &&
        !grepl("rejected", e$library_message), "posterior errors carry the library's message")

returns <- list(NULL, numeric(0), "1.5", c(1, 2, 3), list(1))
refused <- vbmc(plb = -1, pub = 1, options = list(display = "off"))
for (bad in returns) {
  text <- message_of(vbmc_run(refused, function(x) bad))
  check(grepl("fn returned", text) && vbmc_stat(refused, "pending") == 1 &&
          vbmc_stat(refused, "func_count") == 0,
        paste("a function returning", deparse(bad), "is refused and its point stays pending"))
}
failed <- vbmc(plb = -1, pub = 1, options = list(display = "off", max_fun_evals = 12L))
e <- caught(vbmc_run(failed, function(x) NA))
check(inherits(e, "vbmc_error") && grepl("without a single finite", e$library_message),
      "a run whose every evaluation failed says why")

# ---- names, messages, persistence ------------------------------------------------------------
named <- vbmc(plb = c(mu = -2, sigma = 0.1), pub = c(mu = 2, sigma = 3), lb = c(-Inf, 0),
              options = list(seed = 1L, display = "iter", max_fun_evals = 25L))
seen <- character(0)
named_post <- withCallingHandlers(vbmc_run(named, function(x) {
  if (is.null(names(x))) stop("names lost")
  sum(dnorm(c(0.3, -0.2, 0.5), x[["mu"]], x[["sigma"]], log = TRUE))
}), message = function(m) { seen <<- c(seen, conditionMessage(m)); invokeRestart("muffleMessage") })
check(any(grepl("Iteration", seen)) && any(grepl("Inference terminated", seen)),
      "the iteration table arrives as messages")
check(identical(colnames(vbmc_sample(named_post, 2)), c("mu", "sigma")) &&
        identical(names(vbmc_moments(named_post)$mean), c("mu", "sigma")) &&
        identical(colnames(vbmc_evaluations(named)$x), c("mu", "sigma")),
      "parameter names are kept on draws, moments and evaluations")
rds <- tempfile(fileext = ".rds")
saveRDS(named_post, rds)
restored <- readRDS(rds)
check(identical(vbmc_log_pdf(restored, c(0, 1)), vbmc_log_pdf(named_post, c(0, 1))),
      "a posterior survives saveRDS / readRDS")
history <- vbmc_history(named)
check(nrow(history) == vbmc_stat(named, "iteration") && all(diff(history$func_count) > 0) &&
        is.logical(history$warmup), "history has one row per iteration")
record <- vbmc_evaluations(named)
check(nrow(record$x) == 25 && sum(record$in_training) == vbmc_stat(named, "train_count"),
      "evaluations: every told point, and which train the surrogate")
home_file <- file.path("~", basename(tempfile("vbmc-ckpt-")))
saving <- vbmc(plb = -1, pub = 1, options = list(display = "off", checkpoint_file = home_file,
                                                  checkpoint_every = 1L))
vbmc_tell(saving, vbmc_ask(saving), 0)
check(file.exists(path.expand(home_file)), "checkpoint_file is tilde-expanded")
unlink(path.expand(home_file))

# ---- the workflow after a first run -----------------------------------------------------------
shifted <- function(x) sum(dnorm(x, c(1, -1), c(0.5, 1), log = TRUE))
first_runs <- lapply(1:2, function(seed) {
  run <- vbmc(plb = c(-3, -3), pub = c(3, 3), x0 = c(seed - 1.5, 0),
              options = list(seed = seed, display = "off", max_fun_evals = 60L))
  vbmc_run(run, shifted)
  run
})
p1 <- vbmc_posterior(first_runs[[1]])
p2 <- vbmc_posterior(first_runs[[2]])
evidence <- vbmc_log_evidence(p1)
check(abs(evidence[["log_z"]]) < 0.2 && evidence[["log_z_sd"]] > 0,
      "the log evidence of a normalised Gaussian is near 0")
check(max(abs(vbmc_mode(p1) - c(1, -1))) < 0.2, "the mode of a Gaussian posterior is near its mean")
grid <- seq(-2, 4, length.out = 601)
density <- vbmc_marginal_pdf(p1, 1, grid)
check(abs(sum(density) * (grid[2] - grid[1]) - 1) < 0.01, "a marginal density integrates to 1")
check(identical(vbmc_marginal_pdf(p1, 1, grid[101]), density[101]),
      "a marginal density at one value equals the same value in a vector")
kl <- vbmc_kl(p1, p1, n = 2000, seed = 4)
check(all(abs(kl$kl) < 1e-12) && length(kl$kl_sd) == 2, "KL of a posterior with itself is 0")
mtv <- vbmc_mtv(p1, p2, n = 2000, seed = 4)
check(length(mtv) == 2 && all(mtv >= 0 & mtv <= 1), "MTV per parameter lies in [0, 1]")
d <- vbmc_diagnose(first_runs, seed = 2)
check(is.logical(d$agree) && d$best %in% 1:2 && identical(dim(d$skl), c(2L, 2L)) &&
        is.character(d$message) && nchar(d$message) > 0, "diagnose two runs")
e <- caught(vbmc_diagnose(first_runs[1], seed = 2))
check(inherits(e, "vbmc_error") && e$status_name == "VBMC_E_ARG", "diagnose needs two runs")
warm <- vbmc_warm_start(first_runs[[1]], options = list(seed = 3L, display = "off", max_fun_evals = 80L))
reused <- vbmc_evaluations(warm)
check(nrow(reused$x) > 0 && identical(reused$x[1, ], vbmc_evaluations(first_runs[[1]])$x[1, ]),
      "a warm start re-uses the previous evaluations")
vbmc_run(warm, shifted)
check(vbmc_stat(warm, "finished") == 1, "a warm-started run finishes")
history <- vbmc_history(first_runs[[1]])
check(is.character(history$action) && nrow(history) == vbmc_stat(first_runs[[1]], "iteration"),
      "history has each iteration's action")
past <- vbmc_history_posterior(first_runs[[1]], 1)
check(inherits(past, "vbmc_posterior") && past$dim == 2, "the posterior of the first iteration")
e <- caught(vbmc_history_posterior(first_runs[[1]], 0))
check(inherits(e, "vbmc_error") && e$status_name == "VBMC_E_ARG", "iteration 0 does not exist")
with_prior <- vbmc(plb = c(-3, -3), pub = c(3, 3), options = list(seed = 1L, display = "off"))
vbmc_set_prior(with_prior, 1, "gaussian", c(0, 2))
vbmc_set_prior(with_prior, 2, "gaussian", c(0, 2))
check(abs(vbmc_log_prior(with_prior, c(0, 0)) - 2 * dnorm(0, 0, 2, log = TRUE)) < 1e-12,
      "the log prior of two Gaussian priors")
e <- caught(vbmc_set_prior(with_prior, 1, "gaussian", c(0, -1)))
check(inherits(e, "vbmc_error") && e$status_name == "VBMC_E_ARG", "a negative sigma is refused")
x <- vbmc_ask(with_prior)
vbmc_tell(with_prior, x, -0.5 * sum(x^2))
parts <- vbmc_evaluations(with_prior)
check(parts$log_likelihood == -0.5 * sum(x^2) && parts$log_joint == parts$log_likelihood + parts$log_prior,
      "a run with a prior records the told log likelihood and the log prior")
# The prior as an R function: the same asks and values as the ready-made Gaussian priors.
gauss_prior <- function(x) sum(dnorm(x, 0, 2, log = TRUE))
fn_prior <- vbmc(plb = c(-3, -3), pub = c(3, 3), options = list(seed = 1L, display = "off"))
vbmc_set_prior_fn(fn_prior, gauss_prior)
check(abs(vbmc_log_prior(fn_prior, c(0.5, -1)) - gauss_prior(c(0.5, -1))) < 1e-15,
      "the log prior of an R prior function")
x_fn <- vbmc_ask(fn_prior)
check(identical(x_fn, x), "a run with a prior function asks what the run with priors asked")
vbmc_tell(fn_prior, x_fn, -0.5 * sum(x_fn^2))
parts_fn <- vbmc_evaluations(fn_prior)
check(abs(parts_fn$log_prior - parts$log_prior) < 1e-12 && parts_fn$log_likelihood == parts$log_likelihood,
      "a prior function records the same two parts")
e <- caught(vbmc_set_prior_fn(fn_prior, gauss_prior))
check(inherits(e, "vbmc_error") && e$status_name == "VBMC_E_STATE", "a prior function only before the first tell")
e <- tryCatch(vbmc_set_prior_fn(with_prior, 3), error = function(e) e)
check(inherits(e, "error") && grepl("must be a function", conditionMessage(e)), "fn must be a function")
bad_prior <- vbmc(plb = c(-3, -3), pub = c(3, 3), options = list(seed = 1L, display = "off"))
vbmc_set_prior_fn(bad_prior, function(x) stop("no prior here"))
x_bad <- vbmc_ask(bad_prior)
e <- tryCatch(vbmc_tell(bad_prior, x_bad, 0), error = function(e) e)
check(grepl("no prior here", conditionMessage(e)) && nrow(vbmc_pending(bad_prior)) == 1,
      "an error in the prior function fails the tell and leaves the point pending")
e <- caught(vbmc_log_prior(vbmc(plb = c(-3, -3), pub = c(3, 3)), c(0, 0)))
check(inherits(e, "vbmc_error"), "a run without a prior has no log prior")
rm(fn_prior); invisible(gc())  # the prior function is released with its run
fn_run <- vbmc(plb = c(-3, -3), pub = c(3, 3), options = list(seed = 2L, display = "off", max_fun_evals = 30L))
vbmc_set_prior_fn(fn_run, gauss_prior)
invisible(vbmc_run(fn_run, function(x) -0.5 * sum(x^2)))
warm_fn <- vbmc_warm_start(fn_run, options = list(seed = 3L, display = "off", max_fun_evals = 40L))
rm(fn_run); invisible(gc())
x_warm <- vbmc_ask(warm_fn)
vbmc_tell(warm_fn, x_warm, -0.5 * sum(x_warm^2))
check(abs(tail(vbmc_evaluations(warm_fn)$log_prior, 1) - gauss_prior(x_warm)) < 1e-12,
      "a warm start keeps the prior function after the first run is gone")

# ---- vbmc_fit ---------------------------------------------------------------------------------
set.seed(7)
log_joint <- function(x) sum(dnorm(x, c(1, -1), c(0.5, 2), log = TRUE)) + log(5)
fit <- vbmc_fit(log_joint, plb = c(a = -3, b = -5), pub = c(a = 3, b = 5),
                options = list(display = "off"))
check(inherits(fit, "vbmc_fit") && abs(fit$elbo - log(5)) < 0.05,
      "vbmc_fit finds the log evidence of a Gaussian (log 5)")
check(max(abs(coef(fit) - c(a = 1, b = -1))) < 0.1 &&
        max(abs(diag(vcov(fit)) / c(0.25, 4) - 1)) < 0.1 && identical(names(coef(fit)), c("a", "b")),
      "coef and vcov are the posterior's mean and covariance")
check(identical(dim(simulate(fit, 6)), c(6L, 2L)), "simulate gives nsim x dim draws")
printed <- capture.output(print(summary(fit)))
check(any(grepl("2.5%", printed)) && any(grepl("^a ", printed)), "summary prints a parameter table")
plot_dir <- Sys.getenv("VBMC_PLOT_DIR", tempdir())
dir.create(plot_dir, showWarnings = FALSE, recursive = TRUE)
for (which in c("corner", "elbo")) {
  path <- file.path(plot_dir, paste0("r_", which, ".png"))
  grDevices::png(path, width = 640, height = 640, type = "cairo")
  plot(fit, which, main = paste("R vbmc_fit:", which))
  grDevices::dev.off()
  check(file.size(path) > 5000, paste("plot", which, "is drawn"))
}

if (failures > 0) quit(status = 1)
cat("all R checks passed\n")

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
vbmc_tell(run, x, gaussian_log_joint(x))
check(vbmc_stat(run, "func_count") == 1, "the run stays usable after an error")

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

if (failures > 0) quit(status = 1)
cat("all R checks passed\n")

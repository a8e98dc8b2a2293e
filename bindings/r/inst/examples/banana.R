# The 2-D banana of examples/quickstart.c from R: ask-tell loop, seed 1, prints the ELBO.
library(vbmc)

# -[(x1^2 - x2)^2 + (x1 - 1)^2 / 100] + log N(x; 0, 3^2 I), operations as in quickstart.c.
banana_log_joint <- function(x) {
  banana <- -((x[1] * x[1] - x[2]) * (x[1] * x[1] - x[2]) + (x[1] - 1) * (x[1] - 1) / 100)
  log_prior <- -0.5 * (x[1] * x[1] + x[2] * x[2]) / 9 - log(2 * pi * 9)
  banana + log_prior
}

run <- vbmc(plb = c(-3, -3), pub = c(3, 3), options = list(seed = 1L, display = "off"))
while (!is.null(x <- vbmc_ask(run))) {
  vbmc_tell(run, x, banana_log_joint(x))
}
post <- vbmc_posterior(run)
cat(sprintf("ELBO = %.17g\n", post$elbo))
cat(sprintf("ELBO SD = %.17g\n", post$elbo_sd))
cat("posterior mean =", format(vbmc_moments(post)$mean, digits = 6), "\n")

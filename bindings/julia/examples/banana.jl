# The 2-D banana of examples/quickstart.c from Julia: ask-tell loop, seed 1, prints the ELBO.
using Printf
using VBMC

# -[(x1^2 - x2)^2 + (x1 - 1)^2 / 100] + log N(x; 0, 3^2 I), operations as in quickstart.c.
function banana_log_joint(x)
    banana = -((x[1] * x[1] - x[2]) * (x[1] * x[1] - x[2]) + (x[1] - 1) * (x[1] - 1) / 100.0)
    log_prior = -0.5 * (x[1] * x[1] + x[2] * x[2]) / 9.0 - log(2.0 * pi * 9.0)
    return banana + log_prior
end

run = VBMCRun(nothing, nothing, [-3.0, -3.0], [3.0, 3.0];
              options = Dict("seed" => 1, "display" => "off"))
while (x = ask!(run)) !== nothing
    tell!(run, x, banana_log_joint(x))
end
post = posterior(run)
@printf("ELBO = %.17g\n", elbo(post))
@printf("ELBO SD = %.17g\n", elbo_sd(post))
println("posterior mean = ", VBMC.moments(post)[1])

# The 2-D banana of examples/quickstart.c from Julia: ask-tell loop, seed 1, prints the ELBO.
using Printf
using VBMC

# -[(x1^2 - x2)^2 + (x1 - 1)^2 / 100] + log N(x; 0, 3^2 I), same operations as the C.
function banana_log_joint(x)
    ridge = x[1] * x[1] - x[2]
    shift = x[1] - 1.0
    log_likelihood = -(ridge * ridge + shift * shift / 100.0)
    log_prior = -(x[1] * x[1] + x[2] * x[2]) / 18.0 - 2.0 * log(3.0) - log(2.0 * pi)
    return log_likelihood + log_prior
end

run = VBMCRun(nothing, nothing, [-3.0, -3.0], [3.0, 3.0];
              options = Dict("seed" => 1, "display" => "off"))
while (x = ask!(run)) !== nothing
    tell!(run, x, banana_log_joint(x))
end
post = posterior(run)
@printf("ELBO = %.17g\n", elbo(post))
@printf("ELBO SD = %.17g\n", elbo_sd(post))
println("posterior mean = ", moments(post)[1])

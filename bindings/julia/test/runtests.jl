# Tests of the Julia binding (not run in this project's CI: no Julia runtime is installed there;
# see bindings/README.md). Run with VBMC_LIBRARY pointing at libvbmc and `julia --project -e
# 'using Pkg; Pkg.test()'` from bindings/julia.
using Test
using VBMC
using Random: seed!
using Statistics: mean, cov

gaussian_log_joint(x) = -0.5 * sum(abs2, x)

@testset "VBMC" begin
    @test VBMC.version() == "$(VBMC.VERSION_MAJOR).$(VBMC.VERSION_MINOR).$(VBMC.VERSION_PATCH)"
    for status in instances(Status)
        @test VBMC.status_name(Int(status)) == "VBMC_" * string(status)
    end

    err = try
        VBMCRun(nothing, nothing, [3.0, -3.0], [-3.0, 3.0])
        nothing
    catch e
        e
    end
    @test err isa VBMCError && err.status == VBMC.E_ARG && occursin("plb", err.message)

    waiting = VBMCRun(nothing, nothing, [-1.0], [1.0]; options = Dict("display" => "off"))
    x = ask!(waiting)  # max_pending = 1: x is out
    @test ask_status!(waiting) == (VBMC.WAIT, nothing)
    @test ask!(waiting) === nothing
    tell!(waiting, x, -0.5 * x[1]^2)
    @test ask_status!(waiting)[1] == VBMC.OK

    run = VBMCRun(nothing, nothing, [-2.0, -2.0], [2.0, 2.0];
                  options = Dict("seed" => 5, "display" => "off", "max_fun_evals" => 40))
    post = run!(run, gaussian_log_joint)
    @test VBMC.stat(run, "finished") == 1.0
    @test isfinite(elbo(post))
    @test startswith(result_message(run), "Inference terminated: ")
    @test VBMC.stat(run, "reliable") in (0.0, 1.0)
    fresh = VBMCRun(nothing, nothing, [-2.0, -2.0], [2.0, 2.0]; options = Dict("display" => "off"))
    @test result_message(fresh) == ""
    @test isnan(VBMC.stat(fresh, "reliable"))
    draws = VBMC.sample(post, 7; seed = 11)
    @test size(draws) == (2, 7)
    @test draws == VBMC.sample(post, 7; seed = 11)
    @test rand(post, 4) != rand(post, 4)
    seed!(3); first = rand(post, 4); seed!(3)
    @test rand(post, 4) == first
    labelled, components = sample_components(post, 7; seed = 11)
    @test labelled == draws && all(1 .<= components .<= post.components)
    @test length(VBMC.logpdf(post, draws)) == 7
    @test isapprox(cov(post), cov(post)'; rtol = 1e-12) && length(mean(post)) == 2
    record = history(run)
    @test length(record.elbo) == VBMC.stat(run, "iteration")
    told = evaluations(run)
    @test size(told.x) == (2, 40) && count(told.in_training) == VBMC.stat(run, "train_count")
    @test !isdefined(Main, :sample) && !isdefined(Main, :logpdf) && !isdefined(Main, :save)
    refined = sample_refined(post, 7; seed = 11)
    @test size(refined) == (2, 7) && all(isfinite, refined)
    @test refined == sample_refined(post, 7; seed = 11)
    aux, aux_sd = refined_elbo(post, 50; seed = 3)
    @test aux >= elbo(post) && aux_sd >= elbo_sd(post)
    err = try
        set_refinement!(post, 0, 0.7)
    catch e
        e
    end
    @test err isa VBMCError && err.status == VBMC.E_ARG

    # the workflow after a first run
    second = VBMCRun(nothing, nothing, [-2.0, -2.0], [2.0, 2.0], [0.5, -0.5];
                     options = Dict("seed" => 6, "display" => "off", "max_fun_evals" => 40))
    post2 = run!(second, gaussian_log_joint)
    log_z, log_z_sd = log_evidence(post)
    @test abs(log_z - log(2pi)) < 0.2 && log_z_sd > 0
    @test maximum(abs.(posterior_mode(post))) < 0.3
    grid = collect(-5.0:0.01:5.0)
    @test abs(sum(marginal_pdf(post, 1, grid)) * 0.01 - 1) < 0.01
    kl, kl_sd = kl_div(post, post; n = 2000, seed = 4)
    @test all(abs.(kl) .< 1e-12) && length(kl_sd) == 2
    @test all(0 .<= mtv(post, post2; n = 2000, seed = 4) .<= 1)
    d = diagnose([run, second]; seed = 2)
    @test d.best in (1, 2) && size(d.skl) == (2, 2) && !isempty(d.message)
    warm = warm_start(run; options = Dict("seed" => 7, "display" => "off", "max_fun_evals" => 60))
    @test VBMC.stat(warm, "func_count") > 0
    @test history_posterior(run, 1).dim == 2 && length(history(run).action) == VBMC.stat(run, "iteration")
    with_prior = VBMCRun(nothing, nothing, [-2.0, -2.0], [2.0, 2.0]; options = Dict("display" => "off"))
    set_prior!(with_prior, 1, "gaussian", [0.0, 2.0])
    set_prior!(with_prior, 2, "gaussian", [0.0, 2.0])
    @test log_prior(with_prior, [0.0, 0.0]) ≈ 2 * (-log(2.0) - 0.5 * log(2pi))
    x = ask!(with_prior)
    tell!(with_prior, x, -0.5 * sum(abs2, x))
    parts = evaluations(with_prior)
    @test parts.log_likelihood[1] == -0.5 * sum(abs2, x) && parts.log_joint == parts.log_likelihood .+ parts.log_prior
end

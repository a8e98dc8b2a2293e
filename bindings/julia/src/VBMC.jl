"""
    VBMC

Variational Bayesian Monte Carlo through the libvbmc C library: `ccall` wrappers and nothing else.

    run = VBMCRun(nothing, nothing, [-3.0, -3.0], [3.0, 3.0]; options = Dict("seed" => 1))
    while (x = ask!(run)) !== nothing
        tell!(run, x, log_joint(x))
    end
    post = posterior(run)
    elbo(post), rand(post, 1000), mean(post), cov(post)

A set of n points is a `dim × n` matrix (one point per column), which is exactly the C API's
row-major `x[n*dim]`, so nothing is transposed. Failed calls throw `VBMCError` with the library's
status and message. The library is `ENV["VBMC_LIBRARY"]` when the module is compiled, else
`libvbmc` on the loader's search path.

Names that other packages own are extended, never exported anew: `Base.rand`,
`Statistics.mean` and `Statistics.cov` here; `StatsBase.sample`, `Distributions.logpdf` and
`FileIO.save` by the package extensions in `ext/` once those packages are loaded. Without them,
`VBMC.sample`, `VBMC.logpdf`, `VBMC.moments` and `VBMC.save` are the same functions.
"""
module VBMC

import Random
import Statistics

export VBMCRun, Posterior, VBMCError, Status, ask!, ask_status!, tell!, tell_extra!, abandon!,
       pending, result_message, posterior, run!, load_run, load_posterior, elbo, elbo_sd,
       history, evaluations, sample_components, sample_refined, refined_elbo, set_refinement!,
       log_evidence, posterior_mode, marginal_pdf, kl_div, mtv, diagnose, warm_start, set_prior!, log_prior,
       history_posterior, options, version

include("constants.jl")

const libvbmc = get(ENV, "VBMC_LIBRARY", "libvbmc")

"""A failed library call: the status code and the library's sentence."""
struct VBMCError <: Exception
    status::Status
    message::String
end

Base.showerror(io::IO, e::VBMCError) = print(io, "VBMCError(", e.status, "): ", e.message)

"""The library version, "MAJOR.MINOR.PATCH"."""
version() = unsafe_string(ccall((:vbmc_version, libvbmc), Cstring, ()))

"""The C name of a status code, e.g. "VBMC_E_ARG"."""
status_name(code::Integer) =
    unsafe_string(ccall((:vbmc_status_name, libvbmc), Cstring, (Cint,), code))

last_error(handle::Ptr{Cvoid}) =
    unsafe_string(ccall((:vbmc_last_error, libvbmc), Cstring, (Ptr{Cvoid},), handle))

function check(code::Cint, message::Function)
    code < 0 && throw(VBMCError(Status(code), message()))
    return Status(code)
end

function checked_vector(values, dim::Integer, what::String)
    vector = convert(Vector{Float64}, collect(values))
    length(vector) == dim ||
        throw(ArgumentError("$what has $(length(vector)) elements; expected $dim"))
    return vector
end

nullable(values, dim, what) =
    values === nothing ? Ptr{Cdouble}(C_NULL) : checked_vector(values, dim, what)

"""Every option of the library as named tuples (name, type, default, help)."""
function options()
    count = ccall((:vbmc_opts_count, libvbmc), Cint, ())
    return [(name = unsafe_string(ccall((:vbmc_opts_name, libvbmc), Cstring, (Cint,), i)),
             type = unsafe_string(ccall((:vbmc_opts_type, libvbmc), Cstring, (Cint,), i)),
             default = unsafe_string(ccall((:vbmc_opts_default, libvbmc), Cstring, (Cint,), i)),
             help = unsafe_string(ccall((:vbmc_opts_help, libvbmc), Cstring, (Cint,), i)))
            for i in 0:count-1]
end

destroy_options(opts::Ptr{Cvoid}) = ccall((:vbmc_opts_destroy, libvbmc), Cvoid, (Ptr{Cvoid},), opts)

# A vbmc_opts handle holding `settings` (name => Bool, Integer, Real or text).
function make_options(settings)
    handle = Ref{Ptr{Cvoid}}(C_NULL)
    check(ccall((:vbmc_opts_create, libvbmc), Cint, (Ref{Ptr{Cvoid}},), handle),
          () -> "vbmc_opts_create failed")
    opts = handle[]
    try
        for (name, value) in pairs(settings)
            key = String(name)
            code = if value isa Bool
                ccall((:vbmc_opts_set, libvbmc), Cint, (Ptr{Cvoid}, Cstring, Cstring),
                      opts, key, value ? "true" : "false")
            elseif value isa Integer
                ccall((:vbmc_opts_set_int, libvbmc), Cint, (Ptr{Cvoid}, Cstring, Clonglong),
                      opts, key, value)
            elseif value isa Real
                ccall((:vbmc_opts_set_double, libvbmc), Cint, (Ptr{Cvoid}, Cstring, Cdouble),
                      opts, key, value)
            else
                ccall((:vbmc_opts_set, libvbmc), Cint, (Ptr{Cvoid}, Cstring, Cstring),
                      opts, key, string(value))
            end
            check(code, () -> unsafe_string(ccall((:vbmc_opts_error, libvbmc), Cstring,
                                                  (Ptr{Cvoid},), opts)))
        end
    catch
        destroy_options(opts)
        rethrow()
    end
    return opts
end

# ---- runs ---------------------------------------------------------------------------------

"""
    VBMCRun(lb, ub, plb, pub, x0 = nothing; options = Dict())

One inference run in dimension `length(plb)`. `lb`/`ub` are the hard bounds (`nothing` or
±Inf for unbounded), `plb`/`pub` the finite plausible box, `x0` the start (`nothing`: the
centre of the box), `options` a collection of name => value pairs (PyVBMC's names).
"""
mutable struct VBMCRun
    handle::Ptr{Cvoid}
    dim::Int
    function VBMCRun(handle::Ptr{Cvoid})
        run = new(handle, Int(ccall((:vbmc_dim, libvbmc), Cint, (Ptr{Cvoid},), handle)))
        return finalizer(close, run)
    end
end

function VBMCRun(lb, ub, plb, pub, x0 = nothing; options = Dict{String,Any}())
    dim = length(plb)
    x0_values, lb_values, ub_values = nullable(x0, dim, "x0"), nullable(lb, dim, "lb"),
                                      nullable(ub, dim, "ub")
    plb_values, pub_values = checked_vector(plb, dim, "plb"), checked_vector(pub, dim, "pub")
    opts = make_options(options)
    handle = Ref{Ptr{Cvoid}}(C_NULL)
    code = try
        ccall((:vbmc_create, libvbmc), Cint,
              (Ref{Ptr{Cvoid}}, Cint, Ptr{Cdouble}, Ptr{Cdouble}, Ptr{Cdouble}, Ptr{Cdouble},
               Ptr{Cdouble}, Ptr{Cvoid}),
              handle, dim, x0_values, lb_values, ub_values, plb_values, pub_values, opts)
    finally
        destroy_options(opts)
    end
    check(code, () -> last_error(C_NULL))
    return VBMCRun(handle[])
end

"""Release the run now (it is also released by the garbage collector)."""
function Base.close(run::VBMCRun)
    ccall((:vbmc_destroy, libvbmc), Cvoid, (Ptr{Cvoid},), run.handle)
    run.handle = C_NULL
    return nothing
end

function live(run::VBMCRun)
    run.handle == C_NULL && throw(ArgumentError("the run was closed"))
    return run.handle
end

run_check(run::VBMCRun, code::Cint) = check(code, () -> last_error(run.handle))

"""The next point to evaluate, or `nothing` when there is none to hand out now: the run has
finished, or every point it may hand out is pending (`ask_status!` says which)."""
ask!(run::VBMCRun) = ask_status!(run)[2]

"""`(OK, x)`, `(DONE, nothing)` when the run has finished, or `(WAIT, nothing)` when every point
it may hand out now is pending: tell one, then ask again (a loop keeping several evaluations in
flight asks until `WAIT`)."""
function ask_status!(run::VBMCRun)
    x = Vector{Float64}(undef, run.dim)
    status = run_check(run, ccall((:vbmc_ask, libvbmc), Cint, (Ptr{Cvoid}, Ptr{Cdouble}),
                                  live(run), x))
    return (status, status == OK ? x : nothing)
end

"""Tell the log joint at a point returned by `ask!`; `sd > 0` for a noisy estimate."""
function tell!(run::VBMCRun, x, log_joint::Real, sd::Real = 0.0)
    point = checked_vector(x, run.dim, "x")
    run_check(run, ccall((:vbmc_tell, libvbmc), Cint, (Ptr{Cvoid}, Ptr{Cdouble}, Cdouble, Cdouble),
                         live(run), point, log_joint, sd))
    return run
end

"""Add an evaluation that was not asked for to the training set."""
function tell_extra!(run::VBMCRun, x, log_joint::Real, sd::Real = 0.0)
    point = checked_vector(x, run.dim, "x")
    run_check(run, ccall((:vbmc_tell_extra, libvbmc), Cint,
                         (Ptr{Cvoid}, Ptr{Cdouble}, Cdouble, Cdouble),
                         live(run), point, log_joint, sd))
    return run
end

"""Give up a pending point without a value; the run will ask again."""
function abandon!(run::VBMCRun, x)
    point = checked_vector(x, run.dim, "x")
    run_check(run, ccall((:vbmc_abandon, libvbmc), Cint, (Ptr{Cvoid}, Ptr{Cdouble}),
                         live(run), point))
    return run
end

"""A scalar fact about the run: "iteration", "func_count", "elbo", "finished", ..."""
function stat(run::VBMCRun, name::AbstractString)
    value = Ref{Cdouble}(NaN)
    run_check(run, ccall((:vbmc_stat, libvbmc), Cint, (Ptr{Cvoid}, Cstring, Ref{Cdouble}),
                         live(run), name, value))
    return value[]
end

"""How the run ended: why it stopped and, if its result is unreliable, why ("" while it runs)."""
result_message(run::VBMCRun) =
    unsafe_string(ccall((:vbmc_result_message, libvbmc), Cstring, (Ptr{Cvoid},), live(run)))

"""The points asked for and not yet told, one per column."""
function pending(run::VBMCRun)
    count = Int(stat(run, "pending"))
    points = Matrix{Float64}(undef, run.dim, count)
    column = Vector{Float64}(undef, run.dim)
    for i in 1:count
        run_check(run, ccall((:vbmc_pending_point, libvbmc), Cint, (Ptr{Cvoid}, Cint, Ptr{Cdouble}),
                             live(run), i - 1, column))
        points[:, i] = column
    end
    return points
end

"""A snapshot of the variational posterior (the final one once the run has finished)."""
function posterior(run::VBMCRun)
    handle = Ref{Ptr{Cvoid}}(C_NULL)
    run_check(run, ccall((:vbmc_posterior, libvbmc), Cint, (Ptr{Cvoid}, Ref{Ptr{Cvoid}}),
                         live(run), handle))
    return Posterior(handle[])
end

"""
    run!(run, fn)

Ask-tell until the run finishes and return the posterior. `fn(x)` returns the log joint, or a
tuple `(log_joint, sd)`. The loop runs in Julia (an exception must not unwind through the C
library), so an exception in `fn` leaves the run usable with its point pending; the next `run!`
evaluates pending points before asking for new ones.
"""
function run!(run::VBMCRun, fn)
    while true
        waiting = pending(run)
        x = size(waiting, 2) > 0 ? waiting[:, 1] : ask!(run)
        x === nothing && break  # finished: with nothing pending the run never says WAIT
        tell!(run, x, told_value(fn(copy(x)), x)...)
    end
    return posterior(run)
end

# (log_joint, sd) from what fn returned at x: a real number, or a tuple (log_joint, sd).
told_value(value::Real, x) = (value, 0.0)
told_value(value::Tuple{Real,Real}, x) = value
told_value(value, x) = throw(ArgumentError(
    "fn returned $(repr(value)) at x = $x; it must return the log joint (a real number) or " *
    "a tuple (log_joint, sd)"))

"""Checkpoint the whole run to a file (atomically)."""
function save(run::VBMCRun, path::AbstractString)
    run_check(run, ccall((:vbmc_save, libvbmc), Cint, (Ptr{Cvoid}, Cstring), live(run), path))
    return nothing
end

"""
    history(run)

The record of each completed iteration as a named tuple of vectors: `iteration` and the series
of `vbmc_history` (`func_count`, `elbo`, `elbo_sd`, `skl`, `r_index`, `components`,
`train_count`, `gp_samples`, `stable`, `warmup`, `gp_output_scale`, `gp_length_scale`,
`gp_noise_sd`) and `action`, what each iteration did, for an ELBO trace plot.
"""
function history(run::VBMCRun)
    n = Int(stat(run, "iteration"))
    series = map(HISTORY_SERIES) do name
        values = Vector{Float64}(undef, n)
        run_check(run, ccall((:vbmc_history, libvbmc), Cint,
                             (Ptr{Cvoid}, Cstring, Csize_t, Ptr{Cdouble}),
                             live(run), String(name), n, values))
        values
    end
    actions = map(0:n-1) do i
        buffer = Vector{UInt8}(undef, 1024)
        run_check(run, ccall((:vbmc_history_action, libvbmc), Cint,
                             (Ptr{Cvoid}, Cint, Ptr{UInt8}, Csize_t), live(run), i, buffer, length(buffer)))
        unsafe_string(pointer(buffer))
    end
    return (iteration = collect(1:n), NamedTuple{HISTORY_SERIES}(series)..., action = actions)
end

"""The posterior of completed iteration `k` (1-based)."""
function history_posterior(run::VBMCRun, k::Integer)
    handle = Ref{Ptr{Cvoid}}(C_NULL)
    run_check(run, ccall((:vbmc_history_posterior, libvbmc), Cint, (Ptr{Cvoid}, Cint, Ref{Ptr{Cvoid}}),
                         live(run), k - 1, handle))
    return Posterior(handle[])
end

"""
    set_prior!(run, coord, kind, params)

The prior of parameter `coord` (1-based): `kind` one of "gaussian" (mu, sigma), "student_t"
(mu, sigma, nu), "uniform" (a, b), "smoothbox" (a, b, sigma), "trapezoidal" and
"spline_trapezoidal" (a, u, v, b), "lognormal" (mu, sigma of log x). Give every parameter one
before the first tell; the values told are then log likelihoods (`vbmc_set_prior`).
"""
function set_prior!(run::VBMCRun, coord::Integer, kind::AbstractString, params)
    values = convert(Vector{Float64}, collect(params))
    run_check(run, ccall((:vbmc_set_prior, libvbmc), Cint,
                         (Ptr{Cvoid}, Cint, Cstring, Ptr{Cdouble}, Cint),
                         live(run), coord - 1, kind, values, length(values)))
    return run
end

"""The log prior the run adds to each told log likelihood, at `x`."""
function log_prior(run::VBMCRun, x)
    value = Ref{Cdouble}(0.0)
    run_check(run, ccall((:vbmc_log_prior, libvbmc), Cint, (Ptr{Cvoid}, Ptr{Cdouble}, Ref{Cdouble}),
                         live(run), checked_vector(x, run.dim, "x"), value))
    return value[]
end

"""
    warm_start(previous; options = Dict(), reuse = true)

A new run from `previous`'s posterior; with `reuse` its evaluations are re-used, not evaluated
again (the same model with more budget), without only its posterior (a changed model).
"""
function warm_start(previous::VBMCRun; options = Dict{String,Any}(), reuse::Bool = true)
    opts = make_options(options)
    handle = Ref{Ptr{Cvoid}}(C_NULL)
    code = try
        ccall((:vbmc_create_warm, libvbmc), Cint, (Ref{Ptr{Cvoid}}, Ptr{Cvoid}, Ptr{Cvoid}, Cint),
              handle, live(previous), opts, reuse ? 1 : 0)
    finally
        destroy_options(opts)
    end
    check(code, () -> last_error(C_NULL))
    return VBMCRun(handle[])
end

const DIAGNOSIS_STATS = (:agree, :best, :converged_count, :elbo_spread, :max_skl, :max_mtv)

"""
    diagnose(runs; seed)

Whether several runs of the same problem agree (`vbmc_diagnose`): a named tuple with `agree`,
`best` (index into `runs`), `converged_count`, `elbo_spread`, `max_skl`, `max_mtv`, the pairwise
matrices `skl` and `mtv`, and `message`.
"""
function diagnose(runs::AbstractVector{VBMCRun}; seed::Integer = fresh_seed())
    handles = Ptr{Cvoid}[live(run) for run in runs]
    n = length(handles)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    post_check(ccall((:vbmc_diagnose, libvbmc), Cint, (Ptr{Ptr{Cvoid}}, Cint, UInt64, Ref{Ptr{Cvoid}}),
                     handles, n, seed, out), "vbmc_diagnose")
    diag = out[]
    try
        stats = map(DIAGNOSIS_STATS) do name
            value = Ref{Cdouble}(NaN)
            post_check(ccall((:vbmc_diag_stat, libvbmc), Cint, (Ptr{Cvoid}, Cstring, Ref{Cdouble}),
                             diag, String(name), value), "vbmc_diag_stat")
            value[]
        end
        pairwise = map(("skl", "mtv")) do name
            values = Matrix{Float64}(undef, n, n)
            post_check(ccall((:vbmc_diag_pairwise, libvbmc), Cint,
                             (Ptr{Cvoid}, Cstring, Csize_t, Ptr{Cdouble}), diag, name, n, values),
                       "vbmc_diag_pairwise")
            permutedims(values)  # written row-major
        end
        message = unsafe_string(ccall((:vbmc_diag_message, libvbmc), Cstring, (Ptr{Cvoid},), diag))
        return (agree = stats[1] == 1, best = Int(stats[2]) + 1, converged_count = Int(stats[3]),
                elbo_spread = stats[4], max_skl = stats[5], max_mtv = stats[6], skl = pairwise[1],
                mtv = pairwise[2], message = message)
    finally
        ccall((:vbmc_diag_destroy, libvbmc), Cvoid, (Ptr{Cvoid},), diag)
    end
end

const HISTORY_SERIES = (:func_count, :elbo, :elbo_sd, :skl, :r_index, :components,
                        :train_count, :gp_samples, :stable, :warmup, :gp_output_scale,
                        :gp_length_scale, :gp_noise_sd)

"""
    evaluations(run)

Every evaluation told, in order: `(x = dim × n, log_joint, log_joint_sd, in_training)`;
`in_training[i]` is true when the surrogate trains on point i. A run given a prior adds
`log_likelihood` (as told) and `log_prior`.
"""
function evaluations(run::VBMCRun)
    n = Int(stat(run, "func_count"))
    x = Matrix{Float64}(undef, run.dim, n)
    log_joint, sd = Vector{Float64}(undef, n), Vector{Float64}(undef, n)
    used = Vector{Cint}(undef, n)
    run_check(run, ccall((:vbmc_evaluations, libvbmc), Cint,
                         (Ptr{Cvoid}, Csize_t, Ptr{Cdouble}, Ptr{Cdouble}, Ptr{Cdouble}, Ptr{Cint}),
                         live(run), n, x, log_joint, sd, used))
    record = (x = x, log_joint = log_joint, log_joint_sd = sd, in_training = used .!= 0)
    stat(run, "has_prior") == 1 || return record
    log_likelihood, log_prior = Vector{Float64}(undef, n), Vector{Float64}(undef, n)
    run_check(run, ccall((:vbmc_evaluations_prior, libvbmc), Cint,
                         (Ptr{Cvoid}, Csize_t, Ptr{Cdouble}, Ptr{Cdouble}),
                         live(run), n, log_likelihood, log_prior))
    return (record..., log_likelihood = log_likelihood, log_prior = log_prior)
end

"""Resume a run from a checkpoint written by `save`."""
function load_run(path::AbstractString)
    handle = Ref{Ptr{Cvoid}}(C_NULL)
    check(ccall((:vbmc_load, libvbmc), Cint, (Ref{Ptr{Cvoid}}, Cstring), handle, path),
          () -> last_error(C_NULL))
    return VBMCRun(handle[])
end

Base.show(io::IO, run::VBMCRun) = print(io, "VBMCRun(dim = ", run.dim, ")")

# ---- posteriors ---------------------------------------------------------------------------

# A failed vbmc_post_* call leaves its message in the thread's handle-less error.
post_check(code::Cint, call::String) = check(code, () -> "$call: " * last_error(C_NULL))

"""A variational posterior snapshot, independent of its run."""
mutable struct Posterior
    handle::Ptr{Cvoid}
    dim::Int
    components::Int
    elbo::Float64
    elbo_sd::Float64
    function Posterior(handle::Ptr{Cvoid})
        dim = Int(ccall((:vbmc_post_dim, libvbmc), Cint, (Ptr{Cvoid},), handle))
        components = Int(ccall((:vbmc_post_components, libvbmc), Cint, (Ptr{Cvoid},), handle))
        elbo_value, elbo_sd_value = Ref{Cdouble}(NaN), Ref{Cdouble}(NaN)
        post_check(ccall((:vbmc_post_elbo, libvbmc), Cint,
                         (Ptr{Cvoid}, Ref{Cdouble}, Ref{Cdouble}), handle, elbo_value,
                         elbo_sd_value), "vbmc_post_elbo")
        return finalizer(close, new(handle, dim, components, elbo_value[], elbo_sd_value[]))
    end
end

function Base.close(post::Posterior)
    ccall((:vbmc_post_destroy, libvbmc), Cvoid, (Ptr{Cvoid},), post.handle)
    post.handle = C_NULL
    return nothing
end

function live(post::Posterior)
    post.handle == C_NULL && throw(ArgumentError("the posterior was closed"))
    return post.handle
end

"""The ELBO (estimated lower bound on the log evidence)."""
elbo(post::Posterior) = post.elbo

"""The standard deviation of the ELBO estimate."""
elbo_sd(post::Posterior) = post.elbo_sd

# A seed from Julia's default generator: fresh draws each call, reproducible after Random.seed!.
fresh_seed(rng::Random.AbstractRNG = Random.default_rng()) = rand(rng, UInt64)

"""`n` draws as a `dim × n` matrix; the same seed gives the same draws, and without one each
call draws fresh ones (`Random.seed!` makes them reproducible)."""
function sample(post::Posterior, n::Integer; seed::Integer = fresh_seed())
    draws = Matrix{Float64}(undef, post.dim, n)
    post_check(ccall((:vbmc_post_sample, libvbmc), Cint,
                     (Ptr{Cvoid}, Csize_t, UInt64, Ptr{Cdouble}), live(post), n, seed, draws),
               "vbmc_post_sample")
    return draws
end

"""`(draws, components)`: the draws of `sample(post, n; seed)` and the mixture component
(1-based) of each."""
function sample_components(post::Posterior, n::Integer; seed::Integer = fresh_seed())
    draws = Matrix{Float64}(undef, post.dim, n)
    labels = Vector{Cint}(undef, n)
    post_check(ccall((:vbmc_post_sample_components, libvbmc), Cint,
                     (Ptr{Cvoid}, Csize_t, UInt64, Ptr{Cdouble}, Ptr{Cint}),
                     live(post), n, seed, draws, labels), "vbmc_post_sample_components")
    return draws, Int.(labels) .+ 1
end

Base.rand(post::Posterior, n::Integer) = sample(post, n)
Base.rand(rng::Random.AbstractRNG, post::Posterior, n::Integer) =
    sample(post, n; seed = fresh_seed(rng))
Base.length(post::Posterior) = post.dim
Statistics.mean(post::Posterior) = moments(post)[1]
Statistics.cov(post::Posterior) = moments(post)[2]

"""`n` draws refined against the run's surrogate (`vbmc_post_sample_refined`), a `dim × n` matrix."""
function sample_refined(post::Posterior, n::Integer; seed::Integer = fresh_seed())
    draws = Matrix{Float64}(undef, post.dim, n)
    post_check(ccall((:vbmc_post_sample_refined, libvbmc), Cint,
                     (Ptr{Cvoid}, Csize_t, UInt64, Ptr{Cdouble}), live(post), n, seed, draws),
               "vbmc_post_sample_refined")
    return draws
end

"""`(elbo, elbo_sd)`: the auxiliary ELBO of `n` refined draws (`vbmc_post_refined_elbo`)."""
function refined_elbo(post::Posterior, n::Integer; seed::Integer = fresh_seed())
    value, sd = Ref{Cdouble}(0.0), Ref{Cdouble}(0.0)
    post_check(ccall((:vbmc_post_refined_elbo, libvbmc), Cint,
                     (Ptr{Cvoid}, Csize_t, UInt64, Ref{Cdouble}, Ref{Cdouble}), live(post), n, seed,
                     value, sd), "vbmc_post_refined_elbo")
    return value[], sd[]
end

"""The tuning of refined draws (`vbmc_post_set_refinement`)."""
function set_refinement!(post::Posterior, aux_count::Integer, variance_ratio::Real)
    post_check(ccall((:vbmc_post_set_refinement, libvbmc), Cint, (Ptr{Cvoid}, Cint, Cdouble),
                     live(post), aux_count, variance_ratio), "vbmc_post_set_refinement")
    return post
end

"""Log density at the columns of a `dim × n` matrix (a vector of n values)."""
function logpdf(post::Posterior, x::AbstractMatrix{<:Real})
    size(x, 1) == post.dim ||
        throw(ArgumentError("x has $(size(x, 1)) rows; expected $(post.dim)"))
    points = convert(Matrix{Float64}, x)
    values = Vector{Float64}(undef, size(points, 2))
    post_check(ccall((:vbmc_post_log_pdf, libvbmc), Cint,
                     (Ptr{Cvoid}, Csize_t, Ptr{Cdouble}, Ptr{Cdouble}),
                     live(post), size(points, 2), points, values), "vbmc_post_log_pdf")
    return values
end

"""Log density at one point."""
logpdf(post::Posterior, x::AbstractVector{<:Real}) = logpdf(post, reshape(collect(x), :, 1))[1]

"""`(mean, cov)`: the posterior mean (a vector) and covariance (a `dim × dim` matrix)."""
function moments(post::Posterior)
    mean = Vector{Float64}(undef, post.dim)
    cov = Matrix{Float64}(undef, post.dim, post.dim)
    post_check(ccall((:vbmc_post_moments, libvbmc), Cint, (Ptr{Cvoid}, Ptr{Cdouble}, Ptr{Cdouble}),
                     live(post), mean, cov), "vbmc_post_moments")
    return mean, permutedims(cov)  # the C API writes cov row-major
end

"""`(log_z, log_z_sd)`: an estimate of the log evidence that is not a bound, with an SD meant as an
error bar (`vbmc_post_log_evidence`)."""
function log_evidence(post::Posterior)
    log_z, sd = Ref{Cdouble}(NaN), Ref{Cdouble}(NaN)
    post_check(ccall((:vbmc_post_log_evidence, libvbmc), Cint, (Ptr{Cvoid}, Ref{Cdouble}, Ref{Cdouble}),
                     live(post), log_z, sd), "vbmc_post_log_evidence")
    return log_z[], sd[]
end

"""The highest point of the posterior density (`vbmc_post_mode`)."""
function posterior_mode(post::Posterior)
    x = Vector{Float64}(undef, post.dim)
    post_check(ccall((:vbmc_post_mode, libvbmc), Cint, (Ptr{Cvoid}, Ptr{Cdouble}), live(post), x),
               "vbmc_post_mode")
    return x
end

"""The marginal density of parameter `coord` (1-based) at each of `values`."""
function marginal_pdf(post::Posterior, coord::Integer, values::AbstractVector{<:Real})
    points = convert(Vector{Float64}, values)
    pdf = Vector{Float64}(undef, length(points))
    post_check(ccall((:vbmc_post_marginal_pdf, libvbmc), Cint,
                     (Ptr{Cvoid}, Cint, Csize_t, Ptr{Cdouble}, Ptr{Cdouble}),
                     live(post), coord - 1, length(points), points, pdf), "vbmc_post_marginal_pdf")
    return pdf
end

"""`(kl, kl_sd)`: `[KL(p‖q), KL(q‖p)]` by Monte Carlo with `n` draws of each, and their SDs."""
function kl_div(p::Posterior, q::Posterior; n::Integer = 100_000, seed::Integer = fresh_seed())
    kl, sd = Vector{Float64}(undef, 2), Vector{Float64}(undef, 2)
    post_check(ccall((:vbmc_post_kl, libvbmc), Cint,
                     (Ptr{Cvoid}, Ptr{Cvoid}, Csize_t, UInt64, Ptr{Cdouble}, Ptr{Cdouble}),
                     live(p), live(q), n, seed, kl, sd), "vbmc_post_kl")
    return kl, sd
end

"""The marginal total variation distance of each parameter (PyVBMC's `mtv`)."""
function mtv(p::Posterior, q::Posterior; n::Integer = 100_000, seed::Integer = fresh_seed())
    values = Vector{Float64}(undef, p.dim)
    post_check(ccall((:vbmc_post_mtv, libvbmc), Cint,
                     (Ptr{Cvoid}, Ptr{Cvoid}, Csize_t, UInt64, Ptr{Cdouble}, Ptr{Cdouble}),
                     live(p), live(q), n, seed, values, C_NULL), "vbmc_post_mtv")
    return values
end

"""Write the snapshot to a file (atomically)."""
function save(post::Posterior, path::AbstractString)
    post_check(ccall((:vbmc_post_save, libvbmc), Cint, (Ptr{Cvoid}, Cstring), live(post), path),
               "vbmc_post_save")
    return nothing
end

"""Read a snapshot written by `save`."""
function load_posterior(path::AbstractString)
    handle = Ref{Ptr{Cvoid}}(C_NULL)
    check(ccall((:vbmc_post_load, libvbmc), Cint, (Ref{Ptr{Cvoid}}, Cstring), handle, path),
          () -> last_error(C_NULL))
    return Posterior(handle[])
end

Base.show(io::IO, post::Posterior) =
    print(io, "Posterior(dim = ", post.dim, ", components = ", post.components,
          ", elbo = ", post.elbo, " ± ", post.elbo_sd, ")")

end # module

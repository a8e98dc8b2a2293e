# StatsBase.sample for posteriors: `sample(post, n; seed)` once StatsBase is loaded.
module VBMCStatsBaseExt

import StatsBase
using VBMC: VBMC, Posterior

"""`n` draws from the posterior as a `dim × n` matrix (see `VBMC.sample`)."""
StatsBase.sample(post::Posterior, n::Integer; kwargs...) = VBMC.sample(post, n; kwargs...)

end

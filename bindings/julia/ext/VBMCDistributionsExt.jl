# Distributions.logpdf for posteriors: `logpdf(post, x)` once Distributions is loaded.
module VBMCDistributionsExt

import Distributions
using VBMC: VBMC, Posterior

"""Log density at one point (a vector) or at the columns of a `dim × n` matrix."""
Distributions.logpdf(post::Posterior, x::AbstractVector{<:Real}) = VBMC.logpdf(post, x)
Distributions.logpdf(post::Posterior, x::AbstractMatrix{<:Real}) = VBMC.logpdf(post, x)

end

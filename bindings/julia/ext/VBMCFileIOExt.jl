# FileIO.save for runs and posteriors: `save(path, run_or_post)` once FileIO is loaded (read back
# with `load_run` / `load_posterior`, whose return type a path cannot tell).
module VBMCFileIOExt

import FileIO
using VBMC: VBMC, Posterior, VBMCRun

FileIO.save(path::AbstractString, run::VBMCRun) = VBMC.save(run, path)
FileIO.save(path::AbstractString, post::Posterior) = VBMC.save(post, path)

end

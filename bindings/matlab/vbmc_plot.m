function fig = vbmc_plot(vp, what)
%VBMC_PLOT Plots of a variational posterior returned by vbmc, in the current figure.
%   VBMC_PLOT(VP) draws a corner plot of 1e5 posterior draws (histograms on the diagonal, 2-D
%   histograms below) with the run's evaluations over them (circles: training points of the
%   surrogate; crosses: failed, trimmed or penalty values). VBMC_PLOT(VP, 'elbo') draws the ELBO
%   +- SD over the iterations and the returned posterior's ELBO. Returns the figure.
if nargin < 2, what = 'corner'; end
switch lower(what)
  case 'corner'
    fig = plot_corner(vbmc_rnd(vp, 1e5), vp.evaluations);
  case 'elbo'
    fig = plot_elbo(vp.history, [vp.stats.elbo, vp.stats.elbo_sd]);
  otherwise
    error('vbmc:E_ARG', 'vbmc_plot: WHAT is ''corner'' or ''elbo'', not ''%s''', what);
end
end

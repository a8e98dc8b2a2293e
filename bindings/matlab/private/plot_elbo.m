function fig = plot_elbo(history, final)
%PLOT_ELBO The ELBO +- SD of each iteration against the evaluations told (warm-up hollow), and
%   the returned posterior's ELBO +- SD (final = [elbo, sd], or []) as a dashed line. The
%   vertical range follows the later two thirds of the run (early ELBOs far below it are out of
%   view). Returns the figure.
fig = gcf();
clf(fig);
n = history.func_count;
lo = history.elbo - history.elbo_sd;
hi = history.elbo + history.elbo_sd;
fill([n; flipud(n)], [lo; flipud(hi)], [0.75 0.85 0.95], 'EdgeColor', 'none');
hold on;
plot(n, history.elbo, '-', 'Color', [0.27 0.51 0.71]);
warm = history.warmup == 1;
plot(n(~warm), history.elbo(~warm), 'o', 'Color', [0.27 0.51 0.71], ...
     'MarkerFaceColor', [0.27 0.51 0.71]);
plot(n(warm), history.elbo(warm), 'o', 'Color', [0.27 0.51 0.71]);
late = (1:numel(n)) > floor(numel(n) / 3);
range = [min(lo(late)), max(hi(late))];
if ~isempty(final)
  plot([min(n), max(n)], [final(1), final(1)], '--', 'Color', [0 0.5 0]);
  range = [min(range(1), final(1) - final(2)), max(range(2), final(1) + final(2))];
  title(sprintf('returned posterior: ELBO %.4g +- %.2g', final(1), final(2)));
end
pad = 0.1 * max(range(2) - range(1), 1);
ylim([range(1) - pad, range(2) + pad]);
xlabel('evaluations');
ylabel('ELBO');
hold off;
end

function fig = plot_corner(X, evaluations, names)
%PLOT_CORNER Corner plot of draws X (n x D): each coordinate's histogram on the diagonal, each
%   pair's 2-D histogram below it, and the evaluations (a struct as VBMCRun.evaluations gives,
%   or []) over them: circles where the surrogate trains on them, crosses where it does not.
%   Returns the figure.
D = size(X, 2);
if nargin < 3 || isempty(names)
  names = arrayfun(@(d) sprintf('x%d', d), 1:D, 'UniformOutput', false);
end
bins = 40;
edges = zeros(D, bins + 1);
for d = 1:D
  v = sort(X(:, d));
  range = [v(max(1, round(0.001 * numel(v)))), v(round(0.999 * numel(v)))];
  range = range + [-1, 1] * 0.1 * max(range(2) - range(1), 1e-12);
  edges(d, :) = linspace(range(1), range(2), bins + 1);
end
fig = gcf();
clf(fig);
colormap([linspace(1, 0.1, 64)', linspace(1, 0.3, 64)', linspace(1, 0.6, 64)']);
for row = 1:D
  for column = 1:row
    subplot(D, D, (row - 1) * D + column);
    if row == column
      counts = histc(X(:, row), edges(row, :));
      bar(edges(row, 1:bins) + diff(edges(row, 1:2)) / 2, counts(1:bins), 1, ...
          'FaceColor', [0.27 0.51 0.71], 'EdgeColor', 'none');
      xlim(edges(row, [1 end]));
      set(gca(), 'YTick', []);
    else
      [~, ix] = histc(X(:, column), edges(column, :));
      [~, iy] = histc(X(:, row), edges(row, :));
      inside = ix >= 1 & ix <= bins & iy >= 1 & iy <= bins;
      counts = accumarray([iy(inside), ix(inside)], 1, [bins, bins]);
      centres = @(e) e(1:bins) + diff(e(1:2)) / 2;
      imagesc(centres(edges(column, :)), centres(edges(row, :)), counts);
      set(gca(), 'YDir', 'normal');
      hold on;
      if ~isempty(evaluations)
        used = evaluations.in_training;
        plot(evaluations.X(used, column), evaluations.X(used, row), 'o', ...
             'Color', [1 0.55 0], 'MarkerSize', 4);
        plot(evaluations.X(~used, column), evaluations.X(~used, row), 'x', ...
             'Color', [0.85 0 0], 'MarkerSize', 4);
      end
      xlim(edges(column, [1 end]));
      ylim(edges(row, [1 end]));
      hold off;
    end
    if row == D, xlabel(names{column}); end
    if column == 1 && row > 1, ylabel(names{row}); end
  end
end
end

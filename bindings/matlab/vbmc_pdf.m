function y = vbmc_pdf(vp, X, origflag, logflag, transflag, df)
%VBMC_PDF Density of a variational posterior returned by vbmc at the rows of X (N x D).
%   Y = VBMC_PDF(VP, X) is the density (N x 1); VBMC_PDF(VP, X, 1, 1) the log density. X must
%   have D columns (one point per row); it is never reshaped. Only the original space is
%   supported (ORIGFLAG = 1, TRANSFLAG = 0, DF = Inf).
if (nargin >= 3 && ~isempty(origflag) && ~origflag) || (nargin >= 5 && ~isempty(transflag) && transflag) ...
    || (nargin >= 6 && ~isempty(df) && df ~= Inf)
  error('vbmc:unsupported', 'vbmc_pdf: only the original space (ORIGFLAG = 1, TRANSFLAG = 0, DF = Inf)');
end
post = posterior_of(vp);
y = post.log_pdf(X);
if nargin < 4 || isempty(logflag) || ~logflag
  y = exp(y);
end
end

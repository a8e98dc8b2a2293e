function [mu, Sigma] = vbmc_moments(vp, origflag, Ns)
%VBMC_MOMENTS Mean (1 x D) and covariance (D x D) of a variational posterior returned by vbmc,
%   in the original space (exact where the parameters are unbounded; NS is not used).
if nargin >= 2 && ~isempty(origflag) && ~origflag
  error('vbmc:unsupported', 'vbmc_moments: only the original space (ORIGFLAG = 1)');
end
post = posterior_of(vp);
[mu, Sigma] = post.moments();
end

function log_joint = banana_log_joint(x)
%BANANA_LOG_JOINT -[(x1^2 - x2)^2 + (x1 - 1)^2 / 100] + log N(x; 0, 3^2 I), same operations as the C.
ridge = x(1) * x(1) - x(2);
shift = x(1) - 1;
log_likelihood = -(ridge * ridge + shift * shift / 100);
log_prior = -(x(1) * x(1) + x(2) * x(2)) / 18 - 2 * log(3) - log(2 * pi);
log_joint = log_likelihood + log_prior;
end

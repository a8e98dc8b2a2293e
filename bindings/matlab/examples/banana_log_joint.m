function log_joint = banana_log_joint(x)
%BANANA_LOG_JOINT -[(x1^2 - x2)^2 + (x1 - 1)^2 / 100] + log N(x; 0, 3^2 I), as in quickstart.c.
banana = -((x(1) * x(1) - x(2)) * (x(1) * x(1) - x(2)) + (x(1) - 1) * (x(1) - 1) / 100);
log_prior = -0.5 * (x(1) * x(1) + x(2) * x(2)) / 9 - log(2 * pi * 9);
log_joint = banana + log_prior;
end

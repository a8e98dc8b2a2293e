function failed = check(condition, what)
%CHECK Print the outcome of one test and return 1 if it failed.
if condition
  fprintf('ok: %s\n', what);
  failed = 0;
else
  fprintf('FAILED: %s\n', what);
  failed = 1;
end
end

function value = told_value(returned, x)
%TOLD_VALUE [log_joint, sd] from what a target returned at x: one real number (sd 0) or
%   [log_joint, sd]. Anything else (empty, text, a struct, more values) raises vbmc:fnvalue.
if ~(isnumeric(returned) || islogical(returned)) || isempty(returned) || numel(returned) > 2 ...
    || ~isreal(returned)
  error('vbmc:fnvalue', ['the target returned %s at x = [%s]; it must return the log joint ' ...
        '(one real number) or [log_joint, sd]'], describe(returned), num2str(x(:).', '%.6g '));
end
value = [double(returned(1)), 0];
if numel(returned) == 2
  value(2) = double(returned(2));
end
end

function text = describe(value)
if isempty(value)
  text = 'an empty value';
elseif ~isnumeric(value) && ~islogical(value)
  text = ['a ' class(value)];
elseif ~isreal(value)
  text = 'a complex number';
else
  text = sprintf('%d values', numel(value));
end
end

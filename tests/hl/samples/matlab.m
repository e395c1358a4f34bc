% MATLAB sample
function [m, s] = stats(x, varargin)
%STATS Mean and standard deviation.
  if nargin < 1 || isempty(x)
    error('stats:empty', 'x must not be empty');
  end
  m = mean(x(:));
  s = sqrt(sum((x - m).^2) / (numel(x) - 1));
  A = [1 2; 3 4]';
  B = A \ [1; 2];
  for k = 1:2:10
    fprintf('%d: %g\n', k, B(1));
  end
  %{
  block comment
  %}
  c = {'a', "b", 1e-3};
end

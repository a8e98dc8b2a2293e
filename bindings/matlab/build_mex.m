function build_mex(outdir)
%BUILD_MEX Build the gateway vbmc_mex under MATLAB (mex) or Octave (mkoctfile --mex).
%   BUILD_MEX builds it into this folder, against the libvbmc that pkg-config finds: one
%   installed with `meson setup build && ninja -C build install`, or a build tree with
%   PKG_CONFIG_PATH=<build>/meson-uninstalled. The library's folder is recorded in the gateway
%   (rpath), so no LD_LIBRARY_PATH is needed. BUILD_MEX(OUTDIR) builds into OUTDIR instead.
%   Then addpath this folder (and OUTDIR) and call vbmc, or VBMCRun for ask-tell.
here = fileparts(mfilename('fullpath'));
if nargin < 1, outdir = here; end
[status, flags] = system('pkg-config --cflags --libs vbmc');
if status ~= 0
  error('vbmc:build', ['pkg-config does not find libvbmc (%s). Install it (meson setup build && ' ...
        'ninja -C build install) or set PKG_CONFIG_PATH to <build>/meson-uninstalled'], strtrim(flags));
end
flags = strsplit(strtrim(flags));
libdirs = flags(strncmp(flags, '-L', 2));
rpath = strjoin(cellfun(@(d) ['-Wl,-rpath,' d(3:end)], libdirs, 'UniformOutput', false), ' ');
source = fullfile(here, 'vbmc_mex.c');
if exist('OCTAVE_VERSION', 'builtin')
  [output, status] = mkoctfile('--mex', flags{:}, rpath, source, '-o', fullfile(outdir, 'vbmc_mex'));
  if status ~= 0
    error('vbmc:build', 'mkoctfile failed:\n%s', output);
  end
else
  mex(flags{:}, ['LDFLAGS=$LDFLAGS ' rpath], source, '-outdir', outdir);
end
end

! The two figures every binding draws, here with gnuplot: a corner plot of posterior draws with
! the run's evaluations over them (post%plot) and the ELBO +- SD over the iterations
! (run%plot_elbo), as the Python, R and Octave bindings draw them. Only the public procedures of
! module vbmc are used here (gfortran does not export the module's private ones to a submodule);
! the status and message go back to post%plot and run%plot_elbo, which report them.
!
! Fortran has no plotting library, so each plot writes its data and a gnuplot script into a fresh
! scratch folder (mkdtemp in $TMPDIR, default /tmp), runs gnuplot on it with
! execute_command_line and removes the folder. gnuplot is the program named by $VBMC_GNUPLOT,
! default `gnuplot` on the PATH; it draws with its pngcairo terminal when it has one, else png.
! POSIX only (mkdtemp, a Bourne shell). The binning and view limits are computed here, so gnuplot
! reads small files however many draws there are.
submodule (vbmc) vbmc_plot
  implicit none

  integer, parameter :: default_sample_count = 100000, default_seed = 1
  integer, parameter :: bin_count = 40        ! bins of each coordinate, as the other bindings
  integer, parameter :: panel_pixels = 300    ! side of one corner-plot panel
  character(len=*), parameter :: install_hint = &
    "install gnuplot (Debian: apt-get install gnuplot-nox)"
  character(len=*), parameter :: draw_colour = '"steelblue"', point_colour = '"dark-orange"', &
    failed_colour = '"red"'

  ! The files a plot writes into its scratch folder; all are removed with it.
  character(len=*), parameter :: script_file = "plot.gp", log_file = "gnuplot.log", &
    marginals_file = "marginals.dat", pairs_file = "pairs.dat", &
    evaluations_file = "evaluations.dat", elbo_file = "elbo.dat"
  character(len=16), parameter :: scratch_files(6) = [character(len=16) :: script_file, &
    log_file, marginals_file, pairs_file, evaluations_file, elbo_file]

  interface
    function c_mkdtemp(template) bind(c, name="mkdtemp") result(folder)
      import :: c_char, c_ptr
      character(kind=c_char), intent(inout) :: template(*)
      type(c_ptr) :: folder
    end function

    ! Removes a file or an empty folder.
    function c_remove(path) bind(c, name="remove") result(status)
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: status
    end function

    subroutine c_qsort(values, count, element_size, compare) bind(c, name="qsort")
      import :: c_double, c_size_t, c_funptr
      real(c_double), intent(inout) :: values(*)
      integer(c_size_t), value :: count, element_size
      type(c_funptr), value :: compare
    end subroutine
  end interface

contains

  ! ---- the two plots ----------------------------------------------------------------------

  module procedure plot_corner
    real(c_double), allocatable :: draws(:, :), evaluated(:, :)
    integer(c_int), allocatable :: in_training(:)
    character(len=:), allocatable :: folder
    integer :: sample_count, draw_seed
    status = VBMC_OK
    message = ""
    sample_count = default_sample_count
    if (present(n_samples)) sample_count = n_samples
    draw_seed = default_seed
    if (present(seed)) draw_seed = seed
    if (sample_count < 1) then
      status = VBMC_E_ARG
      write (message, '(a,i0,a)') "plot: n_samples = ", sample_count, " is not positive"
    end if
    if (status == VBMC_OK) call check_writable(file, status, message)
    if (status == VBMC_OK) then
      allocate (draws(post%dim(), sample_count))
      call post%sample(draws, draw_seed, stat=status, errmsg=message)
    end if
    if (status == VBMC_OK .and. present(run)) &
      call read_evaluations(run, post%dim(), evaluated, in_training, status, message)
    if (status == VBMC_OK) call make_scratch_folder(folder, status, message)
    if (status == VBMC_OK) then
      call write_corner_files(folder, file, draws, evaluated, in_training, labels, title)
      call run_gnuplot(folder, file, status, message)
      call remove_scratch_folder(folder)
    end if
  end procedure

  module procedure plot_elbo_trace
    character(len=*), parameter :: series_names(4) = [character(len=10) :: "func_count", &
      "elbo", "elbo_sd", "warmup"]
    real(c_double), allocatable :: series(:, :)
    character(len=:), allocatable :: folder
    integer :: iterations, i
    status = VBMC_OK
    message = ""
    iterations = nint(run%stat("iteration", stat=status, errmsg=message))
    if (status == VBMC_OK .and. iterations == 0) then
      status = VBMC_E_STATE
      message = "plot_elbo: the run has no completed iteration to plot yet"
    end if
    if (status == VBMC_OK) call check_writable(file, status, message)
    if (status == VBMC_OK) allocate (series(iterations, size(series_names)))
    do i = 1, size(series_names)
      if (status == VBMC_OK) &
        call run%history(trim(series_names(i)), series(:, i), stat=status, errmsg=message)
    end do
    if (status == VBMC_OK) call make_scratch_folder(folder, status, message)
    if (status == VBMC_OK) then
      if (nint(run%stat("finished")) == 1) then
        call write_elbo_files(folder, file, series, title, [run%stat("elbo"), run%stat("elbo_sd")])
      else
        call write_elbo_files(folder, file, series, title)
      end if
      call run_gnuplot(folder, file, status, message)
      call remove_scratch_folder(folder)
    end if
  end procedure

  ! The run's evaluated points x(dim, n) and in_training(n), refused when the run's dimension is
  ! not the posterior's.
  subroutine read_evaluations(run, dim, x, in_training, status, message)
    type(vbmc_run_type), intent(in) :: run
    integer, intent(in) :: dim
    real(c_double), allocatable, intent(out) :: x(:, :)
    integer(c_int), allocatable, intent(out) :: in_training(:)
    integer, intent(inout) :: status
    character(len=*), intent(inout) :: message
    real(c_double), allocatable :: log_joint(:), log_joint_sd(:)
    integer :: count
    if (run%dim() /= dim) then
      status = VBMC_E_ARG
      write (message, '(a,i0,a,i0)') "plot: the run has dimension ", run%dim(), &
        ", the posterior ", dim
      return
    end if
    count = nint(run%stat("func_count", stat=status, errmsg=message))
    if (status /= VBMC_OK) return
    allocate (x(dim, count), log_joint(count), log_joint_sd(count), in_training(count))
    call run%evaluations(x, log_joint, log_joint_sd, in_training, stat=status, errmsg=message)
  end subroutine

  ! ---- the corner plot --------------------------------------------------------------------

  ! Data and script of the corner plot; evaluated and in_training absent: no points over it.
  subroutine write_corner_files(folder, file, draws, evaluated, in_training, labels, title)
    character(len=*), intent(in) :: folder, file
    real(c_double), intent(in) :: draws(:, :)
    real(c_double), intent(in), optional :: evaluated(:, :)
    integer(c_int), intent(in), optional :: in_training(:)
    character(len=*), intent(in), optional :: labels(:), title
    real(c_double) :: low(size(draws, 1)), high(size(draws, 1))
    integer, allocatable :: bins(:, :)
    logical :: any_trained, any_untrained
    call view_limits(draws, low, high)
    bins = bin_indices(draws, low, high)
    call write_marginals(folder//"/"//marginals_file, bins, low, high)
    call write_pair_histograms(folder//"/"//pairs_file, bins, low, high)
    any_trained = .false.
    any_untrained = .false.
    if (present(evaluated)) then
      call write_evaluations(folder//"/"//evaluations_file, evaluated, in_training)
      any_trained = any(in_training == 1)
      any_untrained = any(in_training /= 1)
    end if
    call write_corner_script(folder, file, low, high, any_trained, any_untrained, labels, title)
  end subroutine

  ! Axis limits of each coordinate: the central 99.8% of the draws, widened by 10%.
  subroutine view_limits(draws, low, high)
    real(c_double), intent(in) :: draws(:, :)
    real(c_double), intent(out) :: low(:), high(:)
    real(c_double) :: bounds(2), margin
    integer :: d
    do d = 1, size(draws, 1)
      bounds = quantiles(draws(d, :), [0.001_c_double, 0.999_c_double])
      margin = 0.1_c_double * max(bounds(2) - bounds(1), 1e-12_c_double)
      low(d) = bounds(1) - margin
      high(d) = bounds(2) + margin
    end do
  end subroutine

  ! Quantiles of values at probabilities, interpolated linearly between order statistics (as
  ! numpy.percentile and R's quantile type 7).
  function quantiles(values, probabilities) result(quantile)
    real(c_double), intent(in) :: values(:), probabilities(:)
    real(c_double) :: quantile(size(probabilities))
    real(c_double), allocatable :: sorted(:)
    real(c_double) :: position
    integer :: i, below, n
    allocate (sorted, source=values)
    n = size(sorted)
    call c_qsort(sorted, int(n, c_size_t), c_sizeof(sorted(1)), c_funloc(compare_reals))
    do i = 1, size(probabilities)
      position = probabilities(i) * (n - 1)
      below = min(int(position), n - 1)
      quantile(i) = sorted(below + 1) + (position - below) * &
        (sorted(min(below + 2, n)) - sorted(below + 1))
    end do
  end function

  ! The ordering of qsort: negative, zero or positive as a is below, equal to or above b.
  integer(c_int) function compare_reals(a, b) bind(c, name="")
    real(c_double), intent(in) :: a, b
    compare_reals = merge(1_c_int, 0_c_int, a > b) - merge(1_c_int, 0_c_int, a < b)
  end function

  ! The histogram bin (1..bin_count) of each draw's coordinates within [low, high]; 0 outside.
  function bin_indices(draws, low, high) result(bins)
    real(c_double), intent(in) :: draws(:, :), low(:), high(:)
    integer, allocatable :: bins(:, :)
    integer :: d
    allocate (bins(size(draws, 1), size(draws, 2)))
    do d = 1, size(draws, 1)
      bins(d, :) = floor((draws(d, :) - low(d)) / bin_width(low(d), high(d))) + 1
      where (bins(d, :) < 1 .or. bins(d, :) > bin_count) bins(d, :) = 0
    end do
  end function

  pure real(c_double) function bin_width(low, high)
    real(c_double), intent(in) :: low, high
    bin_width = (high - low) / bin_count
  end function

  ! The centre of bin k of [low, high].
  pure real(c_double) function bin_centre(k, low, high)
    integer, intent(in) :: k
    real(c_double), intent(in) :: low, high
    bin_centre = low + (k - 0.5_c_double) * bin_width(low, high)
  end function

  ! One block per coordinate (gnuplot's `index d - 1`): bin centre and density of the draws in view.
  subroutine write_marginals(path, bins, low, high)
    character(len=*), intent(in) :: path
    integer, intent(in) :: bins(:, :)
    real(c_double), intent(in) :: low(:), high(:)
    real(c_double) :: counts(bin_count)
    integer :: unit, d, k
    open (newunit=unit, file=path, status="replace", action="write")
    do d = 1, size(bins, 1)
      counts = 0
      do k = 1, size(bins, 2)
        if (bins(d, k) > 0) counts(bins(d, k)) = counts(bins(d, k)) + 1
      end do
      counts = counts / (max(sum(counts), 1.0_c_double) * bin_width(low(d), high(d)))
      do k = 1, bin_count
        write (unit, '(2es25.16e3)') bin_centre(k, low(d), high(d)), counts(k)
      end do
      write (unit, '(/)')
    end do
    close (unit)
  end subroutine

  ! One block per pair below the diagonal, rows 2..dim and columns 1..row - 1 in that order
  ! (gnuplot's `index`): the 2-D histogram as a grid for `with image`, one scan line per y bin.
  subroutine write_pair_histograms(path, bins, low, high)
    character(len=*), intent(in) :: path
    integer, intent(in) :: bins(:, :)
    real(c_double), intent(in) :: low(:), high(:)
    real(c_double) :: counts(bin_count, bin_count)
    integer :: unit, row, column, k, kx, ky
    open (newunit=unit, file=path, status="replace", action="write")
    do row = 2, size(bins, 1)
      do column = 1, row - 1
        counts = 0
        do k = 1, size(bins, 2)
          kx = bins(column, k)
          ky = bins(row, k)
          if (kx > 0 .and. ky > 0) counts(kx, ky) = counts(kx, ky) + 1
        end do
        do ky = 1, bin_count
          do kx = 1, bin_count
            write (unit, '(3es25.16e3)') bin_centre(kx, low(column), high(column)), &
              bin_centre(ky, low(row), high(row)), counts(kx, ky)
          end do
          write (unit, '()')
        end do
        write (unit, '()')
      end do
    end do
    close (unit)
  end subroutine

  ! One line per evaluated point: its coordinates, then 1 if the surrogate trains on it, else 0.
  subroutine write_evaluations(path, evaluated, in_training)
    character(len=*), intent(in) :: path
    real(c_double), intent(in) :: evaluated(:, :)
    integer(c_int), intent(in) :: in_training(:)
    integer :: unit, k
    open (newunit=unit, file=path, status="replace", action="write")
    do k = 1, size(evaluated, 2)
      write (unit, '(*(es25.16e3))') evaluated(:, k), real(in_training(k), c_double)
    end do
    close (unit)
  end subroutine

  ! The corner plot's gnuplot script: a dim x dim layout, diagonal and lower panels drawn, the
  ! upper right panel holding the key of the evaluations' symbols.
  subroutine write_corner_script(folder, file, low, high, any_trained, any_untrained, labels, title)
    character(len=*), intent(in) :: folder, file
    real(c_double), intent(in) :: low(:), high(:)
    logical, intent(in) :: any_trained, any_untrained
    character(len=*), intent(in), optional :: labels(:), title
    integer :: unit, dim, row, column, pair
    dim = size(low)
    open (newunit=unit, file=folder//"/"//script_file, status="replace", action="write")
    call write_terminal(unit, file, panel_pixels * max(dim, 2), panel_pixels * max(dim, 2))
    write (unit, '(a)') 'set style fill solid 0.7 noborder', &
      'set palette defined (0 "white", 1 "#36648B")', 'unset colorbox', 'set cbrange [0:*]', &
      'set lmargin 9', 'set rmargin 2', 'set tmargin 1', 'set bmargin 3.5', 'set tics out'
    write (unit, '(a,i0,a,i0,a)', advance="no") 'set multiplot layout ', dim, ',', dim, ' rowsfirst'
    if (present(title)) write (unit, '(a)', advance="no") ' title '//quoted(title)
    write (unit, '()')
    pair = 0
    do row = 1, dim
      do column = 1, dim
        if (column == row) then
          call write_diagonal_panel(unit, folder, row, low(row), high(row), &
            coordinate_label(row, labels), row == dim, dim == 1 .and. (any_trained .or. any_untrained))
        else if (column < row) then
          pair = pair + 1
          call write_pair_panel(unit, folder, pair, [column, row], low, high, &
            coordinate_label(column, labels), coordinate_label(row, labels), row == dim, &
            column == 1, any_trained, any_untrained)
        else if (row == 1 .and. column == dim .and. (any_trained .or. any_untrained)) then
          call write_key_panel(unit, any_trained, any_untrained)
        else
          write (unit, '(a)') 'set multiplot next'
        end if
      end do
    end do
    write (unit, '(a)') 'unset multiplot'
    close (unit)
  end subroutine

  ! The name of coordinate d: labels(d), else "x<d>".
  function coordinate_label(d, labels) result(label)
    integer, intent(in) :: d
    character(len=*), intent(in), optional :: labels(:)
    character(len=:), allocatable :: label
    character(len=16) :: number
    if (present(labels)) then
      label = trim(labels(d))
    else
      write (number, '(i0)') d
      label = "x"//trim(number)
    end if
  end function

  ! The histogram of coordinate d; in dimension 1 the evaluations sit on its baseline.
  subroutine write_diagonal_panel(unit, folder, d, low, high, label, bottom_row, with_points)
    integer, intent(in) :: unit, d
    character(len=*), intent(in) :: folder, label
    real(c_double), intent(in) :: low, high
    logical, intent(in) :: bottom_row, with_points
    call write_axes(unit, low, high, label, bottom_row)
    write (unit, '(a)') 'set yrange [0:*]', 'unset ytics', 'set ylabel ""'
    if (with_points) then
      write (unit, '(a)') 'set key top right nobox'
    else
      write (unit, '(a)') 'unset key'
    end if
    write (unit, '(a,i0,a)', advance="no") 'plot '//quoted(folder//"/"//marginals_file)// &
      ' index ', d - 1, ' using 1:2 with boxes lc rgb '//draw_colour//' notitle'
    if (with_points) write (unit, '(a)', advance="no") ', '// &
      quoted(folder//"/"//evaluations_file)//' using 1:(0) with points pt 6 ps 1.2 lc rgb '// &
      point_colour//' title "evaluations"'
    write (unit, '()')
  end subroutine

  ! The 2-D histogram of pair `pair` (coordinates coords(1) across, coords(2) up), the
  ! evaluations over it: circles where the surrogate trains on them, crosses where it does not.
  subroutine write_pair_panel(unit, folder, pair, coords, low, high, x_label, y_label, &
                              bottom_row, left_column, any_trained, any_untrained)
    integer, intent(in) :: unit, pair, coords(2)
    character(len=*), intent(in) :: folder, x_label, y_label
    real(c_double), intent(in) :: low(:), high(:)
    logical, intent(in) :: bottom_row, left_column, any_trained, any_untrained
    character(len=:), allocatable :: evaluations, is_trained, y
    call write_axes(unit, low(coords(1)), high(coords(1)), x_label, bottom_row)
    write (unit, '(a)') 'set yrange ['//real_text(low(coords(2)))//':'// &
      real_text(high(coords(2)))//']', 'set ytics nomirror'
    if (left_column) then
      write (unit, '(a)') 'set ylabel '//quoted(y_label)
    else
      write (unit, '(a)') 'set ylabel ""'
    end if
    write (unit, '(a,i0,a)', advance="no") 'plot '//quoted(folder//"/"//pairs_file)// &
      ' index ', pair - 1, ' using 1:2:3 with image notitle'
    is_trained = '$'//int_text(size(low) + 1)//' > 0'
    y = '$'//int_text(coords(2))
    evaluations = ', '//quoted(folder//"/"//evaluations_file)//' using '//int_text(coords(1))//':('
    if (any_trained) write (unit, '(a)', advance="no") evaluations//is_trained//' ? '//y// &
      ' : NaN) with points pt 6 ps 0.7 lc rgb '//point_colour//' notitle'
    if (any_untrained) write (unit, '(a)', advance="no") evaluations//is_trained//' ? NaN : '//y// &
      ') with points pt 2 ps 0.7 lc rgb '//failed_colour//' notitle'
    write (unit, '()')
  end subroutine

  ! The horizontal axis of a panel, labelled in the bottom row only.
  subroutine write_axes(unit, low, high, label, bottom_row)
    integer, intent(in) :: unit
    real(c_double), intent(in) :: low, high
    character(len=*), intent(in) :: label
    logical, intent(in) :: bottom_row
    write (unit, '(a)') 'set border', 'set xtics nomirror', &
      'set xrange ['//real_text(low)//':'//real_text(high)//']'
    if (bottom_row) then
      write (unit, '(a)') 'set xlabel '//quoted(label)
    else
      write (unit, '(a)') 'set xlabel ""'
    end if
  end subroutine

  ! A panel with no axes holding the key: the draws' colour and the evaluations' symbols.
  subroutine write_key_panel(unit, any_trained, any_untrained)
    integer, intent(in) :: unit
    logical, intent(in) :: any_trained, any_untrained
    write (unit, '(a)') 'unset border', 'unset xtics', 'unset ytics', 'set xlabel ""', &
      'set ylabel ""', 'set key center center box', 'set xrange [0:1]', 'set yrange [0:1]'
    write (unit, '(a)', advance="no") 'plot keyentry with boxes lc rgb '//draw_colour// &
      ' title "posterior draws"'
    if (any_trained) write (unit, '(a)', advance="no") ', keyentry with points pt 6 lc rgb '// &
      point_colour//' title "training points"'
    if (any_untrained) write (unit, '(a)', advance="no") ', keyentry with points pt 2 lc rgb '// &
      failed_colour//' title "not trained on"'
    ! A curve above the range: gnuplot needs one plot that is not a key entry.
    write (unit, '(a,/,a)') ', 2 notitle', 'unset key'
  end subroutine

  ! ---- the ELBO trace ---------------------------------------------------------------------

  ! Data and script of the ELBO trace: series(:, 1:4) are the history's func_count, elbo, elbo_sd
  ! and warmup; final, the returned posterior's ELBO and SD, drawn as a dashed line and band.
  subroutine write_elbo_files(folder, file, series, title, final)
    character(len=*), intent(in) :: folder, file
    real(c_double), intent(in) :: series(:, :)
    character(len=*), intent(in), optional :: title
    real(c_double), intent(in), optional :: final(2)
    integer :: unit, i
    open (newunit=unit, file=folder//"/"//elbo_file, status="replace", action="write")
    do i = 1, size(series, 1)
      write (unit, '(4es25.16e3)') series(i, :)
    end do
    close (unit)
    open (newunit=unit, file=folder//"/"//script_file, status="replace", action="write")
    call write_terminal(unit, file, 650, 400)
    if (present(title)) write (unit, '(a)') 'set title '//quoted(title)
    write (unit, '(a)') 'set xlabel "evaluations"', 'set ylabel "ELBO"', &
      'set key bottom right', 'set offsets graph 0.03, graph 0.03, 0, 0', &
      'set yrange '//elbo_range(series(:, 2), series(:, 3), final)
    if (present(final)) write (unit, '(a)') 'final = '//real_text(final(1)), &
      'final_sd = '//real_text(final(2)), 'set object rectangle from graph 0, first final - '// &
      'final_sd to graph 1, first final + final_sd behind fillcolor rgb "#C7E9C0" '// &
      'fillstyle solid noborder'
    call write_elbo_plot(unit, quoted(folder//"/"//elbo_file), any(nint(series(:, 4)) == 0), &
      any(nint(series(:, 4)) /= 0), present(final))
    close (unit)
  end subroutine

  ! The vertical range: the ELBO +- SD of the later two thirds of the run (early ELBOs far
  ! below are left out of view) and final, padded by a tenth.
  function elbo_range(elbo, elbo_sd, final) result(range)
    real(c_double), intent(in) :: elbo(:), elbo_sd(:)
    real(c_double), intent(in), optional :: final(2)
    character(len=:), allocatable :: range
    real(c_double) :: low, high, pad
    integer :: first
    first = size(elbo) / 3 + 1
    low = minval(elbo(first:) - elbo_sd(first:))
    high = maxval(elbo(first:) + elbo_sd(first:))
    if (present(final)) then
      low = min(low, final(1) - final(2))
      high = max(high, final(1) + final(2))
    end if
    pad = 0.1_c_double * max(high - low, 1.0_c_double)
    range = '['//real_text(low - pad)//':'//real_text(high + pad)//']'
  end function

  ! The plot command: the SD band, the line, filled points (hollow in warm-up), the final line.
  subroutine write_elbo_plot(unit, data, any_after_warmup, any_warmup, with_final)
    integer, intent(in) :: unit
    character(len=*), intent(in) :: data
    logical, intent(in) :: any_after_warmup, any_warmup, with_final
    write (unit, '(a)', advance="no") 'plot '//data//' using 1:($2 - $3):($2 + $3) with '// &
      'filledcurves fillcolor rgb "#C6DBEF" fillstyle solid noborder notitle, '// &
      "'' using 1:2 with lines lc rgb "//draw_colour//' notitle'
    if (any_after_warmup) write (unit, '(a)', advance="no") ", '' using 1:($4 > 0 ? NaN : $2) "// &
      'with points pt 7 ps 0.8 lc rgb '//draw_colour//' title "ELBO +- SD"'
    if (any_warmup) write (unit, '(a)', advance="no") ", '' using 1:($4 > 0 ? $2 : NaN) "// &
      'with points pt 6 ps 0.8 lc rgb '//draw_colour//' title "warm-up"'
    if (with_final) write (unit, '(a)', advance="no") ', final with lines dt 2 lw 1.5 '// &
      'lc rgb "dark-green" title sprintf("returned posterior: %.4g +- %.2g", final, final_sd)'
    write (unit, '()')
  end subroutine

  ! ---- gnuplot ----------------------------------------------------------------------------

  ! The terminal (pngcairo if this gnuplot has it, else png) and the output file.
  subroutine write_terminal(unit, file, width, height)
    integer, intent(in) :: unit, width, height
    character(len=*), intent(in) :: file
    character(len=:), allocatable :: geometry
    geometry = ' size '//int_text(width)//','//int_text(height)//' noenhanced'
    write (unit, '(a)') 'if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo'// &
      geometry//' font ",10" } else { set terminal png'//geometry//' }', 'set output '//quoted(file)
  end subroutine

  ! Refuse an output file that cannot be written before any work; leaves an existing file as it is.
  subroutine check_writable(file, status, message)
    character(len=*), intent(in) :: file
    integer, intent(inout) :: status
    character(len=*), intent(inout) :: message
    character(len=512) :: io_message
    integer :: unit, io_status
    logical :: existed
    inquire (file=file, exist=existed)
    open (newunit=unit, file=file, status="unknown", position="append", action="write", &
      iostat=io_status, iomsg=io_message)
    if (io_status /= 0) then
      status = VBMC_E_IO
      message = "plot: cannot write "//file//": "//trim(io_message)
      return
    end if
    if (existed) then
      close (unit)
    else
      close (unit, status="delete")
    end if
  end subroutine

  ! Run gnuplot on the folder's script; its output goes to the folder's log, which the message
  ! quotes when gnuplot fails. A failed run removes what it may have written to file.
  subroutine run_gnuplot(folder, file, status, message)
    character(len=*), intent(in) :: folder, file
    integer, intent(inout) :: status
    character(len=*), intent(inout) :: message
    character(len=:), allocatable :: program
    character(len=256) :: command_message
    integer :: exit_status, command_status, unit, io_status
    program = environment_value("VBMC_GNUPLOT", "gnuplot")
    exit_status = 0
    command_status = 0
    command_message = ""
    call execute_command_line(shell_quoted(program)//" "// &
      shell_quoted(folder//"/"//script_file)//" > "//shell_quoted(folder//"/"//log_file)// &
      " 2>&1", exitstat=exit_status, cmdstat=command_status, cmdmsg=command_message)
    ! gfortran reports the shell's 126 and 127 (cannot execute, not found) through cmdstat.
    if (command_status /= 0 .or. exit_status == 126 .or. exit_status == 127) then
      status = VBMC_E_IO
      message = "plot: cannot run gnuplot ("//program//", from $VBMC_GNUPLOT or the PATH: "// &
        trim(command_message)//"): "//install_hint
    else if (exit_status /= 0) then
      status = VBMC_E_IO
      message = "plot: gnuplot failed: "//log_text(folder//"/"//log_file)
      open (newunit=unit, file=file, status="old", iostat=io_status)
      if (io_status == 0) close (unit, status="delete")
    end if
  end subroutine

  ! The log's lines joined by "; ", without blank lines and gnuplot's caret lines.
  function log_text(path) result(text)
    character(len=*), intent(in) :: path
    character(len=:), allocatable :: text
    character(len=1024) :: line
    integer :: unit, io_status
    text = ""
    open (newunit=unit, file=path, status="old", action="read", iostat=io_status)
    if (io_status /= 0) return
    do
      read (unit, '(a)', iostat=io_status) line
      if (io_status /= 0) exit
      line = adjustl(line)
      if (len_trim(line) == 0 .or. line(1:1) == "^") cycle
      if (len(text) > 0) text = text//"; "
      text = text//trim(line)
    end do
    close (unit)
  end function

  ! A new folder for one plot's files, in $TMPDIR (default /tmp).
  subroutine make_scratch_folder(folder, status, message)
    character(len=:), allocatable, intent(out) :: folder
    integer, intent(inout) :: status
    character(len=*), intent(inout) :: message
    character(kind=c_char, len=:), allocatable :: template
    template = environment_value("TMPDIR", "/tmp")//"/vbmc-plot-XXXXXX"//c_null_char
    if (.not. c_associated(c_mkdtemp(template))) then
      status = VBMC_E_IO
      message = "plot: cannot create a scratch folder "//template(1:len(template) - 1)
      return
    end if
    folder = template(1:len(template) - 1)
  end subroutine

  ! Remove the folder of make_scratch_folder with the files a plot writes into it.
  subroutine remove_scratch_folder(folder)
    character(len=*), intent(in) :: folder
    integer(c_int) :: removed
    integer :: i
    do i = 1, size(scratch_files)
      removed = c_remove(folder//"/"//trim(scratch_files(i))//c_null_char)
    end do
    removed = c_remove(folder//c_null_char)
  end subroutine

  ! ---- text -------------------------------------------------------------------------------

  ! The value of environment variable name, or fallback when it is unset or empty.
  function environment_value(name, fallback) result(value)
    character(len=*), intent(in) :: name, fallback
    character(len=:), allocatable :: value
    integer :: length, env_status
    call get_environment_variable(name, length=length, status=env_status)
    if (env_status /= 0 .or. length == 0) then
      value = fallback
      return
    end if
    allocate (character(len=length) :: value)
    call get_environment_variable(name, value)
  end function

  ! text as a gnuplot string literal: in single quotes, where '' stands for '.
  function quoted(text) result(literal)
    character(len=*), intent(in) :: text
    character(len=:), allocatable :: literal
    literal = "'"//replaced(text, "'", "''")//"'"
  end function

  ! text as one word of the shell: in single quotes, each ' written '\''.
  function shell_quoted(text) result(word)
    character(len=*), intent(in) :: text
    character(len=:), allocatable :: word
    word = "'"//replaced(text, "'", "'\''")//"'"
  end function

  ! text with every occurrence of the character quote replaced by replacement.
  function replaced(text, quote, replacement) result(out)
    character(len=*), intent(in) :: text
    character(len=1), intent(in) :: quote
    character(len=*), intent(in) :: replacement
    character(len=:), allocatable :: out
    integer :: i
    out = ""
    do i = 1, len(text)
      if (text(i:i) == quote) then
        out = out//replacement
      else
        out = out//text(i:i)
      end if
    end do
  end function

  ! A real in full precision for a gnuplot script.
  function real_text(value) result(text)
    real(c_double), intent(in) :: value
    character(len=:), allocatable :: text
    character(len=32) :: buffer
    write (buffer, '(es25.16e3)') value
    text = trim(adjustl(buffer))
  end function

  function int_text(value) result(text)
    integer, intent(in) :: value
    character(len=:), allocatable :: text
    character(len=16) :: buffer
    write (buffer, '(i0)') value
    text = trim(buffer)
  end function
end submodule vbmc_plot

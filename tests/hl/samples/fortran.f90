! Fortran sample
program heat
  implicit none
  integer, parameter :: n = 100
  real(kind=8) :: u(n), dx, dt
  integer :: i, step

  dx = 1.0d0 / real(n - 1, 8)
  dt = 0.4d0 * dx**2
  u = 0.0d0
  u(n/2) = 1.0d0
  do step = 1, 1000
     do i = 2, n - 1
        u(i) = u(i) + dt / dx**2 * (u(i+1) - 2.0d0*u(i) + u(i-1))
     end do
  end do
  if (maxval(u) > 0.5d0 .and. .not. any(u < 0)) then
     print *, 'peak: ', maxval(u)
  end if
contains
  pure function f(x) result(y)
    real(8), intent(in) :: x
    real(8) :: y
    y = x * x
  end function f
end program heat

! SPDX-License-Identifier: BSD-3-Clause
! A small Fortran program for mmaemu sweep's tests: C = A*B with SGEMM
! (12 x 30 times 30 x 5), printed to stdout.
program sgemm_print
  implicit none
  integer, parameter :: m = 12, n = 5, k = 30
  real :: a(m, k), b(k, n), c(m, n)
  integer :: i, j
  external :: sgemm
  do j = 1, k
    do i = 1, m
      a(i, j) = real(mod(i * 7 + j * 13, 97) - 48) / 11.0
    end do
  end do
  do j = 1, n
    do i = 1, k
      b(i, j) = real(mod(i * 11 + j * 5, 89) - 44) / 7.0
    end do
  end do
  call sgemm('N', 'N', m, n, k, 1.0, a, m, b, k, 0.0, c, m)
  do i = 1, m
    print '(5es16.8)', (c(i, j), j = 1, n)
  end do
end program sgemm_print

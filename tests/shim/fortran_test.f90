! SPDX-License-Identifier: BSD-3-Clause
! A Fortran program calling SGEMM (linked with OpenBLAS). Under MMA_MODEL and
! LD_PRELOAD=libmmaemu.so its results must be the bits of the C API on the
! same operands (reached through the small C helper fortran_helper.c).
program fortran_test
  use iso_c_binding
  implicit none
  interface
    integer(c_int) function api_sgemm_col(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) &
        bind(c, name="api_sgemm_col")
      import :: c_char, c_int, c_float
      character(kind=c_char), value :: ta, tb
      integer(c_int), value :: m, n, k, lda, ldb, ldc
      real(c_float), value :: alpha, beta
      real(c_float) :: a(*), b(*), c(*)
    end function api_sgemm_col
  end interface
  integer, parameter :: m = 31, n = 23, k = 57
  real(c_float) :: a(m, k), b(n, k), c(m, n), d(m, n)
  integer :: i, l, bad, status
  external :: sgemm

  do l = 1, k
    do i = 1, m
      a(i, l) = real(mod(i * 7 + l * 13, 97) - 48) / 16.0 * 2.0**(mod(i + l, 7) - 3)
    end do
    do i = 1, n
      b(i, l) = real(mod(i * 11 + l * 5, 89) - 44) / 8.0 * 2.0**(mod(i * l, 5) - 2)
    end do
  end do
  c = 1.0
  d = 1.0
  ! C = 0.5 A B^T + 2 C, with a transposed B.
  call sgemm('N', 'T', m, n, k, 0.5, a, m, b, n, 2.0, c, m)
  status = api_sgemm_col('N', 'T', m, n, k, 0.5, a, m, b, n, 2.0, d, m)
  bad = count(transfer(c, 1, size(c)) /= transfer(d, 1, size(d)))
  if (status /= 0 .or. bad /= 0) then
    print '(a, i0, a, i0)', 'SGEMM differs from the C API: status ', status, ', elements ', bad
    print '(a)', '0 passed, 1 failed'
    stop 1
  end if
  print '(a)', '1 passed, 0 failed'
end program fortran_test

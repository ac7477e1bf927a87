! A Fortran coarray program for tests/relink/coarrays.sh: atomics on one
! image's coarray, remote reads and writes of small and large arrays, a
! critical section guarding a plain read-modify-write, co_sum and
! co_broadcast.  Each image prints what it saw; the script compares the
! sorted output of a run on hcmpi with one on MPICH.
program coarray_check
  implicit none
  integer, parameter :: big_n = 200000
  integer :: me, n, right, left, total, i, bad
  integer :: counter[*], guarded[*]
  integer :: vals(4)[*]
  integer, allocatable :: big(:)[:]
  me = this_image()
  n = num_images()
  right = merge(1, me + 1, me == n)
  left = merge(n, me - 1, me == 1)
  allocate (big(big_n)[*])
  counter = 0
  guarded = 0
  vals = me * 10 + [1, 2, 3, 4]
  big = 0
  sync all
  call atomic_add(counter[1], me)
  do i = 1, 50
    critical
      guarded[1] = guarded[1] + 1
    end critical
  end do
  big(:)[right] = [(me * 1000 + mod(i, 997), i = 1, big_n)]
  sync all
  bad = 0
  do i = 1, big_n
    if (big(i) /= left * 1000 + mod(i, 997)) bad = bad + 1
  end do
  print '(a,i0,a,4i4,a,i0)', 'image ', me, ' right vals', vals(:)[right], &
    ' bad big ', bad
  if (me == 1) then
    call atomic_ref(total, counter)
    print '(a,i0,a,i0,a,i0)', 'images ', n, ' atomic sum ', total, &
      ' critical count ', guarded
  end if
  total = me
  call co_sum(total)
  i = 0
  if (me == n) i = 4242
  call co_broadcast(i, source_image=n)
  print '(a,i0,a,i0,a,i0)', 'image ', me, ' co_sum ', total, ' broadcast ', i
end program coarray_check

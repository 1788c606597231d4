! ALLOCATE and DEALLOCATE in flang-new's own output. Simple allocatables and
! deferred-length characters are lowered to malloc/free inline: the pass
! routes those. Derived types, class(), source= and pointers go through the
! Fortran runtime (_FortranA*Allocate*), whose malloc calls are redirected
! when linking (--wrap); those calls are left as they are here.
! RUN: %flang -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s
! RUN: %flang -O0 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s
module shapes
  type :: cell
    real(8), allocatable :: w(:)
  end type
  type, extends(cell) :: hot
    integer :: k = 0
  end type
contains
  subroutine build(n, a, c, p, s, ierr)
    integer, intent(in) :: n
    real(8), allocatable, intent(out) :: a(:)
    class(cell), allocatable, intent(out) :: c
    real(8), pointer :: p(:)
    character(len=:), allocatable, intent(out) :: s
    integer, intent(out) :: ierr
    allocate(a(n))
    allocate(hot :: c)
    allocate(c%w(n), stat=ierr)
    allocate(p, source=a)
    allocate(character(len=n) :: s)
    deallocate(a)
    call ccc_checkpoint()
  end subroutine
end module
! CHECK-LABEL: define void @_QMshapesPbuild(
! CHECK-DAG: call {{.*}}ptr @__ccc_malloc(
! CHECK-DAG: call void @__ccc_free(
! CHECK-DAG: call {{.*}}@_FortranAAllocatableAllocate(
! CHECK-DAG: call {{.*}}@_FortranAPointerAllocateSource(
! CHECK-DAG: load volatile i32, ptr @__ccc_pending
! CHECK-DAG: call i32 @__ccc_checkpoint_slow(i32 0)
! CHECK-NOT: @malloc(
! CHECK-NOT: @free(
! CHECK-NOT: call void @ccc_checkpoint_(

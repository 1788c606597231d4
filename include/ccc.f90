! ccc.f90 - the ccc application API for Fortran: `use ccc`.
!
! `call ccc_checkpoint()` marks a checkpoint site (typically once per time
! step); see ccc.h for what each call does. Without `use ccc`, the same
! calls work through implicit interfaces (external names ccc_checkpoint_
! and ccc_checkpoint_force_). Build with ckpt-fc, or with
! -fpass-plugin=libccc.so and the flags of `pkg-config --libs ccc`.
module ccc
  use, intrinsic :: iso_c_binding, only: c_int, c_ptr, c_size_t
  implicit none
  private
  public :: ccc_checkpoint, ccc_checkpoint_force, ccc_checkpoint_status, &
            ccc_checkpoint_force_status, ccc_is_restarted, ccc_exclude, &
            ccc_include, ccc_on_checkpoint, ccc_on_continue, &
            ccc_on_restart
  ! Results of ccc_checkpoint_status and ccc_checkpoint_force_status.
  integer(c_int), parameter, public :: CCC_NONE = 0, CCC_TAKEN = 1, &
                                       CCC_RESTARTED = 2
  interface
    ! A checkpoint site: takes a checkpoint if one is due.
    subroutine ccc_checkpoint() bind(c, name="ccc_checkpoint")
    end subroutine
    ! A checkpoint site that always takes a checkpoint.
    subroutine ccc_checkpoint_force() bind(c, name="ccc_checkpoint_force")
    end subroutine
    ! As ccc_checkpoint; returns CCC_NONE, CCC_TAKEN or CCC_RESTARTED.
    function ccc_checkpoint_status() bind(c, name="ccc_checkpoint_status")
      import :: c_int
      integer(c_int) :: ccc_checkpoint_status
    end function
    ! As ccc_checkpoint_force; returns CCC_TAKEN or CCC_RESTARTED.
    function ccc_checkpoint_force_status() &
        bind(c, name="ccc_checkpoint_force_status")
      import :: c_int
      integer(c_int) :: ccc_checkpoint_force_status
    end function
    ! 1 if this process was restarted from an image, else 0 (C's
    ! ccc_restarted(); Fortran names are case-insensitive, so that name is
    ! the constant CCC_RESTARTED here).
    function ccc_is_restarted() bind(c, name="ccc_restarted")
      import :: c_int
      integer(c_int) :: ccc_is_restarted
    end function
    ! The promise that nbytes at p (c_loc of an allocatable or module
    ! array) need not be saved: recomputed before read after every site.
    ! 0, or -1 if not excluded (see ccc.h).
    function ccc_exclude(p, nbytes) bind(c, name="ccc_exclude")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: p
      integer(c_size_t), value :: nbytes
      integer(c_int) :: ccc_exclude
    end function
    ! Withdraws the exclusions starting at p.
    function ccc_include(p) bind(c, name="ccc_include")
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int) :: ccc_include
    end function
  end interface
  ! Hooks (see ccc.h): `call ccc_on_checkpoint(sub)` with a module or
  ! external subroutine without arguments (not an internal one: its
  ! address would not outlive the call). sub runs before each checkpoint,
  ! ccc_on_continue's after the image was written, ccc_on_restart's in a
  ! restarted process before it resumes. They must not call MPI.
  interface
    subroutine ccc_on_checkpoint(hook)
      external :: hook
    end subroutine
    subroutine ccc_on_continue(hook)
      external :: hook
    end subroutine
    subroutine ccc_on_restart(hook)
      external :: hook
    end subroutine
  end interface
end module ccc

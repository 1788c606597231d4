!mod$ v1 sum:e8a87f7494b40893
module m
integer(4)::n
real(8),allocatable::scratch(:)
real(8),allocatable::u(:)
real(8),allocatable::unew(:)
real(8),allocatable::hist(:)
real(8),allocatable::maybe(:)
real(8),allocatable::passed(:)
real(8),allocatable::sized(:)
integer(4)::nlen
real(8),target::fixed(1_8:4096_8)
real(8),pointer::p(:)
contains
subroutine setup()
end
subroutine fill(s)
integer(4),intent(in)::s
end
subroutine sweep()
end
subroutine fill_sized(s)
integer(4),intent(in)::s
end
subroutine fill_passed(s)
integer(4),intent(in)::s
end
subroutine keep(s)
integer(4),intent(in)::s
end
subroutine refill(s)
integer(4),intent(in)::s
end
end

; A collective that fills its receive buffer (MPI_Alltoall, MPI_Allgather:
; count elements from each rank of the communicator; MPI_Allreduce: count
; elements) overwrites that range before the reads that follow it. Its
; bytes are the count times the size of the predefined datatype (Open MPI:
; the address of a global named for it; MPICH: a builtin handle carrying
; the size) times the communicator's size, read from the local that
; MPI_Comm_size alone writes. The buffer is then dead at a site over that
; range. Nothing is marked when the call works in place (the send buffer
; MPI_IN_PLACE), the datatype is not predefined, the communicator's size
; is not known, or the count changes in the loop.
; RUN: %opt -passes=ccc-heap-liveness -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@ompi_mpi_comm_world = external global [0 x i8]
@ompi_mpi_double = external global [0 x i8]
@my_type = external global [0 x i8]

declare ptr @__ccc_malloc(i64)
declare i32 @__ccc_checkpoint_slow(i32)
declare i32 @MPI_Comm_size(ptr, ptr nocapture)
declare i32 @MPI_Alltoall(ptr, i32, ptr, ptr, i32, ptr, ptr)
declare i32 @MPI_Allreduce(ptr, ptr, i32, i32, i32, i32)
declare void @use(double)

; CHECK-LABEL: define void @alltoall_fills(
; CHECK:       %[[R:.*]] = sext i32 %size.mpi to i64
; CHECK-NEXT:  %[[N:.*]] = sext i32 %count to i64
; CHECK-NEXT:  %[[RN:.*]] = mul i64 %[[R]], %[[N]]
; CHECK-NEXT:  %[[B:.*]] = shl i64 %[[RN]], 3
; CHECK:       step:
; CHECK-NEXT:  phi
; CHECK-NEXT:  %[[AT:.*]] = getelementptr i8, ptr %recv, i64 0
; CHECK-NEXT:  call void @__ccc_dead_at_site(ptr %[[AT]], i64 %[[B]],
; CHECK-NEXT:  call i32 @__ccc_checkpoint_slow(i32 0)
define void @alltoall_fills(i32 %count, i64 %bytes, i64 %steps) {
entry:
  %size = alloca i32
  call i32 @MPI_Comm_size(ptr @ompi_mpi_comm_world, ptr %size)
  %size.mpi = load i32, ptr %size
  %send = call ptr @__ccc_malloc(i64 %bytes)
  %recv = call ptr @__ccc_malloc(i64 %bytes)
  br label %step
step:
  %k = phi i64 [ 0, %entry ], [ %k.next, %step ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  call i32 @MPI_Alltoall(ptr %send, i32 %count, ptr @ompi_mpi_double, ptr %recv, i32 %count, ptr @ompi_mpi_double, ptr @ompi_mpi_comm_world)
  %v = load double, ptr %recv
  call void @use(double %v)
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %step
exit:
  ret void
}

; MPICH: MPI_DOUBLE is 0x4c00080b (8 bytes), MPI_COMM_WORLD 0x44000000.
; CHECK-LABEL: define void @allreduce_fills_mpich(
; CHECK:       %[[N:.*]] = sext i32 %count to i64
; CHECK-NEXT:  %[[B:.*]] = shl nsw i64 %[[N]], 3
; CHECK:       step:
; CHECK-NEXT:  phi
; CHECK-NEXT:  %[[AT:.*]] = getelementptr i8, ptr %out, i64 0
; CHECK-NEXT:  call void @__ccc_dead_at_site(ptr %[[AT]], i64 %[[B]],
; CHECK-NEXT:  call i32 @__ccc_checkpoint_slow(i32 0)
define void @allreduce_fills_mpich(i32 %count, i64 %bytes, i64 %steps) {
entry:
  %in = call ptr @__ccc_malloc(i64 %bytes)
  %out = call ptr @__ccc_malloc(i64 %bytes)
  br label %step
step:
  %k = phi i64 [ 0, %entry ], [ %k.next, %step ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  call i32 @MPI_Allreduce(ptr %in, ptr %out, i32 %count, i32 1275070475, i32 1476395011, i32 1140850688)
  %v = load double, ptr %out
  call void @use(double %v)
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %step
exit:
  ret void
}

; CHECK-LABEL: define void @not_filled(
; CHECK-NOT:   @__ccc_dead_at_site
; CHECK:       ret void
define void @not_filled(i32 %count, i64 %bytes, i64 %steps, ptr %comm) {
entry:
  %size = alloca i32
  call i32 @MPI_Comm_size(ptr @ompi_mpi_comm_world, ptr %size)
  %size.mpi = load i32, ptr %size
  %send = call ptr @__ccc_malloc(i64 %bytes)
  %inplace = call ptr @__ccc_malloc(i64 %bytes)
  %oddtype = call ptr @__ccc_malloc(i64 %bytes)
  %othercomm = call ptr @__ccc_malloc(i64 %bytes)
  %varies = call ptr @__ccc_malloc(i64 %bytes)
  br label %step
step:
  %k = phi i64 [ 0, %entry ], [ %k.next, %step ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  ; MPI_IN_PLACE (Open MPI: (void *)1): the buffer is read too.
  call i32 @MPI_Alltoall(ptr inttoptr (i64 1 to ptr), i32 %count, ptr @ompi_mpi_double, ptr %inplace, i32 %count, ptr @ompi_mpi_double, ptr @ompi_mpi_comm_world)
  ; A datatype the program built: its size is not known.
  call i32 @MPI_Alltoall(ptr %send, i32 %count, ptr @my_type, ptr %oddtype, i32 %count, ptr @my_type, ptr @ompi_mpi_comm_world)
  ; A communicator whose size no MPI_Comm_size call gave.
  call i32 @MPI_Alltoall(ptr %send, i32 %count, ptr @ompi_mpi_double, ptr %othercomm, i32 %count, ptr @ompi_mpi_double, ptr %comm)
  ; A count that changes every step.
  %c = trunc i64 %k to i32
  call i32 @MPI_Alltoall(ptr %send, i32 %c, ptr @ompi_mpi_double, ptr %varies, i32 %c, ptr @ompi_mpi_double, ptr @ompi_mpi_comm_world)
  %v1 = load double, ptr %inplace
  call void @use(double %v1)
  %v2 = load double, ptr %oddtype
  call void @use(double %v2)
  %v3 = load double, ptr %othercomm
  call void @use(double %v3)
  %v4 = load double, ptr %varies
  call void @use(double %v4)
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %step
exit:
  ret void
}

; MPI_Comm_size/MPI_Comm_rank keep no pointer to their result: the pass
; marks the declarations' result argument nocapture and, for a local int
; written only by that call, replaces its later loads with one load right
; after the call. A local with another writer, or read before the call,
; keeps its loads. (LLVM 21 spells nocapture captures(none).)
; RUN: %opt -passes=ccc-mpi-facts -S %s | FileCheck %s
; RUN: %opt -passes=ccc-mpi-facts,ccc-mpi-facts -S %s | FileCheck %s

declare i32 @MPI_Comm_size(ptr, ptr)
declare i32 @MPI_Comm_rank(ptr, ptr)
declare void @work(i32)

; CHECK: declare i32 @MPI_Comm_size(ptr, ptr {{nocapture|captures\(none\)}})
; CHECK: declare i32 @MPI_Comm_rank(ptr, ptr {{nocapture|captures\(none\)}})

; CHECK-LABEL: define void @written_once(
; CHECK: call i32 @MPI_Comm_size(ptr %comm, ptr %size)
; CHECK-NEXT: %size.mpi = load i32, ptr %size
; CHECK-NEXT: call i32 @MPI_Comm_rank(ptr %comm, ptr %rank)
; CHECK-NEXT: %rank.mpi = load i32, ptr %rank
; CHECK-NOT: load
; CHECK: call void @work(i32 %size.mpi)
; CHECK: call void @work(i32 %rank.mpi)
; CHECK: call void @work(i32 %size.mpi)
define void @written_once(ptr %comm) {
  %size = alloca i32
  %rank = alloca i32
  call i32 @MPI_Comm_size(ptr %comm, ptr %size)
  call i32 @MPI_Comm_rank(ptr %comm, ptr %rank)
  %s1 = load i32, ptr %size
  call void @work(i32 %s1)
  %r1 = load i32, ptr %rank
  call void @work(i32 %r1)
  %s2 = load i32, ptr %size
  call void @work(i32 %s2)
  ret void
}

; CHECK-LABEL: define void @other_writer(
; CHECK-NOT: .mpi
; CHECK: load i32, ptr %size
; CHECK: ret void
define void @other_writer(ptr %comm) {
  %size = alloca i32
  call i32 @MPI_Comm_size(ptr %comm, ptr %size)
  store i32 4, ptr %size
  %s = load i32, ptr %size
  call void @work(i32 %s)
  ret void
}

; CHECK-LABEL: define void @read_before(
; CHECK-NOT: .mpi
; CHECK: ret void
define void @read_before(ptr %comm) {
  %size = alloca i32
  %s0 = load i32, ptr %size
  call void @work(i32 %s0)
  call i32 @MPI_Comm_size(ptr %comm, ptr %size)
  %s = load i32, ptr %size
  call void @work(i32 %s)
  ret void
}

; CHECK-LABEL: define void @escapes(
; CHECK-NOT: .mpi
; CHECK: ret void
define void @escapes(ptr %comm) {
  %rank = alloca i32
  call i32 @MPI_Comm_rank(ptr %comm, ptr %rank)
  call void @keep(ptr %rank)
  %r = load i32, ptr %rank
  call void @work(i32 %r)
  ret void
}
declare void @keep(ptr)

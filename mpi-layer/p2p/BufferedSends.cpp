//===- BufferedSends.cpp - MPI_Bsend, MPI_Ibsend, MPI_Buffer_attach -------===//
//
// The layer buffers a buffered send itself: it packs the data into a copy
// in its saved heap and sends the copy with its own MPI_Isend, as an
// orphan request freed (with the copy) once MPI completed it. So a
// buffered send returns at once, as MPI promises, under both protocols:
// the non-blocking protocol's header needs no room in the program's
// buffer, a send still in flight at a checkpoint is one more Isend (drained
// or logged like any other), and nothing has to be attached to MPI again
// after a restart. MPI_Buffer_attach is bookkeeping only: the program's
// buffer (program memory, in the image) bounds the copies in flight as
// MPI's would (MPI_Pack_size + MPI_BSEND_OVERHEAD each), and
// MPI_Buffer_detach waits for them.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

using namespace ccc::mpi;

namespace ccc {
namespace mpi {

void reapBufferedSends() {
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    Request &R = L->Reqs[I];
    if (!R.InUse || !R.Copy || !R.Orphan)
      continue;
    int Flag = R.Done;
    if (!Flag) {
      MPI_Status S;
      PMPI_Test(&R.Real, &Flag, &S);
      if (Flag) {
        R.Done = true;
        R.Real = MPI_REQUEST_NULL;
      }
    }
    if (Flag)
      releaseSlot(R);
  }
}

// The attached room the copies in flight take.
static long roomInUse() {
  long Used = 0;
  for (uint32_t I = 0; I < L->NReqs; ++I)
    if (L->Reqs[I].InUse && L->Reqs[I].Copy)
      Used += L->Reqs[I].CopyRoom;
  return Used;
}

int bufferedSend(const void *Buf, int Count, MPI_Datatype Type, int Dest,
                 int Tag, MPI_Comm C, MPI_Request *Out) {
  if (Dest == MPI_PROC_NULL) {
    if (Out) {
      Request *R;
      *Out = newRequest(ReqKind::Send, &R);
      R->Done = true;
      R->Status.MPI_ERROR = MPI_SUCCESS;
    }
    return MPI_SUCCESS;
  }
  MPI_Datatype RT = realType(Type);
  MPI_Comm RC = realComm(C);
  int Bytes;
  PMPI_Pack_size(Count, RT, RC, &Bytes);
  reapBufferedSends();
  int Room = Bytes + MPI_BSEND_OVERHEAD;
  if (!L->BsendAttached || roomInUse() + Room > L->BsendSize) {
    // As MPI: the buffer is too small for what is in flight.
    PMPI_Comm_call_errhandler(RC, MPI_ERR_BUFFER);
    return MPI_ERR_BUFFER;
  }
  void *Copy = saved(Bytes ? Bytes : 1);
  int Pos = 0;
  PMPI_Pack(Buf, Count, RT, Copy, Bytes, &Pos, RC);
  // MPI_PACKED matches any receive type (MPI 4.1 3.13).
  MPI_Request Q;
  int Err = MPI_Isend(Copy, Pos, MPI_PACKED, Dest, Tag, C, &Q);
  if (Err != MPI_SUCCESS) {
    __ccc_free(Copy);
    return Err;
  }
  Request *R = request(Q);
  R->Copy = Copy;
  R->CopyRoom = Room;
  R->Orphan = true; // the program never sees this request
  if (Out) {
    Request *D;
    *Out = newRequest(ReqKind::Send, &D);
    D->Done = true; // the data is buffered: complete
    D->Status.MPI_ERROR = MPI_SUCCESS;
  }
  return MPI_SUCCESS;
}

} // namespace mpi
} // namespace ccc

extern "C" {

int MPI_Bsend(const void *B, int N, MPI_Datatype T, int D, int Tag,
              MPI_Comm C) {
  if (Bypass)
    return PMPI_Bsend(B, N, T, D, Tag, C);
  return bufferedSend(B, N, T, D, Tag, C, nullptr);
}

int MPI_Ibsend(const void *B, int N, MPI_Datatype T, int D, int Tag, MPI_Comm C,
               MPI_Request *R) {
  if (Bypass)
    return PMPI_Ibsend(B, N, T, D, Tag, C, R);
  return bufferedSend(B, N, T, D, Tag, C, R);
}

int MPI_Buffer_attach(void *Buf, int Size) {
  if (Bypass || !L)
    return PMPI_Buffer_attach(Buf, Size);
  if (L->BsendAttached || Size < 0) {
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_BUFFER);
    return MPI_ERR_BUFFER;
  }
  L->BsendBuf = Buf;
  L->BsendSize = Size;
  L->BsendAttached = true;
  return MPI_SUCCESS;
}

// Buffer is the address of a pointer (C binding: void *).
int MPI_Buffer_detach(void *Buffer, int *Size) {
  if (Bypass || !L)
    return PMPI_Buffer_detach(Buffer, Size);
  // Blocks until the buffered messages are sent, as MPI's does.
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    Request &R = L->Reqs[I];
    if (R.InUse && R.Copy && !R.Done) {
      MPI_Status S;
      int Flag;
      if (!pollWhileCheckpointOpen([&] {
            PMPI_Test(&R.Real, &Flag, &S);
            return Flag != 0;
          }))
        PMPI_Wait(&R.Real, &S);
      R.Done = true;
    }
  }
  reapBufferedSends();
  *static_cast<void **>(Buffer) = L->BsendAttached ? L->BsendBuf : nullptr;
  *Size = L->BsendAttached ? L->BsendSize : 0;
  L->BsendBuf = nullptr;
  L->BsendSize = 0;
  L->BsendAttached = false;
  return MPI_SUCCESS;
}
}

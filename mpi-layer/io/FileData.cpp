//===- FileData.cpp - MPI-IO reads and writes across checkpoints ----------===//
//
// The read and write wrappers of the layer's MPI-IO (Files.cpp has the
// files themselves): ordered collectives, which move the shared pointer
// and cannot be replayed by some members alone; data collectives, run as
// the independent operation at the same place by a rank a restart put
// behind (their split forms do it at begin); shared-pointer operations,
// counted per rank; non-blocking ones, under the layer's requests
// (ReqKind::File), completed before an image.
//
//===----------------------------------------------------------------------===//
#include "FilesInternal.h"
#include "mpi-layer/Layer.h"

using namespace ccc::mpi;

namespace {

// A non-blocking file operation's request; Coll: a collective one.
int fileRequest(bool Coll, MPI_Request *Out, MPI_Request **RealOut) {
  Request *R;
  *Out = newRequest(ReqKind::File, &R);
  R->Peer = Coll; // the slot's peer field says collective (filesTake)
  *RealOut = &R->Real;
  return MPI_SUCCESS;
}

// Runs Call (an MPI call filling *Real) for the program's request *Out.
template <typename F> int withRequest(bool Coll, MPI_Request *Out, F Call) {
  MPI_Request *Real;
  fileRequest(Coll, Out, &Real);
  int R = Call(Real);
  if (R != MPI_SUCCESS) {
    releaseRequest(*Out);
    *Out = MPI_REQUEST_NULL;
  }
  return R;
}

// Split collectives: begin runs the independent operation at once when the
// rank is behind (its status kept for end), else MPI's begin.
template <typename IndepFn, typename CollFn>
int splitBegin(MPI_File Fh, uint8_t Kind, IndepFn Indep, CollFn Coll) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (!F)
    return Coll();
  F->Split = Kind;
  F->SplitIndep = independent(*F);
  return F->SplitIndep ? Indep(&F->SplitStatus) : Coll();
}

template <typename B>
int splitEnd(MPI_File Fh, B Buf, MPI_Status *St,
             int (*End)(MPI_File, B, MPI_Status *)) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F) {
    F->Split = 0;
    if (F->SplitIndep) {
      F->SplitIndep = false;
      if (St != MPI_STATUS_IGNORE)
        *St = F->SplitStatus;
      return MPI_SUCCESS;
    }
  }
  return End(realFile(Fh), Buf, St);
}

} // namespace

extern "C" {

int MPI_File_write_ordered(MPI_File Fh, const void *Buf, int Count,
                           MPI_Datatype Type, MPI_Status *St) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F)
    lineCheck(*F, "an ordered MPI-IO collective ran");
  movedShared(Fh, Count, Type);
  return PMPI_File_write_ordered(realFile(Fh), Buf, Count, realType(Type), St);
}

int MPI_File_read_ordered(MPI_File Fh, void *Buf, int Count, MPI_Datatype Type,
                          MPI_Status *St) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F)
    lineCheck(*F, "an ordered MPI-IO collective ran");
  movedShared(Fh, Count, Type);
  return PMPI_File_read_ordered(realFile(Fh), Buf, Count, realType(Type), St);
}

int MPI_File_write_ordered_begin(MPI_File Fh, const void *Buf, int Count,
                                 MPI_Datatype Type) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F) {
    lineCheck(*F, "an ordered MPI-IO collective ran");
    F->Split = 2;
  }
  movedShared(Fh, Count, Type);
  return PMPI_File_write_ordered_begin(realFile(Fh), Buf, Count,
                                       realType(Type));
}

int MPI_File_write_ordered_end(MPI_File Fh, const void *Buf, MPI_Status *St) {
  return splitEnd(Fh, Buf, St, PMPI_File_write_ordered_end);
}

int MPI_File_read_ordered_begin(MPI_File Fh, void *Buf, int Count,
                                MPI_Datatype Type) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F) {
    lineCheck(*F, "an ordered MPI-IO collective ran");
    F->Split = 1;
  }
  movedShared(Fh, Count, Type);
  return PMPI_File_read_ordered_begin(realFile(Fh), Buf, Count, realType(Type));
}

int MPI_File_read_ordered_end(MPI_File Fh, void *Buf, MPI_Status *St) {
  return splitEnd(Fh, Buf, St, PMPI_File_read_ordered_end);
}

//===-- Data collectives: independent when a restart put a rank behind ----===//

int MPI_File_write_all(MPI_File Fh, const void *Buf, int Count,
                       MPI_Datatype Type, MPI_Status *St) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F && independent(*F))
    return PMPI_File_write(realFile(Fh), Buf, Count, realType(Type), St);
  return PMPI_File_write_all(realFile(Fh), Buf, Count, realType(Type), St);
}

int MPI_File_read_all(MPI_File Fh, void *Buf, int Count, MPI_Datatype Type,
                      MPI_Status *St) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F && independent(*F))
    return PMPI_File_read(realFile(Fh), Buf, Count, realType(Type), St);
  return PMPI_File_read_all(realFile(Fh), Buf, Count, realType(Type), St);
}

int MPI_File_write_at_all(MPI_File Fh, MPI_Offset Off, const void *Buf,
                          int Count, MPI_Datatype Type, MPI_Status *St) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F && independent(*F))
    return PMPI_File_write_at(realFile(Fh), Off, Buf, Count, realType(Type),
                              St);
  return PMPI_File_write_at_all(realFile(Fh), Off, Buf, Count, realType(Type),
                                St);
}

int MPI_File_read_at_all(MPI_File Fh, MPI_Offset Off, void *Buf, int Count,
                         MPI_Datatype Type, MPI_Status *St) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F && independent(*F))
    return PMPI_File_read_at(realFile(Fh), Off, Buf, Count, realType(Type), St);
  return PMPI_File_read_at_all(realFile(Fh), Off, Buf, Count, realType(Type),
                               St);
}

int MPI_File_sync(MPI_File Fh) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  // Re-executed alone it would wait for the others: what it made durable
  // was written before the line anyway.
  if (F && independent(*F))
    return MPI_SUCCESS;
  return PMPI_File_sync(realFile(Fh));
}

int MPI_File_write_all_begin(MPI_File Fh, const void *Buf, int Count,
                             MPI_Datatype Type) {
  MPI_File R = realFile(Fh);
  return splitBegin(
      Fh, 2,
      [&](MPI_Status *St) {
        return PMPI_File_write(R, Buf, Count, realType(Type), St);
      },
      [&] { return PMPI_File_write_all_begin(R, Buf, Count, realType(Type)); });
}

int MPI_File_write_all_end(MPI_File Fh, const void *Buf, MPI_Status *St) {
  return splitEnd(Fh, Buf, St, PMPI_File_write_all_end);
}

int MPI_File_read_all_begin(MPI_File Fh, void *Buf, int Count,
                            MPI_Datatype Type) {
  MPI_File R = realFile(Fh);
  return splitBegin(
      Fh, 1,
      [&](MPI_Status *St) {
        return PMPI_File_read(R, Buf, Count, realType(Type), St);
      },
      [&] { return PMPI_File_read_all_begin(R, Buf, Count, realType(Type)); });
}

int MPI_File_read_all_end(MPI_File Fh, void *Buf, MPI_Status *St) {
  return splitEnd(Fh, Buf, St, PMPI_File_read_all_end);
}

int MPI_File_write_at_all_begin(MPI_File Fh, MPI_Offset Off, const void *Buf,
                                int Count, MPI_Datatype Type) {
  MPI_File R = realFile(Fh);
  return splitBegin(
      Fh, 2,
      [&](MPI_Status *St) {
        return PMPI_File_write_at(R, Off, Buf, Count, realType(Type), St);
      },
      [&] {
        return PMPI_File_write_at_all_begin(R, Off, Buf, Count, realType(Type));
      });
}

int MPI_File_write_at_all_end(MPI_File Fh, const void *Buf, MPI_Status *St) {
  return splitEnd(Fh, Buf, St, PMPI_File_write_at_all_end);
}

int MPI_File_read_at_all_begin(MPI_File Fh, MPI_Offset Off, void *Buf,
                               int Count, MPI_Datatype Type) {
  MPI_File R = realFile(Fh);
  return splitBegin(
      Fh, 1,
      [&](MPI_Status *St) {
        return PMPI_File_read_at(R, Off, Buf, Count, realType(Type), St);
      },
      [&] {
        return PMPI_File_read_at_all_begin(R, Off, Buf, Count, realType(Type));
      });
}

int MPI_File_read_at_all_end(MPI_File Fh, void *Buf, MPI_Status *St) {
  return splitEnd(Fh, Buf, St, PMPI_File_read_at_all_end);
}

//===-- Shared file pointer -----------------------------------------------===//

int MPI_File_write_shared(MPI_File Fh, const void *Buf, int Count,
                          MPI_Datatype Type, MPI_Status *St) {
  int R = PMPI_File_write_shared(realFile(Fh), Buf, Count, realType(Type), St);
  if (!Bypass && R == MPI_SUCCESS)
    movedShared(Fh, Count, Type);
  return R;
}

int MPI_File_read_shared(MPI_File Fh, void *Buf, int Count, MPI_Datatype Type,
                         MPI_Status *St) {
  int R = PMPI_File_read_shared(realFile(Fh), Buf, Count, realType(Type), St);
  if (!Bypass && R == MPI_SUCCESS)
    movedShared(Fh, Count, Type);
  return R;
}

//===-- Non-blocking reads and writes -------------------------------------===//

#define FILE_REQUEST(COLL, CALL)                                               \
  if (Bypass || !L)                                                            \
    return CALL(Req);                                                          \
  return withRequest(COLL, Req, [&](MPI_Request *Real) { return CALL(Real); })

int MPI_File_iwrite(MPI_File Fh, const void *Buf, int Count, MPI_Datatype Type,
                    MPI_Request *Req) {
  auto Call = [&](MPI_Request *R) {
    return PMPI_File_iwrite(realFile(Fh), Buf, Count, realType(Type), R);
  };
  FILE_REQUEST(false, Call);
}

int MPI_File_iread(MPI_File Fh, void *Buf, int Count, MPI_Datatype Type,
                   MPI_Request *Req) {
  auto Call = [&](MPI_Request *R) {
    return PMPI_File_iread(realFile(Fh), Buf, Count, realType(Type), R);
  };
  FILE_REQUEST(false, Call);
}

int MPI_File_iwrite_at(MPI_File Fh, MPI_Offset Off, const void *Buf, int Count,
                       MPI_Datatype Type, MPI_Request *Req) {
  auto Call = [&](MPI_Request *R) {
    return PMPI_File_iwrite_at(realFile(Fh), Off, Buf, Count, realType(Type),
                               R);
  };
  FILE_REQUEST(false, Call);
}

int MPI_File_iread_at(MPI_File Fh, MPI_Offset Off, void *Buf, int Count,
                      MPI_Datatype Type, MPI_Request *Req) {
  auto Call = [&](MPI_Request *R) {
    return PMPI_File_iread_at(realFile(Fh), Off, Buf, Count, realType(Type), R);
  };
  FILE_REQUEST(false, Call);
}

int MPI_File_iwrite_shared(MPI_File Fh, const void *Buf, int Count,
                           MPI_Datatype Type, MPI_Request *Req) {
  auto Call = [&](MPI_Request *R) {
    return PMPI_File_iwrite_shared(realFile(Fh), Buf, Count, realType(Type), R);
  };
  if (!Bypass)
    movedShared(Fh, Count, Type);
  FILE_REQUEST(false, Call);
}

int MPI_File_iread_shared(MPI_File Fh, void *Buf, int Count, MPI_Datatype Type,
                          MPI_Request *Req) {
  auto Call = [&](MPI_Request *R) {
    return PMPI_File_iread_shared(realFile(Fh), Buf, Count, realType(Type), R);
  };
  if (!Bypass)
    movedShared(Fh, Count, Type);
  FILE_REQUEST(false, Call);
}

// The collective ones: independent when behind, like the blocking ones.
int MPI_File_iwrite_all(MPI_File Fh, const void *Buf, int Count,
                        MPI_Datatype Type, MPI_Request *Req) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  bool Indep = F && independent(*F);
  auto Call = [&](MPI_Request *R) {
    return Indep ? PMPI_File_iwrite(realFile(Fh), Buf, Count, realType(Type), R)
                 : PMPI_File_iwrite_all(realFile(Fh), Buf, Count,
                                        realType(Type), R);
  };
  FILE_REQUEST(!Indep, Call);
}

int MPI_File_iread_all(MPI_File Fh, void *Buf, int Count, MPI_Datatype Type,
                       MPI_Request *Req) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  bool Indep = F && independent(*F);
  auto Call = [&](MPI_Request *R) {
    return Indep ? PMPI_File_iread(realFile(Fh), Buf, Count, realType(Type), R)
                 : PMPI_File_iread_all(realFile(Fh), Buf, Count, realType(Type),
                                       R);
  };
  FILE_REQUEST(!Indep, Call);
}

int MPI_File_iwrite_at_all(MPI_File Fh, MPI_Offset Off, const void *Buf,
                           int Count, MPI_Datatype Type, MPI_Request *Req) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  bool Indep = F && independent(*F);
  auto Call = [&](MPI_Request *R) {
    return Indep ? PMPI_File_iwrite_at(realFile(Fh), Off, Buf, Count,
                                       realType(Type), R)
                 : PMPI_File_iwrite_at_all(realFile(Fh), Off, Buf, Count,
                                           realType(Type), R);
  };
  FILE_REQUEST(!Indep, Call);
}

int MPI_File_iread_at_all(MPI_File Fh, MPI_Offset Off, void *Buf, int Count,
                          MPI_Datatype Type, MPI_Request *Req) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  bool Indep = F && independent(*F);
  auto Call = [&](MPI_Request *R) {
    return Indep ? PMPI_File_iread_at(realFile(Fh), Off, Buf, Count,
                                      realType(Type), R)
                 : PMPI_File_iread_at_all(realFile(Fh), Off, Buf, Count,
                                          realType(Type), R);
  };
  FILE_REQUEST(!Indep, Call);
}
}

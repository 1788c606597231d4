//===- FilesInternal.h - MPI-IO state shared by Files*.cpp -----*- C++ -*-===//
//
// What the layer keeps of an open file beyond its recipe (Files.cpp), and
// the helpers the read and write wrappers (FileData.cpp) use.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_MPI_FILESINTERNAL_H
#define CCC_MPI_FILESINTERNAL_H

#include <mpi.h>

#include <cstdint>

namespace ccc {
namespace mpi {

struct FileState {
  MPI_Comm Comm; // the layer's duplicate of the file's communicator (this
                 // process's; made again with the file)
  int Amode;
  int Atomic;        // MPI_File_set_atomicity's flag
  uint64_t Errh;     // program handle of the error handler set, 0 if none
  uint32_t View;     // index + 1 of the current FileView object, 0 if none
  MPI_Offset Pos;    // individual file pointer at the checkpoint (etypes)
  MPI_Offset Size;   // size at the checkpoint (bytes)
  MPI_Offset Base;   // shared pointer after the last collective setting it
  MPI_Offset Own;    // etypes this rank's shared operations moved it since
  bool UsesShared;   // some shared-pointer operation or seek_shared
  int EtypeSize;     // bytes in the current view's etype
  uint64_t DataColl; // data collectives started (non-blocking protocol)
  uint64_t Replay;   // after a restart: up to this one, run independently
  // An open split collective (begin called, end not yet): 1 read, 2 write;
  // Indep: it ran independently at begin and Split holds its status.
  uint8_t Split;
  bool SplitIndep;
  MPI_Status SplitStatus;
};

// The state of the program's open file F, or null (a handle the layer does
// not know: MPI's answer to it is the program's).
FileState *fileState(MPI_File F);
// A shared-pointer operation of Count elements of Type on F.
void movedShared(MPI_File F, int Count, MPI_Datatype Type);
// A data collective starts: true if this rank runs it independently (a
// restart put it behind the member furthest ahead).
bool independent(FileState &F);
// Non-blocking protocol: a collective changing what every member holds;
// the checkpoint is not committed if it crossed the line.
void lineCheck(FileState &F, const char *What);

} // namespace mpi
} // namespace ccc

#endif

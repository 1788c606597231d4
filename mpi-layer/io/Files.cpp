//===- Files.cpp - MPI-IO files across checkpoints ------------------------===//
//
// A file the program opens is an object of the layer's table (its handle a
// ccc handle, stable across restarts) made by the recipe FileOpen: the
// communicator, the name, the access mode and the info. Each
// MPI_File_set_view adds a FileView object naming the file, the etype, the
// filetype and the info, so a restart makes the file and its view again in
// creation order, with the datatypes (freed by the program or not) alive
// when the view needs them, as for any other recipe (Objects.cpp).
//
// What the recipes do not say is recorded at each checkpoint (filesGuard,
// just before the image): the individual file pointer and the file's size;
// non-blocking reads and writes are completed first, so none is open in an
// image. After the objects are made again (filesAfterRestore), every
// member of each file agrees on the size: the largest any member recorded.
// A file open for writing is cut back to it, so what the run wrote after
// the checkpoint goes and the re-executed writes put it back: the file ends
// byte-identical to an uninterrupted run's. (Sizes only grow by writes, so
// every byte past the largest recorded size was written after every
// member's checkpoint; below it, bytes written after a checkpoint are
// written again with the same contents.) Then the individual pointer is
// sought back, atomicity set, the error handler set again, and the shared
// file pointer put at its value at the line.
//
// The shared pointer: each rank counts the etypes its own shared-pointer
// operations moved it (Own) since the last collective that set it (open,
// seek_shared, set_view: Base). Its value at the recovery line is Base plus
// every member's Own at its checkpoint, which is also right under the
// non-blocking protocol, where members checkpoint at different moments.
//
// Collectives under the non-blocking protocol (ranks checkpoint at
// different moments, so a collective may have run before some members'
// checkpoints and after others'): the data collectives (read_all,
// write_all, their _at, split and non-blocking forms, sync) are numbered
// per file; after a restart the members agree on the largest number any
// had started, and a member behind re-executes the ones it lacks as the
// independent read or write at the same place (the same bytes move; MPI
// needs no partner), sync as nothing. The others (open, close, set_view,
// set_size, preallocate, seek_shared, set_atomicity, set_info and the
// ordered ones) change what every member holds: crossing the line, they
// could not be replayed, so that checkpoint is not committed (nbLineCheck,
// an Allreduce of the epoch on the file's own communicator).
//
//===----------------------------------------------------------------------===//
#include "FilesInternal.h"
#include "mpi-layer/Layer.h"
#include "mpi-layer/objects/CommunicatorCalls.h"

#include "rt/common/Log.h"
#include "rt/process/Parallel.h"

#include "ccc.h"

#include <cstring>

namespace ccc {
namespace mpi {

namespace {

template <typename H> uint64_t bits(H Handle) { return handleBits(Handle); }

Object *fileObject(MPI_File F) {
  Object *O = fileHandleObject(F);
  return O && O->Kind == ObjKind::File && O->How == Recipe::FileOpen && O->Live
             ? O
             : nullptr;
}

bool writable(int Amode) { return Amode & (MPI_MODE_WRONLY | MPI_MODE_RDWR); }

int typeSize(MPI_Datatype T) {
  int S = 0;
  PMPI_Type_size(realType(T), &S);
  return S;
}

// Etypes moved by Count elements of Type.
MPI_Offset etypes(const FileState &F, int Count, MPI_Datatype Type) {
  return F.EtypeSize ? (MPI_Offset)Count * typeSize(Type) / F.EtypeSize : 0;
}

} // namespace

void lineCheck(FileState &F, const char *What) {
  if (NonBlocking)
    nbLineCheck(F.Comm, What);
}

// A data collective starts: true if this rank runs it independently (a
// restart put it behind the member furthest ahead).
bool independent(FileState &F) {
  if (!NonBlocking)
    return false;
  ++F.DataColl;
  if (F.DataColl > F.Replay)
    return false;
  if (protocolTrace())
    logMessage("protocol: rank %d epoch %u: MPI-IO collective %llu crossed "
               "the line: run independently",
               L->Rank, L->Epoch, (unsigned long long)F.DataColl);
  return true;
}

namespace {

// The shared pointer was just set by a collective (every member's same
// value): record it, once every member has read it.
void sharedSet(FileState &F, MPI_File Real) {
  PMPI_File_get_position_shared(Real, &F.Base);
  PMPI_Barrier(F.Comm);
  F.Own = 0;
}

const char *fileName(const Object &O) { return O.Strings; }

[[noreturn]] void cannotReopen(const Object &O, int Err) {
  char Msg[MPI_MAX_ERROR_STRING];
  int Len = 0;
  PMPI_Error_string(Err, Msg, &Len);
  fatal("cannot reopen the MPI file %s, open at the checkpoint: %s",
        fileName(O), Msg);
}

} // namespace

int makeFileObject(Object &O) {
  switch (O.How) {
  case Recipe::FileOpen: {
    FileState &F = *O.Fs;
    MPI_Comm C = realComm(handleFromBits<MPI_Comm>(O.Handles[0]));
    MPI_Info Info = realInfo(handleFromBits<MPI_Info>(O.Handles[1]));
    // Reopened, the file must be there as the checkpoint left it: created
    // anew it would silently lose what the run wrote before the line.
    int Amode =
        Restoring ? F.Amode & ~(MPI_MODE_EXCL | MPI_MODE_CREATE) : F.Amode;
    int R = PMPI_File_open(C, fileName(O), Amode, Info, &O.Real.File);
    if (R != MPI_SUCCESS) {
      if (Restoring)
        cannotReopen(O, R);
      return R;
    }
    PMPI_Comm_dup(C, &F.Comm);
    return R;
  }
  case Recipe::FileView: {
    MPI_File Real = realFile(handleFromBits<MPI_File>(O.Handles[0]));
    O.Real.File = Real;
    return PMPI_File_set_view(
        Real, O.Aints[0], realType(handleFromBits<MPI_Datatype>(O.Handles[1])),
        realType(handleFromBits<MPI_Datatype>(O.Handles[2])), O.Strings,
        realInfo(handleFromBits<MPI_Info>(O.Handles[3])));
  }
  default:
    return MPI_ERR_INTERN;
  }
}

// The program closed the file (or a restart made it only as another
// object's input, which cannot happen: views are made only while their
// file is open). Views hold nothing of their own.
void freeFileObject(Object &O) {
  if (O.How != Recipe::FileOpen || !O.Fs)
    return;
  if (O.Real.File != MPI_FILE_NULL)
    PMPI_File_close(&O.Real.File);
  if (O.Fs->Comm != MPI_COMM_NULL)
    PMPI_Comm_free(&O.Fs->Comm);
}

void filesBeforeRestore() {
  if (L->FileNullErrh)
    PMPI_File_set_errhandler(
        MPI_FILE_NULL,
        realErrhandler(handleFromBits<MPI_Errhandler>(L->FileNullErrh)));
}

void filesAfterRestore() {
  for (uint32_t I = 0; I < L->NObjs; ++I) {
    Object &O = L->Objs[I];
    if (O.Kind != ObjKind::File || O.How != Recipe::FileOpen || !O.Live)
      continue;
    FileState &F = *O.Fs;
    MPI_File Real = O.Real.File;
    if (F.Errh)
      PMPI_File_set_errhandler(
          Real, realErrhandler(handleFromBits<MPI_Errhandler>(F.Errh)));
    if (F.Atomic)
      PMPI_File_set_atomicity(Real, F.Atomic);
    MPI_Offset Size = F.Size;
    PMPI_Allreduce(&F.Size, &Size, 1, MPI_OFFSET, MPI_MAX, F.Comm);
    MPI_Offset Now = 0, Longest = 0;
    PMPI_File_get_size(Real, &Now);
    PMPI_Allreduce(&Now, &Longest, 1, MPI_OFFSET, MPI_MAX, F.Comm);
    if (Longest < Size)
      fatal("the MPI file %s, open at the checkpoint, has %lld bytes, fewer "
            "than the %lld it had then: it was changed since, so the run "
            "cannot continue from the checkpoint (restore the file)",
            fileName(O), (long long)Longest, (long long)Size);
    if (writable(F.Amode)) {
      if (Longest > Size) {
        CCC_DEBUG("MPI file %s cut from %lld to %lld bytes", fileName(O),
                  (long long)Longest, (long long)Size);
        PMPI_File_set_size(Real, Size);
      }
    }
    if (!(F.Amode & MPI_MODE_SEQUENTIAL))
      PMPI_File_seek(Real, F.Pos, MPI_SEEK_SET);
    long long Mine[2] = {(long long)F.Own, F.UsesShared}, All[2];
    PMPI_Allreduce(Mine, All, 2, MPI_LONG_LONG, MPI_SUM, F.Comm);
    CCC_DEBUG("MPI file %s: size %lld, pointer %lld, shared %lld + %lld",
              fileName(O), (long long)Size, (long long)F.Pos, (long long)F.Base,
              All[0]);
    if (All[1]) {
      PMPI_File_seek_shared(Real, F.Base + All[0], MPI_SEEK_SET);
      sharedSet(F, Real);
    }
    uint64_t Started = F.DataColl;
    PMPI_Allreduce(&F.DataColl, &Started, 1, MPI_UINT64_T, MPI_MAX, F.Comm);
    F.Replay = Started;
    if (Started > F.DataColl && protocolTrace())
      logMessage("protocol: rank %d epoch %u: MPI file %s: %llu collective(s) "
                 "crossed the line",
                 L->Rank, L->Epoch, fileName(O),
                 (unsigned long long)(Started - F.DataColl));
  }
}

namespace {

int (*RealTake)();

// Before the image: no MPI-IO operation may be open in it.
int filesTake() {
  uint32_t Split = 0, Sequential = 0, OpenColl = 0;
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    Request &R = L->Reqs[I];
    if (!R.InUse || R.Kind != ReqKind::File || R.Done)
      continue;
    // A non-blocking collective completes only once every member started
    // it: under the non-blocking protocol some may not have yet, and
    // waiting could deadlock.
    if (NonBlocking && R.Peer) {
      ++OpenColl;
      continue;
    }
    MPI_Status S;
    PMPI_Wait(&R.Real, &S);
    R.Real = MPI_REQUEST_NULL;
    R.Status = S;
    R.Done = true;
  }
  for (uint32_t I = 0; I < L->NObjs; ++I) {
    Object &O = L->Objs[I];
    if (O.Kind != ObjKind::File || O.How != Recipe::FileOpen || !O.Live)
      continue;
    FileState &F = *O.Fs;
    Split += F.Split != 0;
    if (F.Amode & MPI_MODE_SEQUENTIAL) {
      ++Sequential;
      continue;
    }
    PMPI_File_get_position(O.Real.File, &F.Pos);
    PMPI_File_get_size(O.Real.File, &F.Size);
  }
  if (Split || Sequential || OpenColl) {
    logMessage("checkpoint not written on rank %d: %s open, which a restart "
               "could not re-create",
               L->Rank,
               Split ? "a split collective MPI-IO operation (begin without "
                       "end) is"
               : Sequential ? "a file opened with MPI_MODE_SEQUENTIAL is"
                            : "a non-blocking collective MPI-IO operation is");
    return CCC_NONE;
  }
  return RealTake();
}

} // namespace

int (*guardFiles(int (*Take)()))() {
  if (!Take)
    return nullptr;
  RealTake = Take;
  return filesTake;
}

// The state of the program's file F, or null (a handle the layer does not
// know: MPI's answer to it is the program's).
FileState *fileState(MPI_File F) {
  Object *O = fileObject(F);
  return O ? O->Fs : nullptr;
}

// Shared-pointer operation of Count elements of Type on F.
void movedShared(MPI_File F, int Count, MPI_Datatype Type) {
  if (FileState *S = fileState(F)) {
    S->UsesShared = true;
    S->Own += etypes(*S, Count, Type);
  }
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_File_open(MPI_Comm C, const char *Name, int Amode, MPI_Info Info,
                  MPI_File *Fh) {
  if (Bypass || !L)
    return PMPI_File_open(C, Name, Amode, Info, Fh);
  uint64_t H[] = {bits(C), bits(Info)};
  uint32_t Idx = recordObject(ObjKind::File, Recipe::FileOpen, 0, nullptr, 0,
                              nullptr, 2, H);
  Object &O = L->Objs[Idx];
  size_t Len = strlen(Name) + 1;
  O.Strings = static_cast<char *>(saved(Len));
  memcpy(O.Strings, Name, Len);
  O.StringsLen = (uint32_t)Len;
  O.Fs = static_cast<FileState *>(saved(sizeof(FileState)));
  O.Fs->Amode = Amode;
  O.Fs->Comm = MPI_COMM_NULL;
  O.Fs->EtypeSize = 1;
  int R = makeObject(O);
  if (R != MPI_SUCCESS) {
    __ccc_free(O.Fs);
    __ccc_free(O.Strings);
    L->NObjs--;
    return R;
  }
  FileState &F = *O.Fs;
  lineCheck(F, "an MPI file was opened");
  // In append mode every pointer starts at the end of the file.
  if (Amode & MPI_MODE_APPEND)
    sharedSet(F, O.Real.File);
  *Fh = objectHandle<MPI_File>(Idx);
  return R;
}

int MPI_File_close(MPI_File *Fh) {
  Object *O = Bypass ? nullptr : fileObject(*Fh);
  if (!O)
    return PMPI_File_close(Fh);
  lineCheck(*O->Fs, "an MPI file was closed");
  int R = PMPI_File_close(&O->Real.File);
  if (R != MPI_SUCCESS)
    return R;
  O->Live = false;
  O->FreedEpoch = L->Epoch;
  PMPI_Comm_free(&O->Fs->Comm);
  if (O->Fs->View)
    L->Objs[O->Fs->View - 1].Live = false;
  *Fh = MPI_FILE_NULL;
  return R;
}

int MPI_File_set_view(MPI_File Fh, MPI_Offset Disp, MPI_Datatype Etype,
                      MPI_Datatype Filetype, const char *Datarep,
                      MPI_Info Info) {
  Object *FO = Bypass ? nullptr : fileObject(Fh);
  if (!FO)
    return PMPI_File_set_view(Fh, Disp, Etype, Filetype, Datarep, Info);
  uint32_t FileIdx = (uint32_t)(FO - L->Objs);
  uint64_t H[] = {bits(Fh), bits(Etype), bits(Filetype), bits(Info)};
  MPI_Aint A[] = {(MPI_Aint)Disp};
  uint32_t Idx =
      recordObject(ObjKind::File, Recipe::FileView, 0, nullptr, 1, A, 4, H);
  Object &V = L->Objs[Idx]; // the table may have moved: FO is stale
  size_t Len = strlen(Datarep) + 1;
  V.Strings = static_cast<char *>(saved(Len));
  memcpy(V.Strings, Datarep, Len);
  V.StringsLen = (uint32_t)Len;
  int R = makeObject(V);
  if (R != MPI_SUCCESS) {
    __ccc_free(V.Strings);
    L->NObjs--;
    return R;
  }
  FileState &F = *L->Objs[FileIdx].Fs;
  if (F.View)
    L->Objs[F.View - 1].Live = false;
  F.View = Idx + 1;
  F.EtypeSize = typeSize(Etype);
  // Both pointers are 0 in the new view.
  F.Base = 0;
  F.Own = 0;
  lineCheck(F, "an MPI file view was set");
  return R;
}

int MPI_File_get_view(MPI_File Fh, MPI_Offset *Disp, MPI_Datatype *Etype,
                      MPI_Datatype *Filetype, char *Datarep) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (!F || !F->View)
    return PMPI_File_get_view(realFile(Fh), Disp, Etype, Filetype, Datarep);
  const Object &V = L->Objs[F->View - 1];
  *Disp = (MPI_Offset)V.Aints[0];
  strcpy(Datarep, V.Strings);
  // New handles the program frees, as MPI's would be (predefined ones are
  // returned as they are).
  MPI_Datatype Ts[] = {handleFromBits<MPI_Datatype>(V.Handles[1]),
                       handleFromBits<MPI_Datatype>(V.Handles[2])};
  MPI_Datatype *Outs[] = {Etype, Filetype};
  for (int K = 0; K < 2; ++K) {
    if (!object(Ts[K])) {
      *Outs[K] = Ts[K];
      continue;
    }
    uint64_t H[] = {bits(Ts[K])};
    int R = createType(Recipe::TypeDup, Outs[K], 0, nullptr, 0, nullptr, 1, H);
    if (R != MPI_SUCCESS)
      return R;
  }
  return MPI_SUCCESS;
}

// The mode the program opened the file with (a restart reopens it without
// MPI_MODE_CREATE and MPI_MODE_EXCL, which MPI would report).
int MPI_File_get_amode(MPI_File Fh, int *Amode) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (!F)
    return PMPI_File_get_amode(realFile(Fh), Amode);
  *Amode = F->Amode;
  return MPI_SUCCESS;
}

// The group of the communicator the file was opened on (made again from
// it, as the file may be closed when a restart needs the group).
int MPI_File_get_group(MPI_File Fh, MPI_Group *Out) {
  Object *O = Bypass ? nullptr : fileObject(Fh);
  if (!O)
    return PMPI_File_get_group(realFile(Fh), Out);
  uint64_t H[] = {O->Handles[0]};
  return createGroupFrom(Recipe::GroupOfComm, 1, H, Out);
}

int MPI_File_get_info(MPI_File Fh, MPI_Info *Out) {
  if (Bypass || !fileObject(Fh))
    return PMPI_File_get_info(realFile(Fh), Out);
  MPI_Info Real;
  int R = PMPI_File_get_info(realFile(Fh), &Real);
  if (R == MPI_SUCCESS)
    adoptInfo(Real, Out);
  return R;
}

int MPI_File_set_errhandler(MPI_File Fh, MPI_Errhandler E) {
  if (Bypass || !L)
    return PMPI_File_set_errhandler(Fh, E);
  int R = PMPI_File_set_errhandler(realFile(Fh), realErrhandler(E));
  if (R != MPI_SUCCESS)
    return R;
  if (Fh == MPI_FILE_NULL)
    L->FileNullErrh = bits(E);
  else if (FileState *F = fileState(Fh))
    F->Errh = bits(E);
  return R;
}

//===-- Collectives that change what every member holds -------------------===//

int MPI_File_set_size(MPI_File Fh, MPI_Offset Size) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F)
    lineCheck(*F, "an MPI file's size was set");
  return PMPI_File_set_size(realFile(Fh), Size);
}

int MPI_File_preallocate(MPI_File Fh, MPI_Offset Size) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F)
    lineCheck(*F, "an MPI file was preallocated");
  return PMPI_File_preallocate(realFile(Fh), Size);
}

int MPI_File_set_atomicity(MPI_File Fh, int Flag) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  int R = PMPI_File_set_atomicity(realFile(Fh), Flag);
  if (F && R == MPI_SUCCESS) {
    F->Atomic = Flag != 0;
    lineCheck(*F, "an MPI file's atomicity was set");
  }
  return R;
}

int MPI_File_set_info(MPI_File Fh, MPI_Info Info) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  if (F)
    lineCheck(*F, "an MPI file's info was set");
  return PMPI_File_set_info(realFile(Fh), realInfo(Info));
}

int MPI_File_seek_shared(MPI_File Fh, MPI_Offset Off, int Whence) {
  FileState *F = Bypass ? nullptr : fileState(Fh);
  int R = PMPI_File_seek_shared(realFile(Fh), Off, Whence);
  if (F && R == MPI_SUCCESS) {
    F->UsesShared = true;
    sharedSet(*F, realFile(Fh));
    lineCheck(*F, "an MPI file's shared pointer was set");
  }
  return R;
}

//===-- Fortran integers for file handles ---------------------------------===//

// Both MPIs' file handles are pointers: a ccc handle's Fortran integer
// encodes its table index, as for the other objects (Fortran.cpp).
MPI_Fint MPI_File_c2f(MPI_File F) {
  uint32_t I;
  if (decodeHandle(F, kHandleObj, &I))
    return encodeHandle<MPI_Fint>(kHandleObj, I);
  return PMPI_File_c2f(F);
}

MPI_File MPI_File_f2c(MPI_Fint F) {
  uint32_t I;
  if (decodeHandle(F, kHandleObj, &I))
    return encodeHandle<MPI_File>(kHandleObj, I);
  return PMPI_File_f2c(F);
}
}

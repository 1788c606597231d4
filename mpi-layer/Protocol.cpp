//===- Protocol.cpp - C3's non-blocking coordinated protocol --------------===//
//
// CCC_PROTOCOL=nonblocking: the protocol of Bronevetsky et al., "Automated
// application-level checkpointing of MPI programs" (PPoPP'03), sections 3
// and 4. Each rank checkpoints at its own next site once any rank has
// started a checkpoint; nobody waits for anybody. Every application message
// carries its sender's epoch, logging bit and per-destination sequence
// number (a struct datatype joins the 8-byte header and the user's buffer:
// no copy), so the receiver can classify it:
//   late   sent before the sender's checkpoint, received after ours: its
//          data goes to the message log (the sender will not send it again);
//   intra  same epoch: in NonDet-Log mode a wildcard receive's choice is
//          logged, so a restart receives in the same order;
//   early  sent after the sender's checkpoint, received before ours: its
//          sequence number goes to the early registry, saved in our image,
//          and the sender suppresses that send when it re-executes.
// Modes: Run -> (checkpoint) NonDet-Log -> (Checkpoint-Initiated from every
// rank, or a message from a rank that stopped logging) RecvOnly-Log -> (all
// late messages received: write the log) Run. Restore replays the log.
// Tests, Waitany/some, Iprobe outcomes are logged in NonDet-Log mode and
// replayed in order.
//
// A version counts once rank 0 knows that every rank wrote its image and its
// log; it then writes the commit record.
//
//===----------------------------------------------------------------------===//
#include "Layer.h"

#include "../rt/Log.h"
#include "../rt/Parallel.h"
#include "../rt/Store.h"

#include "ccc.h"
#include "ccc/abi.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <unistd.h>

namespace ccc {
namespace mpi {

bool NonBlocking = false;
MPI_Comm CollComm = MPI_COMM_NULL;

namespace {

MPI_Comm Ctrl = MPI_COMM_NULL; // control messages of the protocol
constexpr int kTagInit = 1, kTagLogged = 2;
constexpr uint64_t kLineOp = 1ULL << 63;
constexpr int kHeaderBytes = 8;

const char *modeName(Mode M) {
  switch (M) {
  case Mode::Run:
    return "Run";
  case Mode::NonDetLog:
    return "NonDet-Log";
  case Mode::RecvOnlyLog:
    return "RecvOnly-Log";
  case Mode::Restore:
    return "Restore";
  }
  return "?";
}

#define TRACE(...)                                                             \
  do {                                                                         \
    if (protocolTrace())                                                       \
      logMessage("protocol: rank " __VA_ARGS__);                               \
  } while (0)

void setMode(Mode M, const char *Why) {
  TRACE("%d epoch %u: %s -> %s (%s)", L->Rank, L->Epoch, modeName(L->M),
        modeName(M), Why);
  L->M = M;
}

//===-- The message log of a checkpoint period ----------------------------===//
//
// One stream of records in the order they happened, kept in this process's
// memory (not saved: it describes what happened after the image) and
// written to NAME.vSEQ.rRANK.log when the period ends.

// Coll: a collective that crossed the recovery line, recorded by the ranks
// past their checkpoint: every member's header word, then the data of each
// late stream (from a member before its checkpoint), packed, in rank order.
enum class RecKind : uint8_t { Late, Wild, Event, Coll };

struct Record {
  RecKind Kind;
  uint8_t Ev;     // Event
  uint16_t NVals; // Event
  int32_t Src;    // rank in the communicator
  int32_t Tag;
  uint32_t Pad;
  uint64_t Op;    // receive operation (Late, Wild); collective number (Coll)
  uint64_t Comm;  // program handle bits (Late, Wild, Coll)
  uint64_t Bytes; // Late: packed data that follows; Event: 8 * NVals
};

struct Buffer {
  char *Data = nullptr;
  size_t Len = 0, Cap = 0;
  void append(const void *P, size_t N) {
    if (Len + N > Cap) {
      size_t C = Cap ? Cap * 2 : 4096;
      while (C < Len + N)
        C *= 2;
      char *D = static_cast<char *>(__libc_realloc(Data, C));
      if (!D)
        fatal("out of memory for the message log (%zu bytes)", C);
      Data = D;
      Cap = C;
    }
    memcpy(Data + Len, P, N);
    Len += N;
  }
  void clear() { Len = 0; }
};

// What a rank reports to rank 0 when its period ends, so that rank 0 can
// say why a version is not committed: a write that failed is a lost
// checkpoint, a rank that finished first only an abandoned one. In order
// of precedence when ranks differ.
enum Outcome : uint64_t {
  kWritten = 0,     // image and log durable
  kSaid = 1,        // not committed for a reason this rank already printed
  kFinished = 2,    // reached MPI_Finalize before taking it: no image
  kWriteFailed = 3, // its image or its log could not be written
};

Buffer Log;         // being recorded (NonDet-Log, RecvOnly-Log)
Outcome TakeResult; // this rank's part in the current epoch so far
bool WantNext;      // a checkpoint was asked for during a period

void record(RecKind K, uint8_t Ev, uint64_t Op, uint64_t Comm, int Src, int Tag,
            const void *Data, uint64_t Bytes, uint16_t NVals) {
  Record R = {};
  R.Kind = K;
  R.Ev = Ev;
  R.NVals = NVals;
  R.Src = Src;
  R.Tag = Tag;
  R.Op = Op;
  R.Comm = Comm;
  R.Bytes = Bytes;
  Log.append(&R, sizeof(R));
  if (Bytes)
    Log.append(Data, Bytes);
}

// The log being replayed after a restart.
struct Replay {
  Record *Recs = nullptr; // pointers into Data
  char **Payload = nullptr;
  bool *Used = nullptr;
  size_t N = 0;
  char *Data = nullptr;
  size_t NextEvent = 0; // index of the next unreplayed event record
  size_t Left = 0;      // records not yet used
} RP;

// Sends this rank must suppress while it re-executes: per destination, the
// sorted sequence numbers of its messages that the receiver got early.
struct WasEarly {
  uint64_t *Seqs = nullptr;
  uint32_t N = 0, Next = 0;
};
WasEarly *WE;
uint64_t WasEarlyLeft;

void maybeEndRestore() {
  if (L->M == Mode::Restore && RP.Left == 0 && WasEarlyLeft == 0)
    setMode(Mode::Run, "log replayed and early sends suppressed");
}

//===-- Checksummed log file ----------------------------------------------===//

constexpr uint64_t kLogMagic = 0x31474f4c43434343ULL; // "CCCCLOG1"

struct LogHeader {
  uint64_t Magic;
  uint64_t Version;
  uint32_t Rank, NRanks;
  uint64_t Bytes;
  uint64_t Sum;
};

uint64_t fnv(const char *P, size_t N) {
  uint64_t H = 0xcbf29ce484222325ULL;
  for (size_t I = 0; I < N; ++I)
    H = (H ^ (unsigned char)P[I]) * 0x100000001b3ULL;
  return H;
}

bool writeAll(int Fd, const void *P, size_t N) {
  const char *C = static_cast<const char *>(P);
  while (N) {
    ssize_t W = write(Fd, C, N);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      return false;
    C += W;
    N -= W;
  }
  return true;
}

bool writeLogFile(uint64_t Version) {
  char Path[kPathMax], Tmp[kPathMax + 8];
  logPath(Path, storeDir(), storeName(), Version, L->Rank);
  snprintf(Tmp, sizeof(Tmp), "%s.tmp", Path);
  int Fd = open(Tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0) {
    logMessage("checkpoint %llu: cannot write %s: %s",
               (unsigned long long)Version, Tmp, strerror(errno));
    return false;
  }
  LogHeader H = {kLogMagic,         Version, (uint32_t)L->Rank,
                 (uint32_t)L->Size, Log.Len, fnv(Log.Data, Log.Len)};
  bool Ok = writeAll(Fd, &H, sizeof(H)) && writeAll(Fd, Log.Data, Log.Len) &&
            fsync(Fd) == 0;
  int E = errno;
  close(Fd);
  if (!Ok || !publish(Tmp, Path, storeDir())) {
    logMessage("checkpoint %llu: cannot write %s: %s",
               (unsigned long long)Version, Path, strerror(E));
    unlink(Tmp);
    return false;
  }
  return true;
}

// Reads and checks a log file; the payload is returned in libc memory.
char *readLogFile(uint64_t Version, size_t *Len, char *Why, size_t Cap) {
  char Path[kPathMax];
  logPath(Path, storeDir(), storeName(), Version, processRank());
  int Fd = open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0) {
    snprintf(Why, Cap, "message log %s: %s", Path, strerror(errno));
    return nullptr;
  }
  LogHeader H;
  char *Data = nullptr;
  bool Ok = read(Fd, &H, sizeof(H)) == (ssize_t)sizeof(H) &&
            H.Magic == kLogMagic && H.Version == Version &&
            H.Rank == processRank() && H.NRanks == processCount();
  if (Ok) {
    Data = static_cast<char *>(scratch(H.Bytes));
    size_t Got = 0;
    while (Got < H.Bytes) {
      ssize_t R = read(Fd, Data + Got, H.Bytes - Got);
      if (R <= 0)
        break;
      Got += R;
    }
    Ok = Got == H.Bytes && fnv(Data, H.Bytes) == H.Sum;
  }
  close(Fd);
  if (!Ok) {
    scratchFree(Data);
    snprintf(Why, Cap, "message log %s is damaged or truncated", Path);
    return nullptr;
  }
  *Len = H.Bytes;
  return Data;
}

//===-- Control messages --------------------------------------------------===//

void pollCtrl();

struct CtrlSend {
  MPI_Request Req;
  uint64_t Msg[3];
};
CtrlSend *CtrlSends;
int NCtrlSlots;

// Sends a control message from a free slot; false if none is free.
bool trySendCtrl(int To, int Tag, uint64_t A, uint64_t B) {
  for (int I = 0; I < NCtrlSlots; ++I) {
    CtrlSend &S = CtrlSends[I];
    if (S.Req != MPI_REQUEST_NULL) {
      int Flag;
      PMPI_Test(&S.Req, &Flag, MPI_STATUS_IGNORE);
      if (!Flag)
        continue;
    }
    S.Msg[0] = A;
    S.Msg[1] = B;
    S.Msg[2] = 0;
    PMPI_Isend(S.Msg, 3, MPI_UINT64_T, To, Tag, Ctrl, &S.Req);
    return true;
  }
  return false;
}

void sendCtrl(int To, int Tag, uint64_t A, uint64_t B) {
  while (!trySendCtrl(To, Tag, A, B))
    pollCtrl(); // all slots busy: let the receivers take some
}

// Rank 0: which ranks have logged which epoch (two epochs can be open).
struct Pending {
  uint32_t Epoch;
  int Count;
  Outcome Worst;
  int Finisher; // a rank that reported kFinished
} Commits[2];
uint32_t CommittedEpoch; // rank 0: highest epoch whose commit was decided

// Rank 0: version V will never be committed because rank Finisher ended
// the program without taking it. Nothing was lost (the program finished),
// so the job log says nothing at the default verbosity; the other ranks'
// images and logs of V are deleted (every rank reported, none writes them
// any more), so no uncommitted version stays behind.
void abandonVersion(uint64_t V, int Finisher) {
  char Path[kPathMax];
  for (int Q = 0; Q < L->Size; ++Q) {
    imagePath(Path, storeDir(), storeName(), V, Q);
    unlink(Path);
    logPath(Path, storeDir(), storeName(), V, Q);
    unlink(Path);
  }
  CCC_INFO("checkpoint %llu abandoned: rank %d reached MPI_Finalize before "
           "taking it; the program finished, the previous committed "
           "checkpoint is kept",
           (unsigned long long)V, Finisher);
}

void onLogged(int From, uint32_t Epoch, Outcome O) {
  Pending &P = Commits[Epoch % 2];
  if (P.Epoch != Epoch) {
    P.Epoch = Epoch;
    P.Count = 0;
    P.Worst = kWritten;
  }
  if (O == kFinished)
    P.Finisher = From;
  P.Worst = O > P.Worst ? O : P.Worst;
  if (++P.Count < L->Size)
    return;
  uint64_t V = L->VersionBase + Epoch;
  if (Epoch > CommittedEpoch)
    CommittedEpoch = Epoch;
  if (P.Worst == kFinished)
    abandonVersion(V, P.Finisher);
  else if (P.Worst != kSaid) // kSaid: the rank printed why
    commitVersion(V, P.Worst == kWritten, "its image or its message log");
}

void checkPeriod();

void onInit(int From, uint32_t Epoch, uint64_t Count) {
  if (Epoch == L->Epoch && L->LateWant[From] < 0) {
    L->LateWant[From] = (int64_t)Count;
    L->NCtrl++;
    TRACE("%d epoch %u: Checkpoint-Initiated from %d (%llu sent to us)",
          L->Rank, L->Epoch, From, (unsigned long long)Count);
    checkPeriod();
  } else if (Epoch == L->Epoch + 1 && L->FutureWant[From] < 0) {
    L->FutureWant[From] = (int64_t)Count;
    L->NFuture++;
    L->Initiated = true;
    TRACE("%d epoch %u: rank %d started checkpoint %u", L->Rank, L->Epoch, From,
          Epoch);
  } else {
    fatal("protocol error: Checkpoint-Initiated of epoch %u from rank %d in "
          "epoch %u",
          Epoch, From, L->Epoch);
  }
}

void pollCtrl() {
  for (;;) {
    int Flag;
    MPI_Status S;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, Ctrl, &Flag, &S);
    if (!Flag)
      return;
    uint64_t Msg[3];
    PMPI_Recv(Msg, 3, MPI_UINT64_T, S.MPI_SOURCE, S.MPI_TAG, Ctrl,
              MPI_STATUS_IGNORE);
    if (S.MPI_TAG == kTagInit)
      onInit(S.MPI_SOURCE, (uint32_t)Msg[0], Msg[1]);
    else
      onLogged(S.MPI_SOURCE, (uint32_t)Msg[0], (Outcome)Msg[1]);
  }
}

// The period ends when every late message has arrived: write the log.
void commitLocal() {
  uint64_t V = L->VersionBase + L->Epoch;
  if (TakeResult == kWritten && !writeLogFile(V))
    TakeResult = kWriteFailed;
  TRACE("%d epoch %u: all late messages received; log of %zu bytes %s", L->Rank,
        L->Epoch, Log.Len, TakeResult == kWritten ? "written" : "NOT written");
  Log.clear();
  setMode(Mode::Run, "period complete");
  if (L->Rank == 0)
    onLogged(0, L->Epoch, TakeResult);
  else
    sendCtrl(0, kTagLogged, L->Epoch, TakeResult);
}

void checkPeriod() {
  if (L->M == Mode::NonDetLog && L->NCtrl == L->Size - 1)
    setMode(Mode::RecvOnlyLog, "every rank has started this checkpoint");
  if (L->M != Mode::RecvOnlyLog)
    return;
  for (int Q = 0; Q < L->Size; ++Q) {
    if (L->LateWant[Q] < 0 || L->LateGot[Q] < (uint64_t)L->LateWant[Q])
      return;
    if (L->LateGot[Q] > (uint64_t)L->LateWant[Q])
      fatal("protocol error: %llu late messages from rank %d, %lld expected",
            (unsigned long long)L->LateGot[Q], Q, (long long)L->LateWant[Q]);
  }
  commitLocal();
}

void toRecvOnly(const char *Why) {
  if (L->M == Mode::NonDetLog) {
    setMode(Mode::RecvOnlyLog, Why);
    checkPeriod();
  }
}

//===-- Piggybacking ------------------------------------------------------===//

// A datatype for the header followed by Count elements of Type at Buf
// (absolute addresses: used with MPI_BOTTOM).
MPI_Datatype withHeader(uint32_t *Hdr, const void *Buf, int Count,
                        MPI_Datatype Type) {
  int Lens[2] = {2, Count};
  MPI_Aint Displs[2];
  PMPI_Get_address(Hdr, &Displs[0]);
  PMPI_Get_address(Buf, &Displs[1]);
  MPI_Datatype Types[2] = {MPI_UINT32_T, Type};
  MPI_Datatype T;
  PMPI_Type_create_struct(2, Lens, Displs, Types, &T);
  PMPI_Type_commit(&T);
  return T;
}

// Small contiguous messages travel as one byte buffer, the header then the
// data (a datatype made and freed per message costs more than the copy).
// It is the same byte stream as the struct datatype sends, so either side
// may use either form.
constexpr int kPackMax = 4096;

// Per real datatype: its size if its elements lie contiguous, else -1.
// Three type queries per message were a good part of the layer's cost on
// small messages; the cache is emptied whenever the program frees a
// datatype (MPI may reuse the handle).
struct TypeShape {
  MPI_Datatype Type;
  int Size;
  bool Valid;
};
TypeShape Shapes[32];

__attribute__((noinline)) int contiguousSizeSlow(MPI_Datatype Type,
                                                  TypeShape &E) {
  int Size;
  PMPI_Type_size(Type, &Size);
  MPI_Aint Lb, Ext, TLb, TExt;
  PMPI_Type_get_extent(Type, &Lb, &Ext);
  PMPI_Type_get_true_extent(Type, &TLb, &TExt);
  bool Contiguous = Lb == 0 && TLb == 0 && Ext == Size && TExt == Size;
  E = {Type, Contiguous ? Size : -1, true};
  return E.Size;
}

inline int contiguousSize(MPI_Datatype Type) {
  uint64_t H = handleBits(Type);
  TypeShape &E = Shapes[(H ^ H >> 5 ^ H >> 12) % 32];
  if (E.Valid && E.Type == Type)
    return E.Size;
  return contiguousSizeSlow(Type, E);
}

// The bytes of Count elements of Type if they are contiguous and at most
// kPackMax, else -1.
inline int packedBytes(int Count, MPI_Datatype Type) {
  int Size = contiguousSize(Type);
  if (Size < 0 || Count < 0 || (int64_t)Count * Size > kPackMax)
    return -1;
  return Count * Size;
}

// A message MPI truncated without delivering its header (MPICH delivers
// nothing of a truncated message): the protocol cannot tell which side of
// a recovery line it was sent on, so no later checkpoint could be proven
// consistent.
[[noreturn]] void headerMissing(const MPI_Status &S) {
  fatal("a message from rank %d (tag %d) was truncated (the receive posted "
        "fewer bytes than were sent) and MPI delivered none of it; under "
        "CCC_PROTOCOL=nonblocking the layer needs its first %d bytes",
        S.MPI_SOURCE, S.MPI_TAG, kHeaderBytes);
}

// The status the program sees: as if there were no header.
void stripHeader(MPI_Status &S) {
  MPI_Count Bytes = statusBytes(S);
  if (Bytes < kHeaderBytes)
    headerMissing(S);
  setStatusBytes(S, Bytes - kHeaderBytes);
}

// A packed message (Msg: header, then data) to the program's contiguous
// buffer of Cap bytes; strips the header from the status. A truncated
// message's status may count more than arrived (Open MPI counts what was
// sent), so at most Cap bytes are copied.
void unpackReceived(const char *Msg, void *Buf, int Cap, MPI_Status &S) {
  MPI_Count Bytes = statusBytes(S);
  if (Bytes < kHeaderBytes)
    headerMissing(S);
  MPI_Count Data = Bytes - kHeaderBytes;
  if (Data)
    memcpy(Buf, Msg + kHeaderBytes, Data < Cap ? Data : Cap);
  setStatusBytes(S, Data);
}

bool isWild(int Src, int Tag) {
  return Src == MPI_ANY_SOURCE || Tag == MPI_ANY_TAG;
}

// True if the send to world rank W with the next sequence number must be
// suppressed (its receiver got it before its checkpoint).
bool suppress(int W) {
  if (L->M != Mode::Restore || !WE)
    return false;
  WasEarly &E = WE[W];
  if (E.Next >= E.N || E.Seqs[E.Next] != L->SentEp[W])
    return false;
  E.Next++;
  WasEarlyLeft--;
  TRACE("%d epoch %u: send to %d (seq %llu) suppressed: it was early", L->Rank,
        L->Epoch, W, (unsigned long long)L->SentEp[W]);
  L->SentEp[W]++;
  maybeEndRestore();
  return true;
}

void fillHeader(uint32_t *Hdr, int W) {
  Hdr[0] = L->Epoch << 1 | (L->M == Mode::NonDetLog ? 1 : 0);
  Hdr[1] = (uint32_t)L->SentEp[W];
}

// Classifies a message the layer received (header Hdr, program status S
// already stripped) for receive operation Op posted with (Src, Tag) on C.
// Data/Bytes: the message in packed form, for the log (may be null: then
// Buf/Count/Type are packed on demand).
void classify(const uint32_t *Hdr, MPI_Comm C, int Src, int Tag, uint64_t Op,
              const MPI_Status &S, const void *Packed, size_t PackedBytes,
              const void *Buf, MPI_Datatype Type) {
  int W = worldRank(C, S.MPI_SOURCE);
  if (W < 0)
    fatal("protocol error: message from unknown rank %d", S.MPI_SOURCE);
  uint32_t E = Hdr[0] >> 1;
  bool SenderLogging = Hdr[0] & 1;
  if (E + 1 == L->Epoch) {
    L->LateGot[W]++;
    if (!Packed) {
      // Pack what arrived, in the program's datatype.
      MPI_Count Bytes = 0;
      PMPI_Get_elements_x(&S, MPI_BYTE, &Bytes);
      MPI_Datatype RT = realType(Type);
      int Size;
      PMPI_Type_size(RT, &Size);
      int K = Size ? (int)(Bytes / Size) : 0;
      int Cap;
      PMPI_Pack_size(K, RT, Private, &Cap);
      char *P = static_cast<char *>(scratch(Cap));
      int Pos = 0;
      if (K)
        PMPI_Pack(Buf, K, RT, P, Cap, &Pos, Private);
      record(RecKind::Late, 0, Op, handleBits(C), S.MPI_SOURCE, S.MPI_TAG, P,
             Pos, 0);
      scratchFree(P);
    } else {
      record(RecKind::Late, 0, Op, handleBits(C), S.MPI_SOURCE, S.MPI_TAG,
             Packed, PackedBytes, 0);
    }
    TRACE("%d epoch %u: late message from %d (tag %d) logged", L->Rank,
          L->Epoch, W, S.MPI_TAG);
    checkPeriod();
  } else if (E == L->Epoch) {
    L->RecvEp[W]++;
    if (L->M == Mode::NonDetLog) {
      if (!SenderLogging) {
        toRecvOnly("message from a rank that stopped logging");
      } else if (isWild(Src, Tag)) {
        record(RecKind::Wild, 0, Op, handleBits(C), S.MPI_SOURCE, S.MPI_TAG,
               nullptr, 0, 0);
        TRACE("%d epoch %u: wildcard receive matched %d (tag %d): logged",
              L->Rank, L->Epoch, W, S.MPI_TAG);
      }
    }
  } else if (E == L->Epoch + 1) {
    L->EarlyEp[W]++;
    if (L->NEarly == L->CapEarly) {
      uint32_t Cap = L->CapEarly ? 2 * L->CapEarly : 64;
      auto *N = static_cast<EarlyEntry *>(saved(Cap * sizeof(EarlyEntry)));
      if (L->NEarly)
        memcpy(N, L->Early, L->NEarly * sizeof(EarlyEntry));
      __ccc_free(L->Early);
      L->Early = N;
      L->CapEarly = Cap;
    }
    L->Early[L->NEarly++] = {W, Hdr[1]};
    L->Initiated = true;
    TRACE("%d epoch %u: early message from %d (seq %u) registered", L->Rank,
          L->Epoch, W, Hdr[1]);
  } else {
    fatal("protocol error: message of epoch %u from rank %d in epoch %u", E, W,
          L->Epoch);
  }
}

//===-- Replay ------------------------------------------------------------===//

bool compatible(const Record &R, MPI_Comm C, int Src, int Tag) {
  return R.Comm == handleBits(C) && (Src == MPI_ANY_SOURCE || Src == R.Src) &&
         (Tag == MPI_ANY_TAG || Tag == R.Tag);
}

void use(size_t I) {
  RP.Used[I] = true;
  RP.Left--;
  maybeEndRestore();
}

// For receive operation Op with (Src, Tag) on C during Restore: a late
// message from the log as a Message (saved heap, freed by deliver()), or
// null; a logged wildcard choice narrows Src and Tag.
Message *resolve(uint64_t Op, MPI_Comm C, int *Src, int *Tag) {
  if (L->M != Mode::Restore || !RP.N)
    return nullptr;
  size_t Found = RP.N;
  for (size_t I = 0; I < RP.N && Found == RP.N; ++I)
    if (!RP.Used[I] &&
        (RP.Recs[I].Kind == RecKind::Late ||
         RP.Recs[I].Kind == RecKind::Wild) &&
        RP.Recs[I].Op == Op && compatible(RP.Recs[I], C, *Src, *Tag))
      Found = I;
  if (Found < RP.N && RP.Recs[Found].Kind == RecKind::Wild) {
    *Src = RP.Recs[Found].Src;
    *Tag = RP.Recs[Found].Tag;
    TRACE("%d epoch %u: wildcard receive replayed from %d (tag %d)", L->Rank,
          L->Epoch, *Src, *Tag);
    use(Found);
    return nullptr;
  }
  // A late message: this operation's own, or (after the replayed part, when
  // execution may differ) the oldest one it can match, as MPI would.
  for (size_t I = 0; I < RP.N && Found == RP.N; ++I)
    if (!RP.Used[I] && RP.Recs[I].Kind == RecKind::Late &&
        compatible(RP.Recs[I], C, *Src, *Tag))
      Found = I;
  if (Found == RP.N)
    return nullptr;
  const Record &R = RP.Recs[Found];
  auto *M = static_cast<Message *>(saved(sizeof(Message) + R.Bytes));
  M->Comm = C;
  M->Source = R.Src;
  M->Tag = R.Tag;
  M->Bytes = R.Bytes;
  memcpy(M->Data, RP.Payload[Found], R.Bytes);
  TRACE("%d epoch %u: late message from %d (tag %d) replayed from the log",
        L->Rank, L->Epoch, R.Src, R.Tag);
  use(Found);
  return M;
}

void loadReplay(char *Data, size_t Len) {
  RP = Replay();
  RP.Data = Data;
  size_t N = 0;
  for (size_t Off = 0; Off + sizeof(Record) <= Len;) {
    auto *R = reinterpret_cast<Record *>(Data + Off);
    Off += sizeof(Record) + R->Bytes;
    ++N;
  }
  RP.Recs = static_cast<Record *>(scratch(N * sizeof(Record)));
  RP.Payload = static_cast<char **>(scratch(N * sizeof(char *)));
  RP.Used = static_cast<bool *>(scratch(N));
  size_t I = 0;
  for (size_t Off = 0; Off + sizeof(Record) <= Len; ++I) {
    memcpy(&RP.Recs[I], Data + Off, sizeof(Record));
    RP.Payload[I] = Data + Off + sizeof(Record);
    RP.Used[I] = false;
    Off += sizeof(Record) + RP.Recs[I].Bytes;
  }
  RP.N = RP.Left = N;
}

// Exchanges the early registries: each rank learns which of its own sends
// (by destination and sequence number) were received early.
void exchangeEarly() {
  int Size = L->Size;
  int *Out = static_cast<int *>(scratch(4 * Size * sizeof(int)));
  int *In = Out + Size, *OutD = In + Size, *InD = OutD + Size;
  memset(Out, 0, Size * sizeof(int));
  for (uint32_t I = 0; I < L->NEarly; ++I)
    Out[L->Early[I].Src]++;
  PMPI_Alltoall(Out, 1, MPI_INT, In, 1, MPI_INT, Private);
  int NOut = 0, NIn = 0;
  for (int Q = 0; Q < Size; ++Q) {
    OutD[Q] = NOut;
    InD[Q] = NIn;
    NOut += Out[Q];
    NIn += In[Q];
  }
  auto *SendBuf = static_cast<uint64_t *>(scratch((NOut + 1) * 8));
  auto *RecvBuf = static_cast<uint64_t *>(scratch((NIn + 1) * 8));
  int *Fill = static_cast<int *>(scratch(Size * sizeof(int)));
  memcpy(Fill, OutD, Size * sizeof(int));
  for (uint32_t I = 0; I < L->NEarly; ++I)
    SendBuf[Fill[L->Early[I].Src]++] = L->Early[I].Seq;
  PMPI_Alltoallv(SendBuf, Out, OutD, MPI_UINT64_T, RecvBuf, In, InD,
                 MPI_UINT64_T, Private);
  WE = static_cast<WasEarly *>(scratch(Size * sizeof(WasEarly)));
  WasEarlyLeft = 0;
  for (int Q = 0; Q < Size; ++Q) {
    WE[Q] = WasEarly();
    WE[Q].N = In[Q];
    WE[Q].Seqs = RecvBuf + InD[Q];
    // Sorted, so sends are matched in order.
    for (uint32_t A = 1; A < WE[Q].N; ++A)
      for (uint32_t B = A; B > 0 && WE[Q].Seqs[B - 1] > WE[Q].Seqs[B]; --B) {
        uint64_t T = WE[Q].Seqs[B];
        WE[Q].Seqs[B] = WE[Q].Seqs[B - 1];
        WE[Q].Seqs[B - 1] = T;
      }
    WasEarlyLeft += In[Q];
  }
  TRACE("%d epoch %u: %u early messages registered here, %llu sends to "
        "suppress",
        L->Rank, L->Epoch, L->NEarly, (unsigned long long)WasEarlyLeft);
  L->NEarly = 0;
  scratchFree(SendBuf);
  scratchFree(Fill);
  scratchFree(Out);
}

} // namespace

//===-- Sends and receives ------------------------------------------------===//

int nbSend(const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
           MPI_Comm C, int Kind) {
  nbProgress();
  MPI_Comm RC = realComm(C);
  MPI_Datatype RT = realType(Type);
  typedef int (*Fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
  static const Fn Fns[4] = {PMPI_Send, PMPI_Ssend, PMPI_Bsend, PMPI_Rsend};
  if (Dest == MPI_PROC_NULL)
    return Fns[Kind](Buf, Count, RT, Dest, Tag, RC);
  int W = worldRank(C, Dest);
  if (W < 0)
    return Fns[Kind](Buf, Count, RT, Dest, Tag, RC); // MPI reports the error
  if (suppress(W))
    return MPI_SUCCESS;
  int R;
  if (int N = packedBytes(Count, RT); N >= 0) {
    alignas(8) char Msg[kHeaderBytes + kPackMax];
    fillHeader(reinterpret_cast<uint32_t *>(Msg), W);
    memcpy(Msg + kHeaderBytes, Buf, N);
    R = Fns[Kind](Msg, kHeaderBytes + N, MPI_BYTE, Dest, Tag, RC);
  } else {
    uint32_t Hdr[2];
    fillHeader(Hdr, W);
    MPI_Datatype T = withHeader(Hdr, Buf, Count, RT);
    R = Fns[Kind](MPI_BOTTOM, 1, T, Dest, Tag, RC);
    PMPI_Type_free(&T);
  }
  if (R == MPI_SUCCESS)
    L->SentEp[W]++;
  return R;
}

int nbIsend(const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
            MPI_Comm C, int Kind, MPI_Request *Out) {
  nbProgress();
  MPI_Comm RC = realComm(C);
  MPI_Datatype RT = realType(Type);
  typedef int (*Fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                    MPI_Request *);
  static const Fn Fns[4] = {PMPI_Isend, PMPI_Issend, PMPI_Ibsend, PMPI_Irsend};
  Request *R;
  MPI_Request H = newRequest(ReqKind::Send, &R);
  R->Peer = Dest;
  R->Tag = Tag;
  R->Comm = C;
  int W = Dest == MPI_PROC_NULL ? -1 : worldRank(C, Dest);
  int Err;
  if (W < 0) {
    R->Raw = true;
    Err = Fns[Kind](Buf, Count, RT, Dest, Tag, RC, &R->Real);
  } else if (suppress(W)) {
    R->Done = true;
    R->Status.MPI_ERROR = MPI_SUCCESS;
    Err = MPI_SUCCESS;
  } else if (int N = packedBytes(Count, RT); N >= 0) {
    // The block lives until the request is released.
    auto *Msg = static_cast<char *>(saved(kHeaderBytes + N));
    R->Hdr = reinterpret_cast<uint32_t *>(Msg);
    R->Packed = true;
    fillHeader(R->Hdr, W);
    memcpy(Msg + kHeaderBytes, Buf, N);
    Err = Fns[Kind](Msg, kHeaderBytes + N, MPI_BYTE, Dest, Tag, RC, &R->Real);
    if (Err == MPI_SUCCESS)
      L->SentEp[W]++;
  } else {
    uint32_t *Hdr = headerOf(*R);
    fillHeader(Hdr, W);
    MPI_Datatype T = withHeader(Hdr, Buf, Count, RT);
    Err = Fns[Kind](MPI_BOTTOM, 1, T, Dest, Tag, RC, &R->Real);
    PMPI_Type_free(&T);
    if (Err == MPI_SUCCESS)
      L->SentEp[W]++;
  }
  if (Err != MPI_SUCCESS) {
    releaseRequest(H);
    return Err;
  }
  *Out = H;
  return MPI_SUCCESS;
}

int nbRecv(void *Buf, int Count, MPI_Datatype Type, int Src, int Tag,
           MPI_Comm C, MPI_Status *Status) {
  nbProgress();
  if (Message *M = takePending(C, Src, Tag, true))
    return deliver(M, Buf, Count, Type, Status);
  MPI_Status Local;
  MPI_Status *S = Status == MPI_STATUS_IGNORE ? &Local : Status;
  MPI_Datatype RT = realType(Type);
  if (Src == MPI_PROC_NULL)
    return PMPI_Recv(Buf, Count, RT, Src, Tag, realComm(C), S);
  uint64_t Op = ++L->RecvSeq;
  int PSrc = Src, PTag = Tag;
  if (Message *M = resolve(Op, C, &Src, &Tag))
    return deliver(M, Buf, Count, Type, Status);
  int R;
  if (int N = packedBytes(Count, RT); N >= 0) {
    alignas(8) char Msg[kHeaderBytes + kPackMax];
    R = PMPI_Recv(Msg, kHeaderBytes + N, MPI_BYTE, Src, Tag, realComm(C), S);
    if (messageArrived(R)) {
      unpackReceived(Msg, Buf, N, *S);
      classify(reinterpret_cast<uint32_t *>(Msg), C, PSrc, PTag, Op, *S,
               nullptr, 0, Buf, Type);
    }
    return R;
  }
  uint32_t Hdr[2];
  MPI_Datatype T = withHeader(Hdr, Buf, Count, RT);
  R = PMPI_Recv(MPI_BOTTOM, 1, T, Src, Tag, realComm(C), S);
  PMPI_Type_free(&T);
  if (messageArrived(R)) {
    stripHeader(*S);
    classify(Hdr, C, PSrc, PTag, Op, *S, nullptr, 0, Buf, Type);
  }
  return R;
}

// Posts receive request R (Op already assigned) to MPI, unless the log
// completes it.
static void postReceive(Request &R) {
  int Src = R.Peer, Tag = R.Tag;
  if (Message *M = resolve(R.Op, R.Comm, &Src, &Tag)) {
    deliver(M, R.Buf, R.Count, R.Type, &R.Status);
    R.Done = true;
    return;
  }
  if (Src == MPI_PROC_NULL) {
    R.Raw = true;
    PMPI_Irecv(R.Buf, R.Count, realType(R.Type), Src, Tag, realComm(R.Comm),
               &R.Real);
    return;
  }
  if (int N = packedBytes(R.Count, realType(R.Type)); N >= 0) {
    __ccc_free(R.Hdr);
    R.Hdr = static_cast<uint32_t *>(saved(kHeaderBytes + N));
    R.Packed = true;
    PMPI_Irecv(R.Hdr, kHeaderBytes + N, MPI_BYTE, Src, Tag, realComm(R.Comm),
               &R.Real);
    return;
  }
  R.Packed = false;
  uint32_t *Hdr = headerOf(R);
  MPI_Datatype T = withHeader(Hdr, R.Buf, R.Count, realType(R.Type));
  PMPI_Irecv(MPI_BOTTOM, 1, T, Src, Tag, realComm(R.Comm), &R.Real);
  PMPI_Type_free(&T);
}

int nbIrecv(void *Buf, int Count, MPI_Datatype Type, int Src, int Tag,
            MPI_Comm C, MPI_Request *Out) {
  nbProgress();
  Request *R;
  MPI_Request H = newRequest(ReqKind::Recv, &R);
  R->Buf = Buf;
  R->Count = Count;
  R->Type = Type;
  R->Peer = Src;
  R->Tag = Tag;
  R->Comm = C;
  if (Message *M = takePending(C, Src, Tag, true)) {
    deliver(M, Buf, Count, Type, &R->Status);
    R->Done = true;
    *Out = H;
    return MPI_SUCCESS;
  }
  if (Src != MPI_PROC_NULL)
    R->Op = ++L->RecvSeq;
  postReceive(*R);
  *Out = H;
  return MPI_SUCCESS;
}

void nbCompleted(Request &R, MPI_Status &S) {
  if (R.Raw || R.Kind != ReqKind::Recv)
    return;
  if (statusCancelled(S))
    return;
  if (R.Packed)
    unpackReceived(reinterpret_cast<char *>(R.Hdr), R.Buf,
                   packedBytes(R.Count, realType(R.Type)), S);
  else
    stripHeader(S);
  classify(headerOf(R), R.Comm, R.Peer, R.Tag, R.Op, S, nullptr, 0, R.Buf,
           R.Type);
}

// Probes see messages as the program would: the layer receives a probed
// message into L->Pending (classifying it then) and reports that.
bool nbProbe(int Src, int Tag, MPI_Comm C, bool Block, MPI_Status *Status) {
  nbProgress();
  if (Src == MPI_PROC_NULL) {
    int Flag = 1;
    if (Block)
      PMPI_Probe(Src, Tag, realComm(C), Status);
    else
      PMPI_Iprobe(Src, Tag, realComm(C), &Flag, Status);
    return Flag;
  }
  Event E = Block ? Event::Probe : Event::Iprobe;
  int64_t V[3];
  int NV;
  bool Replayed = replayEvent(E, V, 3, &NV);
  if (Replayed) {
    if (!V[0])
      return false;
    Src = (int)V[1];
    Tag = (int)V[2];
  }
  Message *M = takePending(C, Src, Tag, false);
  if (!M) {
    uint64_t Op = 0;
    int RSrc = Src, RTag = Tag;
    // A late message in the log is older than anything MPI holds.
    if (L->M == Mode::Restore) {
      Op = ++L->RecvSeq;
      M = resolve(Op, C, &RSrc, &RTag);
    }
    if (!M) {
      MPI_Status S;
      int Flag = 1;
      if (Block || Replayed)
        PMPI_Probe(RSrc, RTag, realComm(C), &S);
      else
        PMPI_Iprobe(RSrc, RTag, realComm(C), &Flag, &S);
      if (!Flag) {
        if (Op)
          --L->RecvSeq; // nothing received: no operation
        int64_t Zero = 0;
        logEvent(E, &Zero, 1);
        return false;
      }
      if (!Op)
        Op = ++L->RecvSeq;
      MPI_Count Bytes;
      PMPI_Get_elements_x(&S, MPI_BYTE, &Bytes);
      char *Raw = static_cast<char *>(scratch(Bytes));
      PMPI_Recv(Raw, (int)Bytes, MPI_BYTE, S.MPI_SOURCE, S.MPI_TAG, realComm(C),
                &S);
      uint32_t Hdr[2];
      memcpy(Hdr, Raw, kHeaderBytes);
      size_t Data = Bytes - kHeaderBytes;
      M = static_cast<Message *>(saved(sizeof(Message) + Data));
      M->Comm = C;
      M->Source = S.MPI_SOURCE;
      M->Tag = S.MPI_TAG;
      M->Bytes = Data;
      memcpy(M->Data, Raw + kHeaderBytes, Data);
      scratchFree(Raw);
      stripHeader(S);
      classify(Hdr, C, Src, Tag, Op, S, M->Data, Data, nullptr, MPI_BYTE);
    }
    (L->PendingTail ? L->PendingTail->Next : L->Pending) = M;
    L->PendingTail = M;
  }
  int64_t Got[3] = {1, M->Source, M->Tag};
  logEvent(E, Got, 3);
  if (Status != MPI_STATUS_IGNORE) {
    Status->MPI_SOURCE = M->Source;
    Status->MPI_TAG = M->Tag;
    Status->MPI_ERROR = MPI_SUCCESS;
    PMPI_Status_set_cancelled(Status, 0);
    PMPI_Status_set_elements_x(Status, MPI_BYTE, (MPI_Count)M->Bytes);
  }
  return true;
}

//===-- Collectives at their end points (C3, section 4.3) -----------------===//
//
// MPI's own collective moves the data. Before it every member publishes
// its header word (epoch, logging bit) with a small Allgather, so each
// receiving end point can classify each stream as a receive would. When
// the members' epochs differ the collective crossed a recovery line: the
// members past their checkpoint (all logging: none can have heard every
// Checkpoint-Initiated, the one from a member before its checkpoint is not
// sent yet) record the header words and the late streams' data. A restart
// re-executes that collective only on those members; they find the record
// and emulate it with point-to-point: late streams from the log, streams to
// members before their checkpoint suppressed, the rest sent on CollComm.
// Members whose epochs agree all re-execute it or none does, so they call
// MPI's collective again. Collective streams are counted like messages.

namespace {

int collTag(MPI_Comm C) {
  if (C == MPI_COMM_WORLD)
    return 1;
  if (C == MPI_COMM_SELF)
    return 2;
  Object *O = object(C);
  return O ? O->CollTag : 0;
}

size_t findColl(uint64_t Seq, MPI_Comm C) {
  if (L->M != Mode::Restore)
    return RP.N;
  for (size_t I = 0; I < RP.N; ++I)
    if (!RP.Used[I] && RP.Recs[I].Kind == RecKind::Coll &&
        RP.Recs[I].Op == Seq && RP.Recs[I].Comm == handleBits(C))
      return I;
  return RP.N;
}

// Classifies the streams of collective Seq once MPI completed it.
void classifyColl(MPI_Comm C, uint64_t Seq, int N, int Me, const uint32_t *Hdrs,
                  const CollBlock *In, const CollBlock *Out) {
  uint32_t Max = 0, Min = ~0u;
  for (int S = 0; S < N; ++S) {
    uint32_t E = Hdrs[S] >> 1;
    Max = E > Max ? E : Max;
    Min = E < Min ? E : Min;
  }
  bool Record = Min != Max && L->Epoch == Max;
  if (Record && L->M != Mode::NonDetLog && L->M != Mode::RecvOnlyLog)
    fatal("protocol error: collective across the line in mode %s",
          modeName(L->M));
  Buffer Data;
  if (Record)
    Data.append(Hdrs, N * sizeof(uint32_t));
  int NLate = 0, NEarly = 0;
  bool StopLogging = false;
  for (int S = 0; S < N; ++S) {
    if (S == Me || In[S].Count < 0)
      continue;
    int W = worldRank(C, S);
    uint32_t E = Hdrs[S] >> 1;
    if (E + 1 == L->Epoch) {
      L->LateGot[W]++;
      NLate++;
      MPI_Datatype T = realType(In[S].Type);
      int Cap;
      PMPI_Pack_size(In[S].Count, T, Private, &Cap);
      char *P = static_cast<char *>(scratch(Cap ? Cap : 1));
      int Pos = 0;
      PMPI_Pack(In[S].Buf, In[S].Count, T, P, Cap, &Pos, Private);
      uint64_t Len = Pos;
      Data.append(&Len, sizeof(Len));
      Data.append(P, Len);
      scratchFree(P);
    } else if (E == L->Epoch) {
      L->RecvEp[W]++;
      StopLogging |= L->M == Mode::NonDetLog && !(Hdrs[S] & 1);
    } else if (E == L->Epoch + 1) {
      L->EarlyEp[W]++;
      L->Initiated = true;
      NEarly++;
    } else {
      fatal("protocol error: collective with rank %d of epoch %u in epoch %u",
            W, E, L->Epoch);
    }
  }
  for (int D = 0; D < N; ++D)
    if (D != Me && Out[D].Count >= 0)
      L->SentEp[worldRank(C, D)]++;
  if (Record) {
    record(RecKind::Coll, 0, Seq, handleBits(C), 0, 0, Data.Data, Data.Len, 0);
    TRACE("%d epoch %u: collective %llu crossed the line: %d late streams "
          "logged",
          L->Rank, L->Epoch, (unsigned long long)Seq, NLate);
  }
  if (NEarly)
    TRACE("%d epoch %u: collective %llu: %d early streams", L->Rank, L->Epoch,
          (unsigned long long)Seq, NEarly);
  __libc_free(Data.Data);
  if (StopLogging)
    toRecvOnly("collective with a rank that stopped logging");
  if (NLate)
    checkPeriod();
}

// Re-executes collective record I on the members past the line.
void emulateColl(size_t I, MPI_Comm C, int N, int Me, const CollBlock *In,
                 const CollBlock *Out) {
  const char *P = RP.Payload[I];
  const uint32_t *Hdrs = reinterpret_cast<const uint32_t *>(P);
  const char *Q = P + N * sizeof(uint32_t);
  uint32_t Max = 0;
  for (int S = 0; S < N; ++S)
    Max = (Hdrs[S] >> 1) > Max ? Hdrs[S] >> 1 : Max;
  if (Max != L->Epoch || (Hdrs[Me] >> 1) != Max)
    fatal("restart replay diverged: a logged collective does not match this "
          "rank (is the program deterministic apart from MPI?)");
  int Tag = collTag(C);
  auto *Reqs = static_cast<MPI_Request *>(scratch(2 * N * sizeof(MPI_Request)));
  int NR = 0, FromLog = 0, Suppressed = 0;
  for (int S = 0; S < N; ++S) {
    if (S == Me || In[S].Count < 0)
      continue;
    MPI_Datatype T = realType(In[S].Type);
    if ((Hdrs[S] >> 1) != Max) {
      uint64_t Len;
      memcpy(&Len, Q, sizeof(Len));
      int Pos = 0;
      PMPI_Unpack(Q + sizeof(Len), (int)Len, &Pos, In[S].Buf, In[S].Count, T,
                  Private);
      Q += sizeof(Len) + Len;
      FromLog++;
    } else {
      PMPI_Irecv(In[S].Buf, In[S].Count, T, worldRank(C, S), Tag, CollComm,
                 &Reqs[NR++]);
      L->RecvEp[worldRank(C, S)]++;
    }
  }
  for (int D = 0; D < N; ++D) {
    if (D == Me || Out[D].Count < 0)
      continue;
    int W = worldRank(C, D);
    L->SentEp[W]++;
    if ((Hdrs[D] >> 1) == Max)
      PMPI_Isend(Out[D].Buf, Out[D].Count, realType(Out[D].Type), W, Tag,
                 CollComm, &Reqs[NR++]);
    else
      Suppressed++;
  }
  if (In[Me].Count >= 0 && Out[Me].Count >= 0)
    copyTyped(Out[Me].Buf, Out[Me].Count, Out[Me].Type, In[Me].Buf,
              In[Me].Count, In[Me].Type);
  PMPI_Waitall(NR, Reqs, MPI_STATUSES_IGNORE);
  scratchFree(Reqs);
  TRACE("%d epoch %u: collective %llu re-executed across the line: %d "
        "streams from the log, %d suppressed",
        L->Rank, L->Epoch, (unsigned long long)RP.Recs[I].Op, FromLog,
        Suppressed);
  use(I);
}

} // namespace

int nbCollective(MPI_Comm C, const CollBlock *In, const CollBlock *Out,
                 NativeColl Native, void *Arg, bool Carries) {
  nbProgress();
  MPI_Comm RC = realComm(C);
  int N, Me;
  PMPI_Comm_size(RC, &N);
  PMPI_Comm_rank(RC, &Me);
  uint32_t Mine = L->Epoch << 1 | (L->M == Mode::NonDetLog ? 1 : 0);
  if (N == 1) {
    uint32_t Hdr;
    return Native ? Native(Arg, Mine, &Hdr) : MPI_SUCCESS;
  }
  uint64_t Seq = L->CollSeq++;
  size_t I = findColl(Seq, C);
  if (I < RP.N) {
    emulateColl(I, C, N, Me, In, Out);
    return MPI_SUCCESS;
  }
  auto *Hdrs = static_cast<uint32_t *>(scratch(N * sizeof(uint32_t)));
  // Before MPI's collective, not alongside it: an Iallgather left pending
  // during a large MPI_Alltoallv made it 20 times slower (Open MPI 4.1).
  if (!Carries || !Native)
    PMPI_Allgather(&Mine, 1, MPI_UINT32_T, Hdrs, 1, MPI_UINT32_T, RC);
  int R = Native ? Native(Arg, Mine, Hdrs) : MPI_SUCCESS;
  if (R == MPI_SUCCESS)
    classifyColl(C, Seq, N, Me, Hdrs, In, Out);
  scratchFree(Hdrs);
  return R;
}

int contiguousBytes(int Count, MPI_Datatype RealType) {
  return packedBytes(Count, RealType);
}

int elementBytesIfContiguous(MPI_Datatype RealType) {
  return contiguousSize(RealType);
}

void forgetTypeShapes() {
  for (TypeShape &E : Shapes)
    E.Valid = false;
}

// A communicator made across the recovery line (some members of Parent past
// their checkpoint, others not) could not be made again on restart: the
// members before the line re-create it while restoring, the others only
// when they re-execute the call. Such a line is therefore not committed;
// the members past it say so and the previous version stays.
void nbCommCreation(MPI_Comm Parent) {
  MPI_Comm RC = realComm(Parent);
  int N;
  PMPI_Comm_size(RC, &N);
  auto *Eps = static_cast<uint32_t *>(scratch(N * sizeof(uint32_t)));
  PMPI_Allgather(&L->Epoch, 1, MPI_UINT32_T, Eps, 1, MPI_UINT32_T, RC);
  uint32_t Min = L->Epoch;
  for (int I = 0; I < N; ++I)
    Min = Eps[I] < Min ? Eps[I] : Min;
  scratchFree(Eps);
  // Epochs differ by one at most: the members past the line are those in
  // the larger one.
  if (Min < L->Epoch && TakeResult == kWritten) {
    logMessage("checkpoint %llu will not be committed: a communicator was "
               "created while some of its members had taken it and others "
               "not (it could not be re-created on restart)",
               (unsigned long long)(L->VersionBase + L->Epoch));
    TakeResult = kSaid;
  }
}

//===-- Nondeterministic outcomes -----------------------------------------===//

void logEvent(Event E, const int64_t *Vals, int NVals) {
  if (L->M != Mode::NonDetLog)
    return;
  record(RecKind::Event, (uint8_t)E, 0, 0, 0, 0, Vals, NVals * 8, NVals);
}

bool replayEvent(Event E, int64_t *Vals, int MaxVals, int *NVals) {
  if (L->M != Mode::Restore)
    return false;
  while (RP.NextEvent < RP.N && (RP.Recs[RP.NextEvent].Kind != RecKind::Event ||
                                 RP.Used[RP.NextEvent]))
    RP.NextEvent++;
  if (RP.NextEvent >= RP.N)
    return false;
  const Record &R = RP.Recs[RP.NextEvent];
  if (R.Ev != (uint8_t)E)
    fatal("restart replay diverged: the log has event %d where the program "
          "made call %d (is the program deterministic apart from MPI?)",
          R.Ev, (int)E);
  int N = R.NVals < MaxVals ? R.NVals : MaxVals;
  memcpy(Vals, RP.Payload[RP.NextEvent], N * 8);
  *NVals = R.NVals;
  static const char *const Names[] = {"Test",    "Testany", "Testsome",
                                      "Testall", "Waitany", "Waitsome",
                                      "Iprobe",  "Probe"};
  TRACE("%d epoch %u: %s outcome replayed from the log (%lld)", L->Rank,
        L->Epoch, Names[R.Ev], (long long)(N ? Vals[0] : 0));
  use(RP.NextEvent);
  return true;
}

//===-- Progress, sites ---------------------------------------------------===//

// Whether this rank takes part in a checkpoint still open: its period, or
// on rank 0 a commit still waiting for other ranks.
static bool checkpointOpen() {
  return L->M != Mode::Run || (L->Rank == 0 && CommittedEpoch < L->Epoch);
}

void nbLetMpiProgress() {
  int Flag;
  PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, Ctrl, &Flag, MPI_STATUS_IGNORE);
}

void nbProgress() {
  if (checkpointOpen())
    pollCtrl();
}

void nbInit() {
  NCtrlSlots = 2 * L->Size + 4;
  CtrlSends = static_cast<CtrlSend *>(scratch(NCtrlSlots * sizeof(CtrlSend)));
  for (int I = 0; I < NCtrlSlots; ++I)
    CtrlSends[I].Req = MPI_REQUEST_NULL;
  PMPI_Comm_dup(MPI_COMM_WORLD, &Ctrl);
  PMPI_Comm_dup(MPI_COMM_WORLD, &CollComm);
  if (L->SentEp)
    return; // restored state
  size_t S = L->Size;
  L->SentEp = static_cast<uint64_t *>(saved(S * 8));
  L->RecvEp = static_cast<uint64_t *>(saved(S * 8));
  L->EarlyEp = static_cast<uint64_t *>(saved(S * 8));
  L->LateGot = static_cast<uint64_t *>(saved(S * 8));
  L->LateWant = static_cast<int64_t *>(saved(S * 8));
  L->FutureWant = static_cast<int64_t *>(saved(S * 8));
  for (size_t Q = 0; Q < S; ++Q)
    L->LateWant[Q] = L->FutureWant[Q] = -1;
  L->M = Mode::Run;
  L->VersionBase = nextVersion() - 1;
  CommittedEpoch = 0;
}

// Take: null when the program is finishing and cannot checkpoint.
static int startCheckpoint(int (*Take)()) {
  int Size = L->Size;
  auto *OldSent = static_cast<uint64_t *>(scratch(Size * 8));
  memcpy(OldSent, L->SentEp, Size * 8);
  L->Epoch++;
  for (int Q = 0; Q < Size; ++Q) {
    L->LateGot[Q] = L->RecvEp[Q];
    L->RecvEp[Q] = L->EarlyEp[Q];
    L->EarlyEp[Q] = 0;
    L->SentEp[Q] = 0;
    L->LateWant[Q] = L->FutureWant[Q];
    L->FutureWant[Q] = -1;
  }
  L->LateWant[L->Rank] = (int64_t)OldSent[L->Rank]; // no message to ourself
  L->NCtrl = L->NFuture;
  L->NFuture = 0;
  L->Initiated = false;
  L->RecvSeq = 0;
  L->CollSeq = 0;
  // Receives open across the line are named by their table slot.
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    Request &R = L->Reqs[I];
    if (R.InUse && !R.Done && R.Kind == ReqKind::Recv)
      R.Op = kLineOp | I;
  }
  Log.clear();
  setMode(Mode::NonDetLog, "local checkpoint");
  setNextVersion(L->VersionBase + L->Epoch);
  // Tell the other ranks before writing the image: each then starts its own
  // checkpoint at its next site while this one writes (told afterwards,
  // ranks that wait for each other's messages wrote one after the other:
  // bench/coordination). Only free slots are used before the image, since
  // polling for control messages would change the state it saves.
  auto *Told = static_cast<bool *>(scratch(Size));
  for (int Q = 0; Q < Size; ++Q)
    Told[Q] = Q == L->Rank || trySendCtrl(Q, kTagInit, L->Epoch, OldSent[Q]);
  int R = Take ? Take() : CCC_NONE;
  __ccc_pending = 1; // the runtime clears it after each checkpoint
  if (R == CCC_RESTARTED)
    return R;    // (OldSent and Told were libc memory of the process that died)
  L->NEarly = 0; // the registry is in the image
  TakeResult = R == CCC_TAKEN ? kWritten : Take ? kWriteFailed : kFinished;
  for (int Q = 0; Q < Size; ++Q)
    if (!Told[Q])
      sendCtrl(Q, kTagInit, L->Epoch, OldSent[Q]);
  scratchFree(Told);
  scratchFree(OldSent);
  checkPeriod();
  return TakeResult == kWritten ? CCC_TAKEN : CCC_NONE;
}

// Whether a site in the Run mode should probe for control messages. They
// are rare (a few per checkpoint) and a probe at every site cost about
// 130 ns a site; so a site probes when the coarse clock has ticked (4 ms
// with HZ=250) since the last probe, which delays a rank's part in a
// checkpoint by at most a tick. Sites in a checkpoint period, and sites
// that want a checkpoint, always probe.
static bool controlProbeDue() {
  static int64_t Last = -1;
  timespec T;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &T);
  int64_t Now = (int64_t)T.tv_sec * 1000000000 + T.tv_nsec;
  if (Now == Last)
    return false;
  Last = Now;
  return true;
}

int siteNonBlocking(int Kind, int (*Take)()) {
  bool Want = Kind == CCC_SITE_FORCE || takeRequest() || WantNext;
  if (Want || L->Initiated || checkpointOpen() || controlProbeDue())
    pollCtrl();
  if (L->M != Mode::Run) {
    WantNext = Want; // served at a site after this period
    return CCC_NONE;
  }
  if (!Want && !L->Initiated)
    return CCC_NONE;
  WantNext = false;
  refuseIfUnsupported();
  return startCheckpoint(Take);
}

//===-- Restart -----------------------------------------------------------===//

bool nbCheckVersion(uint64_t Version, char *Why, size_t Cap) {
  size_t Len;
  char *D = readLogFile(Version, &Len, Why, Cap);
  scratchFree(D);
  return D != nullptr;
}

void nbAfterRestore() {
  uint64_t V = L->VersionBase + L->Epoch;
  nbInit();
  char Why[kPathMax + 64];
  size_t Len = 0;
  char *Data = readLogFile(V, &Len, Why, sizeof(Why));
  if (!Data)
    fatal("%s", Why); // checked before the restore began
  loadReplay(Data, Len);
  L->M = Mode::Restore;
  TRACE("%d epoch %u: restarting: %zu log records", L->Rank, L->Epoch, RP.N);
  exchangeEarly();
  for (int Q = 0; Q < L->Size; ++Q)
    L->LateWant[Q] = L->FutureWant[Q] = -1;
  L->NCtrl = L->NFuture = 0;
  L->Initiated = false;
  // Requests across the line: sends were sent (their receivers have the
  // message or its log); receives are posted again unless the log completes
  // them.
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    Request &R = L->Reqs[I];
    if (!R.InUse || R.Done)
      continue;
    R.Real = MPI_REQUEST_NULL;
    if (R.Kind == ReqKind::Send || R.Raw) {
      R.Done = true;
      memset(&R.Status, 0, sizeof(R.Status));
      if (R.Kind == ReqKind::Recv) { // MPI_PROC_NULL
        R.Status.MPI_SOURCE = MPI_PROC_NULL;
        R.Status.MPI_TAG = MPI_ANY_TAG;
      }
      continue;
    }
    postReceive(R);
    TRACE("%d epoch %u: receive request %u open across the line: %s", L->Rank,
          L->Epoch, I,
          R.Done ? "completed by a late message from the log" : "posted again");
  }
  maybeEndRestore();
  // Versions go on from the next one free on disk (agreed by all ranks).
  L->VersionBase = nextVersion() - L->Epoch - 1;
  CommittedEpoch = L->Epoch;
  Commits[0] = Commits[1] = Pending();
}

void nbFinalize() {
  // A rank that did not reach a site since another rank started a
  // checkpoint cannot save one now (a restart resumes at a site, not here):
  // it takes part in the counting without an image and reports kFinished,
  // so rank 0 abandons that version rather than call it a failed write.
  uint32_t Max = L->Epoch, Mine = L->Epoch;
  MPI_Request Req;
  PMPI_Iallreduce(&Mine, &Max, 1, MPI_UINT32_T, MPI_MAX, Ctrl, &Req);
  for (int Flag = 0; !Flag;) {
    pollCtrl();
    PMPI_Test(&Req, &Flag, MPI_STATUS_IGNORE);
  }
  if (Max > L->Epoch) {
    if (L->M == Mode::Restore)
      L->M = Mode::Run;
    TRACE("%d epoch %u: finishing without checkpoint %u", L->Rank, L->Epoch,
          Max);
    startCheckpoint(nullptr);
  }
  // Finish the checkpoint period (every late message was received by now,
  // or never will be), then let rank 0 decide the last commit.
  for (int Spin = 0; L->M == Mode::NonDetLog || L->M == Mode::RecvOnlyLog;
       ++Spin) {
    pollCtrl();
    if (L->M == Mode::RecvOnlyLog && L->NCtrl == L->Size - 1) {
      bool Missing = false;
      for (int Q = 0; Q < L->Size; ++Q)
        Missing |= L->LateGot[Q] < (uint64_t)L->LateWant[Q];
      if (Missing) {
        // Said once, by a rank whose part was otherwise complete.
        if (TakeResult == kWritten) {
          logMessage("checkpoint %llu not committed: the program finished "
                     "without receiving every message sent before it",
                     (unsigned long long)(L->VersionBase + L->Epoch));
          TakeResult = kSaid;
        }
        for (int Q = 0; Q < L->Size; ++Q)
          L->LateGot[Q] = (uint64_t)L->LateWant[Q];
        checkPeriod();
      }
    }
    if (Spin > 1000)
      usleep(1000);
  }
  if (L->M == Mode::Restore)
    L->M = Mode::Run;
  if (L->Rank == 0)
    while (CommittedEpoch < L->Epoch)
      pollCtrl(), usleep(200);
  for (int I = 0; I < NCtrlSlots; ++I)
    if (CtrlSends[I].Req != MPI_REQUEST_NULL)
      PMPI_Wait(&CtrlSends[I].Req, MPI_STATUS_IGNORE);
  PMPI_Barrier(Ctrl);
  PMPI_Comm_free(&Ctrl);
  PMPI_Comm_free(&CollComm);
}

} // namespace mpi
} // namespace ccc

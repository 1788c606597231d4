//===- ProtocolControl.cpp - the protocol's control messages --------------===//
//
// Part of the non-blocking protocol (Protocol.cpp): the messages the ranks
// exchange about a checkpoint, on the layer's own communicator. They travel
// on a tree of the world ranks (rank r's children are kFanout r + 1 ...
// kFanout r + kFanout), so a checkpoint costs O(P) messages in all and
// O(log P) hops, and no rank handles more than kFanout + 1 of a kind:
//
//   START(e)        the rank that begins checkpoint e on its own sends it to
//                   rank 0, which sends it down the tree: take checkpoint e
//                   at your next site.
//   INIT(e, k)      to each rank this one sent k > 0 messages in epoch e-1,
//                   synchronously (MPI_Issend): how many late messages to
//                   wait for. Ranks that exchanged nothing exchange nothing.
//   DONE(e, cuts)   up the tree once this rank took checkpoint e, its INITs
//                   were received and its children sent theirs; carries, per
//                   communicator, the least and largest number of
//                   collectives its members in the subtree had started at
//                   their checkpoints.
//   ALL(e, crossed) down from rank 0 once every rank is DONE: every rank has
//                   checkpointed and every INIT was received (no INIT from p:
//                   no late message from p), with the communicators whose
//                   collectives crossed the line and their largest cut.
//   LOGGED(e, o)    up the tree once this rank's period ended and its
//                   children reported; o is the worst outcome seen. Rank 0
//                   writes the commit record.
//   STOP(e)         down from rank 0 once checkpoint e is committed, if a
//                   rank had been sent SIGTERM when it took e (DONE carried
//                   that up, ALL down, so every rank keeps answering control
//                   messages until STOP): every rank exits with status 75.
//
// Messages from one rank to another arrive in the order sent (they are
// probed with MPI_ANY_TAG), so START(e) reaches a rank before ALL(e), and
// ALL(e) before START(e+1).
//
//===----------------------------------------------------------------------===//
#include "ProtocolInternal.h"
#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"
#include "rt/process/Parallel.h"
#include "rt/process/Supervision.h"
#include "rt/store/Store.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ccc {
namespace mpi {
namespace nb {

MPI_Comm Ctrl = MPI_COMM_NULL;
bool AllSeen;
CtrlCounts Counts;
uint32_t ForwardedEpoch; // highest LOGGED this rank sent up (rank 0: decided)
uint32_t StopEpoch;      // ALL said the job stops once this one is committed
// Rank 0: the versions it decided never to commit (0: none). A rank that
// finished takes no later checkpoint, so none after the first is
// committed: they are a range.
uint64_t AbandonedFirst, AbandonedLast;

namespace {

enum CtrlTag {
  kTagStart = 1,
  kTagInit,
  kTagDone,
  kTagAll,
  kTagLogged,
  kTagStop
};
constexpr int kFanout = 4;

int parentOf(int R) { return (R - 1) / kFanout; }
int firstChild(int R) { return R * kFanout + 1; }
int childCount(int R) {
  int64_t F = (int64_t)R * kFanout + 1;
  if (F >= L->Size)
    return 0;
  return L->Size - F < kFanout ? (int)(L->Size - F) : kFanout;
}

// Sends in flight, in libc memory (never part of an image).
struct CtrlSend {
  MPI_Request Req;
  uint64_t *Msg;
  int Tag;
  uint32_t Epoch;
};
CtrlSend *Sends;
int NSends, CapSends;

// One checkpoint's progress through the tree at this rank; two can be open
// (a rank's children may report LOGGED(e) while it is in epoch e+1), so
// they are kept by the epoch's parity.
struct Round {
  uint32_t Epoch;
  bool OwnCuts, DoneSent;
  bool Stop; // a rank of the subtree was sent SIGTERM before it took e
  int DoneKids, InitsOpen;
  Buffer Cuts; // CutEntry, sorted by key
  bool OwnLogged, LoggedSent;
  int LoggedKids, Finisher;
  Outcome Worst;
} Rounds[2];
uint32_t StartedEpoch; // highest START this rank sent down

Round &round(uint32_t E) {
  Round &R = Rounds[E % 2];
  if (R.Epoch != E) {
    __libc_free(R.Cuts.Data);
    R = Round();
    R.Epoch = E;
    R.Worst = kWritten;
  }
  return R;
}

void send(int To, int Tag, uint32_t Epoch, const uint64_t *Msg, int N,
          bool Sync) {
  int I = 0;
  while (I < NSends && Sends[I].Req != MPI_REQUEST_NULL)
    ++I;
  if (I == NSends) {
    if (NSends == CapSends) {
      int Cap = CapSends ? 2 * CapSends : 16;
      auto *S = static_cast<CtrlSend *>(scratch(Cap * sizeof(CtrlSend)));
      if (NSends)
        memcpy(S, Sends, NSends * sizeof(CtrlSend));
      scratchFree(Sends);
      Sends = S;
      CapSends = Cap;
    }
    Sends[NSends++].Msg = nullptr;
  }
  CtrlSend &S = Sends[I];
  scratchFree(S.Msg);
  S.Msg = static_cast<uint64_t *>(scratch(N * sizeof(uint64_t)));
  memcpy(S.Msg, Msg, N * sizeof(uint64_t));
  S.Tag = Tag;
  S.Epoch = Epoch;
  if (Sync)
    PMPI_Issend(S.Msg, N, MPI_UINT64_T, To, Tag, Ctrl, &S.Req);
  else
    PMPI_Isend(S.Msg, N, MPI_UINT64_T, To, Tag, Ctrl, &S.Req);
  Counts.Msgs++;
  Counts.Bytes += N * sizeof(uint64_t);
}

void tryDone(uint32_t E);

// Completed sends free their slot; a completed INIT was received.
void reapSends() {
  for (int I = 0; I < NSends; ++I) {
    CtrlSend &S = Sends[I];
    if (S.Req == MPI_REQUEST_NULL)
      continue;
    int Flag;
    PMPI_Test(&S.Req, &Flag, MPI_STATUS_IGNORE);
    if (Flag && S.Tag == kTagInit) {
      Round &R = round(S.Epoch);
      R.InitsOpen--;
      tryDone(S.Epoch);
    }
  }
}

void forwardStart(uint32_t E) {
  if (E <= StartedEpoch)
    return;
  StartedEpoch = E;
  uint64_t Msg = E;
  for (int K = 0, C = firstChild(L->Rank); K < childCount(L->Rank); ++K)
    send(C + K, kTagStart, E, &Msg, 1, false);
}

void onStart(int From, uint32_t E) {
  if (L->Rank != 0 && From != parentOf(L->Rank))
    fatal("protocol error: START from rank %d, not this rank's parent", From);
  forwardStart(E);
  if (E == L->Epoch + 1 && !L->Initiated) {
    L->Initiated = true;
    TRACE("%d epoch %u: checkpoint %u started", L->Rank, L->Epoch, E);
  }
}

void onInit(int From, uint32_t Epoch, uint64_t Count) {
  if (Epoch == L->Epoch && L->LateWant[From] < 0) {
    L->LateWant[From] = (int64_t)Count;
    TRACE("%d epoch %u: Checkpoint-Initiated from %d (%llu sent to us)",
          L->Rank, L->Epoch, From, (unsigned long long)Count);
    checkPeriod();
  } else if (Epoch == L->Epoch + 1 && L->FutureWant[From] < 0) {
    L->FutureWant[From] = (int64_t)Count;
    L->Initiated = true;
    TRACE("%d epoch %u: rank %d started checkpoint %u", L->Rank, L->Epoch, From,
          Epoch);
  } else {
    fatal("protocol error: Checkpoint-Initiated of epoch %u from rank %d in "
          "epoch %u",
          Epoch, From, L->Epoch);
  }
}

// Merges sorted cut entries B into R's.
void mergeCuts(Round &R, const CutEntry *B, size_t NB) {
  const CutEntry *A = reinterpret_cast<const CutEntry *>(R.Cuts.Data);
  size_t NA = R.Cuts.Len / sizeof(CutEntry);
  Buffer Out;
  size_t I = 0, J = 0;
  while (I < NA || J < NB) {
    CutEntry E;
    if (J == NB || (I < NA && A[I].Key < B[J].Key)) {
      E = A[I++];
    } else if (I == NA || B[J].Key < A[I].Key) {
      E = B[J++];
    } else {
      E = A[I++];
      E.Min = B[J].Min < E.Min ? B[J].Min : E.Min;
      E.Max = B[J].Max > E.Max ? B[J].Max : E.Max;
      ++J;
    }
    Out.append(&E, sizeof(E));
  }
  __libc_free(R.Cuts.Data);
  R.Cuts = Out;
}

void onAll(uint32_t E, const uint64_t *Crossed, size_t N, bool Stop);

void tryDone(uint32_t E) {
  Round &R = round(E);
  if (R.DoneSent || !R.OwnCuts || R.InitsOpen > 0 ||
      R.DoneKids < childCount(L->Rank))
    return;
  R.DoneSent = true;
  size_t NC = R.Cuts.Len / sizeof(CutEntry);
  const CutEntry *C = reinterpret_cast<const CutEntry *>(R.Cuts.Data);
  if (L->Rank != 0) {
    Buffer Msg;
    uint64_t Head[3] = {E, NC, R.Stop};
    Msg.append(Head, sizeof(Head));
    Msg.append(C, NC * sizeof(CutEntry));
    send(parentOf(L->Rank), kTagDone, E, reinterpret_cast<uint64_t *>(Msg.Data),
         (int)(Msg.Len / 8), false);
    __libc_free(Msg.Data);
    return;
  }
  // Rank 0: every rank has checkpointed. Communicators whose members'
  // cuts differ had collectives across the line.
  Buffer Crossed;
  for (size_t I = 0; I < NC; ++I)
    if (C[I].Min != C[I].Max) {
      uint64_t KV[2] = {C[I].Key, C[I].Max};
      Crossed.append(KV, sizeof(KV));
    }
  onAll(E, reinterpret_cast<uint64_t *>(Crossed.Data), Crossed.Len / 16,
        R.Stop);
  __libc_free(Crossed.Data);
}

void onDone(int From, uint32_t E, const uint64_t *Msg, size_t N) {
  if (parentOf(From) != L->Rank || N < 2 || Msg[0] * 3 != N - 2)
    fatal("protocol error: malformed DONE from rank %d", From);
  Round &R = round(E);
  R.Stop |= Msg[1] != 0;
  mergeCuts(R, reinterpret_cast<const CutEntry *>(Msg + 2), Msg[0]);
  R.DoneKids++;
  tryDone(E);
}

void onAll(uint32_t E, const uint64_t *Crossed, size_t N, bool Stop) {
  if (E != L->Epoch)
    fatal("protocol error: ALL of epoch %u in epoch %u", E, L->Epoch);
  if (Stop)
    StopEpoch = E;
  Buffer Msg;
  uint64_t Head[3] = {E, N, Stop};
  Msg.append(Head, sizeof(Head));
  Msg.append(Crossed, N * 16);
  for (int K = 0, C = firstChild(L->Rank); K < childCount(L->Rank); ++K)
    send(C + K, kTagAll, E, reinterpret_cast<uint64_t *>(Msg.Data),
         (int)(Msg.Len / 8), false);
  __libc_free(Msg.Data);
  // Every INIT was received before this: no INIT, no late message.
  for (int Q = 0; Q < L->Size; ++Q)
    if (L->LateWant[Q] < 0)
      L->LateWant[Q] = 0;
  AllSeen = true;
  TRACE("%d epoch %u: every rank has taken checkpoint %u", L->Rank, L->Epoch,
        E);
  collApplyCuts(Crossed, N);
  if (L->M == Mode::NonDetLog)
    setMode(Mode::RecvOnlyLog, "every rank has started this checkpoint");
  checkPeriod();
}

// STOP(E) to this rank's children, then this rank ends.
[[noreturn]] void stopJob(uint32_t E) {
  uint64_t Msg = E;
  for (int K = 0, C = firstChild(L->Rank); K < childCount(L->Rank); ++K)
    send(C + K, kTagStop, E, &Msg, 1, false);
  for (int I = 0; I < NSends; ++I)
    if (Sends[I].Req != MPI_REQUEST_NULL)
      PMPI_Wait(&Sends[I].Req, MPI_STATUS_IGNORE);
  exitStopped(L->VersionBase + E);
}

void decide(uint32_t E, Outcome Worst, int Finisher) {
  uint64_t V = L->VersionBase + E;
  bool Committed = false;
  if (Worst == kFinished)
    abandonVersion(V, Finisher);
  else if (Worst != kSaid) // kSaid: the rank printed why
    Committed =
        commitVersion(V, Worst == kWritten, "its image or its message log");
  if (StopEpoch == E) {
    if (Committed)
      stopJob(E);
    // The job goes on; a rank sent SIGTERM asks again at its next site.
    logMessage("SIGTERM: checkpoint %llu was not committed, the job goes on",
               (unsigned long long)V);
    StopEpoch = 0;
  }
}

void tryLogged(uint32_t E) {
  Round &R = round(E);
  if (R.LoggedSent || !R.OwnLogged || R.LoggedKids < childCount(L->Rank))
    return;
  R.LoggedSent = true;
  if (E > ForwardedEpoch)
    ForwardedEpoch = E;
  if (L->Rank == 0) {
    decide(E, R.Worst, R.Finisher);
    return;
  }
  uint64_t Msg[3] = {E, R.Worst, (uint64_t)R.Finisher};
  send(parentOf(L->Rank), kTagLogged, E, Msg, 3, false);
}

void onLogged(int From, uint32_t E, Outcome O, int Finisher) {
  if (parentOf(From) != L->Rank)
    fatal("protocol error: LOGGED from rank %d, not a child", From);
  Round &R = round(E);
  if (O == kFinished)
    R.Finisher = Finisher;
  R.Worst = O > R.Worst ? O : R.Worst;
  R.LoggedKids++;
  tryLogged(E);
}

} // namespace

// Rank 0: version V will never be committed because rank Finisher ended
// the program without taking it. Nothing was lost (the program finished),
// so the job log says nothing at the default verbosity. Every rank deletes
// its own image and log of V at the end of ctrlFinish (every rank
// reported, none writes them any more), so no uncommitted version stays
// behind and rank 0 does not unlink 2P files alone.
void abandonVersion(uint64_t V, int Finisher) {
  if (!AbandonedFirst)
    AbandonedFirst = V;
  AbandonedLast = V;
  CCC_INFO("checkpoint %llu abandoned: rank %d reached MPI_Finalize before "
           "taking it; the program finished, the previous committed "
           "checkpoint is kept",
           (unsigned long long)V, Finisher);
}

bool ctrlStopping() { return StopEpoch != 0; }

void ctrlInit(uint32_t Epoch) {
  if (Ctrl == MPI_COMM_NULL)
    PMPI_Comm_dup(MPI_COMM_WORLD, &Ctrl);
  for (Round &R : Rounds) {
    __libc_free(R.Cuts.Data);
    R = Round();
  }
  StartedEpoch = ForwardedEpoch = Epoch;
  StopEpoch = 0;
  AllSeen = false;
}

bool ctrlOpen() { return ForwardedEpoch < L->Epoch; }

void pollCtrl() {
  reapSends();
  for (;;) {
    int Flag;
    MPI_Status S;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, Ctrl, &Flag, &S);
    if (!Flag)
      return;
    int N;
    PMPI_Get_count(&S, MPI_UINT64_T, &N);
    uint64_t Small[4];
    uint64_t *Msg = N <= 4 ? Small : static_cast<uint64_t *>(scratch(N * 8));
    PMPI_Recv(Msg, N, MPI_UINT64_T, S.MPI_SOURCE, S.MPI_TAG, Ctrl,
              MPI_STATUS_IGNORE);
    Counts.MsgsIn++;
    uint32_t E = (uint32_t)Msg[0];
    switch (S.MPI_TAG) {
    case kTagStart:
      onStart(S.MPI_SOURCE, E);
      break;
    case kTagInit:
      onInit(S.MPI_SOURCE, E, Msg[1]);
      break;
    case kTagDone:
      onDone(S.MPI_SOURCE, E, Msg + 1, N - 1);
      break;
    case kTagAll:
      if (N < 3 || Msg[1] * 2 != (uint64_t)N - 3)
        fatal("protocol error: malformed ALL");
      onAll(E, Msg + 3, Msg[1], Msg[2] != 0);
      break;
    case kTagStop:
      if (S.MPI_SOURCE != parentOf(L->Rank) || E != StopEpoch)
        fatal("protocol error: STOP of epoch %u from rank %d", E,
              S.MPI_SOURCE);
      stopJob(E);
    case kTagLogged:
      onLogged(S.MPI_SOURCE, E, (Outcome)Msg[1], (int)Msg[2]);
      break;
    default:
      fatal("protocol error: control message with tag %d", S.MPI_TAG);
    }
    if (Msg != Small)
      scratchFree(Msg);
  }
}

void ctrlCheckpointStarted(bool OnItsOwn, const uint64_t *OldSent) {
  uint32_t E = L->Epoch;
  Round &R = round(E);
  if (L->Rank == 0)
    forwardStart(E);
  else if (OnItsOwn) {
    uint64_t Msg = E;
    send(0, kTagStart, E, &Msg, 1, false);
    Counts.StartsUp++;
  }
  for (int Q = 0; Q < L->Size; ++Q)
    if (Q != L->Rank && OldSent[Q] > 0) {
      uint64_t Msg[2] = {E, OldSent[Q]};
      send(Q, kTagInit, E, Msg, 2, true);
      Counts.Inits++;
      R.InitsOpen++;
    }
}

void ctrlCheckpointWritten(const Buffer &Cuts) {
  uint32_t E = L->Epoch;
  Round &R = round(E);
  mergeCuts(R, reinterpret_cast<const CutEntry *>(Cuts.Data),
            Cuts.Len / sizeof(CutEntry));
  R.OwnCuts = true;
  R.Stop |= stopRequested();
  tryDone(E);
}

void ctrlPeriodEnded(Outcome O) {
  Round &R = round(L->Epoch);
  R.OwnLogged = true;
  if (O == kFinished)
    R.Finisher = L->Rank;
  R.Worst = O > R.Worst ? O : R.Worst;
  tryLogged(L->Epoch);
}

void ctrlFinish() {
  while (ctrlOpen()) {
    pollCtrl();
    usleep(200);
  }
  for (int I = 0; I < NSends; ++I)
    if (Sends[I].Req != MPI_REQUEST_NULL)
      PMPI_Wait(&Sends[I].Req, MPI_STATUS_IGNORE);
  // Rank 0 has decided every version (its ctrlOpen ended): those it
  // abandoned, if any, go to every rank, which deletes its own files of
  // them. A broadcast where a barrier was: the ranks wait for rank 0 as
  // before, and none unlinks more than its own files.
  uint64_t Range[2] = {0, 0};
  if (L->Rank == 0) {
    Range[0] = AbandonedFirst;
    Range[1] = AbandonedLast;
  }
  PMPI_Bcast(Range, 2, MPI_UINT64_T, 0, Ctrl);
  for (uint64_t V = Range[0]; V && V <= Range[1]; ++V) {
    char Path[kPathMax];
    imagePath(Path, imageDir(), storeName(), V, L->Rank);
    unlink(Path);
    logPath(Path, imageDir(), storeName(), V, L->Rank);
    unlink(Path);
  }
  AbandonedFirst = AbandonedLast = 0;
  PMPI_Comm_free(&Ctrl);
}

// CCC_MPI_COUNTS=FILE: one line per rank, appended at MPI_Finalize after
// the rank's last control message (one write, so lines of different ranks
// do not mix), for bench/mpi.
void reportCounts() {
  const char *Path = getenv("CCC_MPI_COUNTS");
  if (!Path || !*Path)
    return;
  uint64_t Colls = L->WorldColl.N;
  for (uint32_t I = 0; I < L->NObjs; ++I)
    if (L->Objs[I].Kind == ObjKind::Comm)
      Colls += L->Objs[I].Coll.N;
  char Line[320];
  int N = snprintf(
      Line, sizeof(Line),
      "rank %d size %d checkpoints %u ctrl_msgs %llu ctrl_bytes "
      "%llu ctrl_msgs_in %llu collectives %llu "
      "coll_logged_bytes %llu ctrl_starts_up %llu ctrl_inits "
      "%llu\n",
      L->Rank, L->Size, L->Epoch, (unsigned long long)Counts.Msgs,
      (unsigned long long)Counts.Bytes, (unsigned long long)Counts.MsgsIn,
      (unsigned long long)Colls, (unsigned long long)collLoggedBytes(),
      (unsigned long long)Counts.StartsUp, (unsigned long long)Counts.Inits);
  int Fd = open(Path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (Fd < 0 || write(Fd, Line, N) != N)
    logMessage("CCC_MPI_COUNTS: cannot append to %s: %s", Path,
               strerror(errno));
  if (Fd >= 0)
    close(Fd);
}

} // namespace nb
} // namespace mpi
} // namespace ccc

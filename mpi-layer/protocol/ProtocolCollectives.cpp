//===- ProtocolCollectives.cpp - collectives across the recovery line -----===//
//
// Part of the non-blocking protocol (Protocol.cpp). Every collective is
// MPI's own call on the program's arguments, so its results are the bits a
// build without ccc computes, and the layer adds no message to it. What
// the protocol needs is counted instead: each rank numbers the collectives
// it starts on each communicator (CollCount::N, saved in its image), and at
// its checkpoint records that number, its cut. Collective s on C crossed
// the recovery line when some members' cuts exceed s (they called it
// before their checkpoint and will not call it again) and others' do not
// (they called it after theirs and re-execute it after a restart). As in
// C3, the members past their checkpoint log what they received, here the
// collective's outputs; re-executing it is copying them back, no MPI at
// all, so the members before the line are not needed.
//
// A rank learns the other members' cuts from the control messages (DONE
// gathers them up the tree, ALL brings back the communicators whose
// members' cuts differ, ProtocolControl.cpp). Until then it logs the
// outputs of every collective it completes; then it drops those that did
// not cross and keeps logging, for each communicator C that crossed, until
// it has started as many collectives on C as the member furthest ahead
// (its debt). A non-blocking collective open at its checkpoint is always
// logged when it completes: no member starts it again. Its period (and so
// the commit) waits for all of that.
//
//===----------------------------------------------------------------------===//
#include "ProtocolInternal.h"
#include "mpi-layer/Layer.h"
#include "mpi-layer/objects/CommunicatorCalls.h"

#include "rt/common/Log.h"

#include <climits>
#include <cstddef>
#include <cstring>

namespace ccc {
namespace mpi {
using namespace nb;

namespace nb {
bool LogAll;    // from this rank's checkpoint until ALL
uint32_t Debts; // communicators with N < Max

uint64_t keyOf(const Object &O) {
  if (O.Key)
    return O.Key;
  int Low = O.WorldRanks[0];
  for (int I = 1; I < O.Size; ++I)
    Low = O.WorldRanks[I] < Low ? O.WorldRanks[I] : Low;
  return (uint64_t)(uint32_t)O.CollTag << 32 | (uint32_t)Low;
}
} // namespace nb

namespace {

uint32_t OpenLogged; // requests to log when they complete
uint64_t LoggedBytes;

MPI_Aint extentOf(MPI_Datatype T) {
  MPI_Aint Lb, Ext;
  PMPI_Type_get_extent(realType(T), &Lb, &Ext);
  return Ext;
}

// Calls F(Buf, Count, Type) for each output block of O.
template <typename F> void forEachBlock(const CollOutputs &O, F Fn) {
  char *B = static_cast<char *>(O.Buf);
  switch (O.S) {
  case CollOutputs::None:
    return;
  case CollOutputs::One:
    Fn(O.Buf, O.Count, O.Type);
    return;
  case CollOutputs::Blocks: {
    MPI_Aint Ext = extentOf(O.Type);
    const int *D = static_cast<const int *>(O.Displs);
    for (int I = 0; I < O.N; ++I)
      Fn(B + (MPI_Aint)D[I] * Ext, O.Counts[I], O.Type);
    return;
  }
  case CollOutputs::BlocksW: {
    const int *D = static_cast<const int *>(O.Displs);
    for (int I = 0; I < O.N; ++I)
      Fn(B + D[I], O.Counts[I], O.Types[I]);
    return;
  }
  case CollOutputs::BlocksWA: {
    const MPI_Aint *D = static_cast<const MPI_Aint *>(O.Displs);
    for (int I = 0; I < O.N; ++I)
      Fn(B + D[I], O.Counts[I], O.Types[I]);
    return;
  }
  }
}

// Appends the record of collective Seq on C: its outputs, packed.
void logOutputs(MPI_Comm C, uint64_t Seq, const CollOutputs &O,
                bool OpenAtLine) {
  size_t At = Log.Len;
  record(RecKind::Coll, OpenAtLine ? 1 : 0, Seq, handleBits(C), 0, 0, nullptr,
         0, 0);
  forEachBlock(O, [&](void *Buf, int Count, MPI_Datatype T) {
    MPI_Datatype RT = realType(T);
    int Size = Count > 0 ? elementBytesIfContiguous(RT) : 0;
    uint64_t Len;
    if (Size >= 0) {
      Len = (uint64_t)Size * (Count > 0 ? Count : 0);
      Log.append(&Len, sizeof(Len));
      Log.append(Buf, Len);
      return;
    }
    int Cap;
    PMPI_Pack_size(Count, RT, Private, &Cap);
    char *P = static_cast<char *>(scratch(Cap ? Cap : 1));
    int Pos = 0;
    PMPI_Pack(Buf, Count, RT, P, Cap, &Pos, Private);
    Len = Pos;
    Log.append(&Len, sizeof(Len));
    Log.append(P, Len);
    scratchFree(P);
  });
  uint64_t Bytes = Log.Len - At - sizeof(Record);
  memcpy(Log.Data + At + offsetof(Record, Bytes), &Bytes, sizeof(Bytes));
  LoggedBytes += Bytes;
}

// Writes record I's outputs back into O.
void restoreOutputs(size_t I, const CollOutputs &O) {
  // The blocks were checked to lie within the record (readMessageLog).
  const char *P = RP.Payload[I], *End = P + RP.Recs[I].Bytes;
  forEachBlock(O, [&](void *Buf, int Count, MPI_Datatype T) {
    const char *Block;
    uint64_t Len;
    if (!nextCollBlock(P, End, &Block, &Len))
      fatal("restart replay diverged: a logged collective has fewer outputs "
            "than this call (is the program deterministic apart from MPI?)");
    MPI_Datatype RT = realType(T);
    int Size = Count > 0 ? elementBytesIfContiguous(RT) : 0;
    if (Size >= 0) {
      if (Len != (uint64_t)Size * (Count > 0 ? Count : 0))
        fatal("restart replay diverged: a logged collective's output has "
              "another size than this call's");
      memcpy(Buf, Block, Len);
    } else {
      if (Len > INT_MAX)
        fatal("restart replay diverged: a logged collective's output of %llu "
              "bytes is more than this call can take",
              (unsigned long long)Len);
      int Pos = 0;
      PMPI_Unpack(Block, (int)Len, &Pos, Buf, Count, RT, Private);
    }
  });
}

size_t findColl(uint64_t Seq, MPI_Comm C) {
  for (size_t I = 0; I < RP.N; ++I)
    if (!RP.Used[I] && RP.Recs[I].Kind == RecKind::Coll &&
        RP.Recs[I].Op == Seq && RP.Recs[I].Comm == handleBits(C))
      return I;
  return RP.N;
}

// Whether collective Seq on the communicator of handle bits H is one this
// rank must log: it crossed the line (ALL said so) and this rank started it
// after its checkpoint.
bool crossed(uint64_t H, uint64_t Seq) {
  CollCount *K = collCounter(handleFromBits<MPI_Comm>(H));
  return K && Seq >= K->Cut && Seq < K->Max;
}

template <typename F> void forEachCounter(F Fn) {
  if (L->Size > 1)
    Fn(L->WorldColl, kWorldKey, true);
  for (uint32_t I = 0; I < L->NObjs; ++I) {
    Object &O = L->Objs[I];
    if (O.Kind == ObjKind::Comm && collCounted(O))
      Fn(O.Coll, keyOf(O), O.Live || O.FreedEpoch + 1 == L->Epoch);
  }
}

// Numbers a collective this rank starts on K's communicator.
uint64_t countStart(CollCount &K) {
  uint64_t Seq = K.N++;
  if (K.N == K.Max && L->M != Mode::Restore) {
    Debts--;
    TRACE("%d epoch %u: caught up with the collectives that crossed the line "
          "on a communicator",
          L->Rank, L->Epoch);
  }
  return Seq;
}

void idupCrossed() {
  if (TakeResult != kWritten)
    return;
  logMessage("checkpoint %llu will not be committed: a communicator was "
             "created (MPI_Comm_idup) while some of its members had taken it "
             "and others not",
             (unsigned long long)(L->VersionBase + L->Epoch));
  TakeResult = kSaid;
}

} // namespace

bool nbCollStart(MPI_Comm C, OutputsFn Outputs, void *Arg, uint64_t *Seq,
                 bool *Log) {
  nbProgress();
  CollCount *K = collCounter(C);
  *Log = false;
  if (!K)
    return false;
  *Seq = countStart(*K);
  if (L->M == Mode::Restore) {
    size_t I = findColl(*Seq, C);
    if (I == RP.N)
      return false;
    restoreOutputs(I, Outputs(Arg));
    TRACE("%d epoch %u: collective %llu re-executed from the log", L->Rank,
          L->Epoch, (unsigned long long)*Seq);
    use(I);
    maybeEndRestore();
    return true;
  }
  *Log = LogAll || *Seq < K->Max;
  return false;
}

uint64_t nbIdupStarted(MPI_Comm C) {
  nbProgress();
  refuseInterIdup(C);
  CollCount *K = collCounter(C);
  if (!K)
    return 0; // one member: nothing to agree on, no key needed
  uint64_t Seq = countStart(*K);
  if (L->M != Mode::Restore) {
    if (Seq < K->Max) // the cuts are known: others started it before theirs
      idupCrossed();
    else if (LogAll && !K->FirstIdup) // the cuts will tell (collApplyCuts)
      K->FirstIdup = Seq + 1;
  }
  // Distinct from the tag-based keys (bit 63) and, but for a 2^-63 chance,
  // from other derived ones; the same at every member.
  uint64_t Parent = C == MPI_COMM_WORLD ? kWorldKey : keyOf(*object(C));
  uint64_t X = Parent ^ (Seq + 1) * 0x9e3779b97f4a7c15ULL;
  X ^= X >> 31;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 29;
  return X | 1ULL << 63;
}

void nbCollLog(MPI_Comm C, uint64_t Seq, const CollOutputs &O,
               bool OpenAtLine) {
  logOutputs(C, Seq, O, OpenAtLine);
  if (!LogAll)
    checkPeriod(); // a debt may be paid
}

void nbCollCompleted(Request &R) {
  if (!R.LogIt)
    return;
  R.LogIt = false;
  logOutputs(R.Comm, R.CollSeq, R.Outs, R.OpenAtLine);
  OpenLogged--;
  checkPeriod();
}

void nbCollPending(int Delta) { OpenLogged += Delta; }

namespace nb {

void collCheckpoint(Buffer &Cuts) {
  LogAll = true;
  Debts = 0;
  forEachCounter([&](CollCount &K, uint64_t Key, bool Tell) {
    K.Cut = K.N;
    K.Max = 0;
    K.FirstIdup = 0;
    if (!Tell)
      return;
    CutEntry E = {Key, K.N, K.N};
    Cuts.append(&E, sizeof(E));
  });
  // Sorted by key (few entries: insertion sort).
  auto *E = reinterpret_cast<CutEntry *>(Cuts.Data);
  size_t N = Cuts.Len / sizeof(CutEntry);
  for (size_t A = 1; A < N; ++A)
    for (size_t B = A; B > 0 && E[B - 1].Key > E[B].Key; --B) {
      CutEntry T = E[B];
      E[B] = E[B - 1];
      E[B - 1] = T;
    }
  // Non-blocking collectives open now: nobody starts them again.
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    Request &R = L->Reqs[I];
    if (R.InUse && !R.Done && R.Kind == ReqKind::Coll && R.HasOuts) {
      R.OpenAtLine = true;
      if (!R.LogIt)
        OpenLogged++;
      R.LogIt = true;
    }
  }
}

void collApplyCuts(const uint64_t *Crossed, size_t N) {
  LogAll = false;
  int Communicators = 0;
  forEachCounter([&](CollCount &K, uint64_t Key, bool) {
    for (size_t I = 0; I < N; ++I)
      if (Crossed[2 * I] == Key) {
        K.Max = Crossed[2 * I + 1];
        Communicators++;
        if (K.N < K.Max)
          Debts++;
        if (K.FirstIdup && K.FirstIdup - 1 < K.Max)
          idupCrossed();
      }
  });
  // Keep the records of the collectives that crossed the line.
  size_t Out = 0, Kept = 0;
  for (size_t Off = 0; Off < Log.Len;) {
    Record R;
    memcpy(&R, Log.Data + Off, sizeof(R));
    size_t Len = sizeof(Record) + R.Bytes;
    bool Keep = R.Kind != RecKind::Coll || R.Ev == 1 || crossed(R.Comm, R.Op);
    if (Keep) {
      if (Out != Off)
        memmove(Log.Data + Out, Log.Data + Off, Len);
      Out += Len;
      Kept += R.Kind == RecKind::Coll;
    } else {
      LoggedBytes -= R.Bytes;
    }
    Off += Len;
  }
  Log.Len = Out;
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    Request &R = L->Reqs[I];
    if (R.InUse && R.Kind == ReqKind::Coll && R.LogIt && !R.OpenAtLine &&
        !crossed(handleBits(R.Comm), R.CollSeq)) {
      R.LogIt = false;
      OpenLogged--;
    }
  }
  if (Communicators)
    TRACE("%d epoch %u: collectives across the line: %zu results logged, "
          "%u communicators to catch up on",
          L->Rank, L->Epoch, Kept, Debts);
}

bool collDebtsPaid() { return Debts == 0 && OpenLogged == 0; }

void collForgiveDebts() {
  Debts = 0;
  OpenLogged = 0;
  for (uint32_t I = 0; I < L->NReqs; ++I)
    L->Reqs[I].LogIt = false;
}

void collRestoreOpen(Request &R) {
  size_t I = findColl(R.CollSeq, R.Comm);
  if (I == RP.N || RP.Recs[I].Ev != 1)
    fatal("restart replay diverged: no logged result for the non-blocking "
          "collective open at the checkpoint");
  restoreOutputs(I, R.Outs);
  use(I);
  completeEmpty(R);
  TRACE("%d epoch %u: non-blocking collective %llu open at the checkpoint "
        "completed from the log",
        L->Rank, L->Epoch, (unsigned long long)R.CollSeq);
}

void collAfterRestore() {
  LogAll = false;
  Debts = OpenLogged = 0;
  forEachCounter([](CollCount &K, uint64_t, bool) { K.Max = 0; });
  for (uint32_t I = 0; I < L->NReqs; ++I)
    L->Reqs[I].LogIt = L->Reqs[I].OpenAtLine = false;
}

uint64_t collLoggedBytes() { return LoggedBytes; }

} // namespace nb

// Before a communicator is made from Parent (Objects.cpp and friends): its
// members past the line would make it again when they re-execute the call,
// while those before it re-create it while restoring. Such a line is
// therefore not committed; the members past it say so and the previous
// version stays. One reduction (the epochs differ by one at most).
void nbLineCheck(MPI_Comm Real, const char *What) {
  uint32_t Min = L->Epoch;
  PMPI_Allreduce(&L->Epoch, &Min, 1, MPI_UINT32_T, MPI_MIN, Real);
  if (Min < L->Epoch && TakeResult == kWritten) {
    logMessage("checkpoint %llu will not be committed: %s while some of its "
               "members had taken it and others not",
               (unsigned long long)(L->VersionBase + L->Epoch), What);
    TakeResult = kSaid;
  }
}

void nbCommCreation(MPI_Comm Parent) {
  // It could not be made again on restart.
  nbLineCheck(realComm(Parent), "a communicator was created");
}

} // namespace mpi
} // namespace ccc

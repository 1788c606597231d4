//===- Completion.cpp - MPI_Wait, MPI_Test and their variants, cancel ----===//
//
// Completes the layer's requests (PointToPoint.cpp makes them). A request
// MPI finished is counted and, under the non-blocking protocol, classified
// against the recovery line (nbCompleted). The variants that choose among
// many requests log their choice, so that a restart replays it. While a
// checkpoint is open, a rank that waits keeps answering control messages
// (pollWhileCheckpointOpen, Layer.h) rather than block in MPI.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

#include <cstring>

namespace ccc {
namespace mpi {

// The status MPI gives for a null or inactive request.
static void emptyStatus(MPI_Status &S) {
  memset(&S, 0, sizeof(S));
  S.MPI_SOURCE = MPI_ANY_SOURCE;
  S.MPI_TAG = MPI_ANY_TAG;
  S.MPI_ERROR = MPI_SUCCESS;
}

void completeEmpty(Request &R) {
  R.Done = true;
  emptyStatus(R.Status);
}

// Completion of a request MPI finished, its status already in R.Status
// (MPI writes it there: a copy read back whole right after MPI's narrower
// stores would stall the wait of every small message): count a receive.
static void completed(Request &R) {
  if (NonBlocking) {
    if (R.Kind == ReqKind::Recv)
      nbCompleted(R, R.Status);
    if (R.LogIt)
      nbCollCompleted(R);
  }
  if (R.NewComm)
    idupCompleted(R);
  R.Done = true;
  R.Real = MPI_REQUEST_NULL;
  if (R.Kind == ReqKind::Recv && !statusCancelled(R.Status))
    countReceived(R.Comm, R.Status.MPI_SOURCE);
}

// Tests one request; true if complete (then Status is set).
static bool testOne(Request &R) {
  if (R.Done)
    return true;
  int Flag = 0;
  R.Status.MPI_ERROR = MPI_SUCCESS; // single completions leave it unset
  PMPI_Test(&R.Real, &Flag, &R.Status);
  if (Flag)
    completed(R);
  return Flag;
}

// Inlined: MPI_Wait on a small message is mostly the layer's calls.
[[gnu::always_inline]] static inline void waitOne(Request &R) {
  if (R.Done)
    return;
  if (pollWhileCheckpointOpen([&] { return testOne(R); }))
    return;
  R.Status.MPI_ERROR = MPI_SUCCESS; // single completions leave it unset
  PMPI_Wait(&R.Real, &R.Status);
  completed(R);
}

// Hands a finished request's status to the program and frees it; a
// persistent one becomes inactive (and keeps its handle). A call that
// returns one status (Single) keeps the status's MPI_ERROR (KeptError).
[[gnu::always_inline]] static inline int
finish(MPI_Request *H, Request &R, MPI_Status *Status, bool Single = true) {
  KeptError Keep(Single ? Status : MPI_STATUS_IGNORE);
  if (Status != MPI_STATUS_IGNORE)
    *Status = R.Status;
  int Err = R.Kind == ReqKind::Recv ? R.Status.MPI_ERROR : MPI_SUCCESS;
  Keep(Err == MPI_ERR_IN_STATUS ? MPI_SUCCESS : Err);
  if (R.Persistent) {
    R.Active = false;
    emptyStatus(R.Status);
    return Err == MPI_ERR_IN_STATUS ? MPI_SUCCESS : Err;
  }
  releaseSlot(R);
  *H = MPI_REQUEST_NULL;
  return Err == MPI_ERR_IN_STATUS ? MPI_SUCCESS : Err;
}

bool testRequest(Request &R) { return testOne(R); }
void waitRequest(Request &R) { waitOne(R); }

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

//===-- Completion --------------------------------------------------------===//

int MPI_Wait(MPI_Request *H, MPI_Status *Status) {
  // Null and MPI's own handles (not the layer's) go straight to MPI.
  Request *R;
  if (Bypass || !(R = request(*H)))
    return PMPI_Wait(H, Status);
  waitOne(*R);
  return finish(H, *R, Status);
}

int MPI_Test(MPI_Request *H, int *Flag, MPI_Status *Status) {
  if (Bypass)
    return PMPI_Test(H, Flag, Status);
  if (*H == MPI_REQUEST_NULL)
    return PMPI_Test(H, Flag, Status);
  Request *R = request(*H);
  if (!R)
    return PMPI_Test(H, Flag, Status);
  if (NonBlocking) {
    nbProgress();
    int64_t V;
    int NV;
    if (replayEvent(Event::Test, &V, 1, &NV)) {
      // It failed then: fail now; it succeeded: it will again.
      if (!V) {
        *Flag = 0;
        return MPI_SUCCESS;
      }
      waitOne(*R);
    }
  }
  *Flag = testOne(*R);
  if (NonBlocking) {
    int64_t V = *Flag;
    logEvent(Event::Test, &V, 1);
  }
  return *Flag ? finish(H, *R, Status) : MPI_SUCCESS;
}

int MPI_Waitall(int N, MPI_Request Hs[], MPI_Status Ss[]) {
  if (Bypass)
    return PMPI_Waitall(N, Hs, Ss);
  int Err = MPI_SUCCESS;
  for (int I = 0; I < N; ++I) {
    int E = MPI_Wait(&Hs[I],
                     Ss == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &Ss[I]);
    if (E != MPI_SUCCESS)
      Err = MPI_ERR_IN_STATUS;
  }
  return Err;
}

int MPI_Testall(int N, MPI_Request Hs[], int *Flag, MPI_Status Ss[]) {
  if (Bypass)
    return PMPI_Testall(N, Hs, Flag, Ss);
  int64_t V;
  int NV;
  if (NonBlocking && replayEvent(Event::Testall, &V, 1, &NV)) {
    *Flag = (int)V;
    return V ? MPI_Waitall(N, Hs, Ss) : MPI_SUCCESS;
  }
  // All or nothing: complete none unless all are complete.
  for (int I = 0; I < N; ++I) {
    Request *R = request(Hs[I]);
    if (R && !testOne(*R)) {
      *Flag = 0;
      if (NonBlocking) {
        V = 0;
        logEvent(Event::Testall, &V, 1);
      }
      return MPI_SUCCESS;
    }
  }
  *Flag = 1;
  if (NonBlocking) {
    V = 1;
    logEvent(Event::Testall, &V, 1);
  }
  return MPI_Waitall(N, Hs, Ss);
}

// Single: for MPI_Waitany, which returns one status (finish).
static int waitanyLive(int N, MPI_Request Hs[], int *Index, MPI_Status *Status,
                       bool Single = true);

int MPI_Waitany(int N, MPI_Request Hs[], int *Index, MPI_Status *Status) {
  if (Bypass)
    return PMPI_Waitany(N, Hs, Index, Status);
  if (!NonBlocking)
    return waitanyLive(N, Hs, Index, Status);
  int64_t V;
  int NV;
  if (replayEvent(Event::Waitany, &V, 1, &NV)) {
    *Index = (int)V;
    if (V == MPI_UNDEFINED)
      return MPI_SUCCESS;
    return MPI_Wait(&Hs[V], Status);
  }
  int Err = waitanyLive(N, Hs, Index, Status);
  V = *Index;
  logEvent(Event::Waitany, &V, 1);
  return Err;
}

static int waitanyLive(int N, MPI_Request Hs[], int *Index, MPI_Status *Status,
                       bool Single) {
  for (int Spin = 0;; ++Spin) {
    bool AnyActive = false;
    for (int I = 0; I < N; ++I) {
      Request *R = liveRequest(Hs[I]);
      if (!R)
        continue;
      AnyActive = true;
      if (testOne(*R)) {
        *Index = I;
        return finish(&Hs[I], *R, Status, Single);
      }
    }
    if (!AnyActive) {
      *Index = MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    // While a checkpoint is open this rank keeps answering control
    // messages, as waitOne does: blocked in MPI it would hold up the other
    // ranks' periods and the commit (Waitsome waits here too).
    if (NonBlocking && nbCheckpointOpen()) {
      nbWhileWaiting(Spin);
      continue;
    }
    // Else block in MPI on the real requests rather than spin.
    MPI_Request *Real =
        static_cast<MPI_Request *>(scratch(N * sizeof(MPI_Request)));
    for (int I = 0; I < N; ++I) {
      Request *R = liveRequest(Hs[I]);
      Real[I] = R ? R->Real : MPI_REQUEST_NULL;
    }
    int Got;
    MPI_Status S;
    S.MPI_ERROR = MPI_SUCCESS; // a single completion leaves it unset
    PMPI_Waitany(N, Real, &Got, &S);
    if (Got != MPI_UNDEFINED) {
      Request *R = request(Hs[Got]);
      R->Status = S;
      completed(*R);
    }
    scratchFree(Real);
  }
}

static int testanyLive(int N, MPI_Request Hs[], int *Index, int *Flag,
                       MPI_Status *Status);

int MPI_Testany(int N, MPI_Request Hs[], int *Index, int *Flag,
                MPI_Status *Status) {
  if (Bypass)
    return PMPI_Testany(N, Hs, Index, Flag, Status);
  if (!NonBlocking)
    return testanyLive(N, Hs, Index, Flag, Status);
  int64_t V[2];
  int NV;
  if (replayEvent(Event::Testany, V, 2, &NV)) {
    *Flag = (int)V[0];
    *Index = (int)V[1];
    if (!V[0] || V[1] == MPI_UNDEFINED)
      return MPI_SUCCESS;
    return MPI_Wait(&Hs[V[1]], Status);
  }
  int Err = testanyLive(N, Hs, Index, Flag, Status);
  V[0] = *Flag;
  V[1] = *Index;
  logEvent(Event::Testany, V, 2);
  return Err;
}

static int testanyLive(int N, MPI_Request Hs[], int *Index, int *Flag,
                       MPI_Status *Status) {
  bool AnyActive = false;
  for (int I = 0; I < N; ++I) {
    Request *R = liveRequest(Hs[I]);
    if (!R)
      continue;
    AnyActive = true;
    if (testOne(*R)) {
      *Index = I;
      *Flag = 1;
      return finish(&Hs[I], *R, Status);
    }
  }
  *Index = MPI_UNDEFINED;
  *Flag = !AnyActive;
  return MPI_SUCCESS;
}

// Waitsome/Testsome under the non-blocking protocol: the indices are
// logged, and replayed by waiting for exactly those requests.
static bool replaySome(Event E, int N, MPI_Request Hs[], int *OutCount,
                       int Indices[], MPI_Status Ss[]) {
  if (!NonBlocking)
    return false;
  int64_t *V = static_cast<int64_t *>(scratch((N + 1) * sizeof(int64_t)));
  int NV;
  bool Replayed = replayEvent(E, V, N + 1, &NV);
  if (Replayed) {
    *OutCount = (int)V[0];
    for (int K = 0; K < *OutCount && *OutCount != MPI_UNDEFINED; ++K) {
      Indices[K] = (int)V[K + 1];
      MPI_Wait(&Hs[Indices[K]],
               Ss == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &Ss[K]);
    }
  }
  scratchFree(V);
  return Replayed;
}

static void logSome(Event E, int OutCount, const int Indices[]) {
  if (!NonBlocking)
    return;
  int K = OutCount == MPI_UNDEFINED ? 0 : OutCount;
  int64_t *V = static_cast<int64_t *>(scratch((K + 1) * sizeof(int64_t)));
  V[0] = OutCount;
  for (int I = 0; I < K; ++I)
    V[I + 1] = Indices[I];
  logEvent(E, V, K + 1);
  scratchFree(V);
}

static int waitsomeLive(int N, MPI_Request Hs[], int *OutCount, int Indices[],
                        MPI_Status Ss[]);
static int testsomeLive(int N, MPI_Request Hs[], int *OutCount, int Indices[],
                        MPI_Status Ss[]);

int MPI_Waitsome(int N, MPI_Request Hs[], int *OutCount, int Indices[],
                 MPI_Status Ss[]) {
  if (Bypass)
    return PMPI_Waitsome(N, Hs, OutCount, Indices, Ss);
  if (replaySome(Event::Waitsome, N, Hs, OutCount, Indices, Ss))
    return MPI_SUCCESS;
  int Err = waitsomeLive(N, Hs, OutCount, Indices, Ss);
  logSome(Event::Waitsome, *OutCount, Indices);
  return Err;
}

int MPI_Testsome(int N, MPI_Request Hs[], int *OutCount, int Indices[],
                 MPI_Status Ss[]) {
  if (Bypass)
    return PMPI_Testsome(N, Hs, OutCount, Indices, Ss);
  if (replaySome(Event::Testsome, N, Hs, OutCount, Indices, Ss))
    return MPI_SUCCESS;
  int Err = testsomeLive(N, Hs, OutCount, Indices, Ss);
  logSome(Event::Testsome, *OutCount, Indices);
  return Err;
}

static int waitsomeLive(int N, MPI_Request Hs[], int *OutCount, int Indices[],
                        MPI_Status Ss[]) {
  int First;
  MPI_Status S;
  int Err = waitanyLive(N, Hs, &First, &S, false);
  if (First == MPI_UNDEFINED) {
    *OutCount = MPI_UNDEFINED;
    return Err;
  }
  int K = 0;
  Indices[K] = First;
  if (Ss != MPI_STATUSES_IGNORE)
    Ss[K] = S;
  ++K;
  for (int I = 0; I < N; ++I) {
    Request *R = liveRequest(Hs[I]);
    if (R && testOne(*R)) {
      Indices[K] = I;
      finish(&Hs[I], *R, Ss == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &Ss[K],
             false);
      ++K;
    }
  }
  *OutCount = K;
  return Err;
}

static int testsomeLive(int N, MPI_Request Hs[], int *OutCount, int Indices[],
                        MPI_Status Ss[]) {
  int K = 0;
  bool AnyActive = false;
  for (int I = 0; I < N; ++I) {
    Request *R = liveRequest(Hs[I]);
    if (!R)
      continue;
    AnyActive = true;
    if (testOne(*R)) {
      Indices[K] = I;
      finish(&Hs[I], *R, Ss == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &Ss[K],
             false);
      ++K;
    }
  }
  *OutCount = AnyActive ? K : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *H) {
  if (Bypass)
    return PMPI_Request_free(H);
  Request *R = request(*H);
  if (!R)
    return PMPI_Request_free(H);
  if (R->Done || (R->Persistent && !R->Active)) {
    releaseRequest(*H);
  } else {
    // Still in flight: the layer completes it (and counts it) later.
    R->Orphan = true;
  }
  *H = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int MPI_Request_get_status(MPI_Request H, int *Flag, MPI_Status *Status) {
  if (Bypass)
    return PMPI_Request_get_status(H, Flag, Status);
  Request *R = request(H);
  if (!R)
    return PMPI_Request_get_status(H, Flag, Status);
  *Flag = testOne(*R);
  if (*Flag && Status != MPI_STATUS_IGNORE) {
    KeptError Keep(Status);
    *Status = R->Status;
    Keep(MPI_SUCCESS);
  }
  return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *H) {
  if (Bypass)
    return PMPI_Cancel(H);
  Request *R = request(*H);
  if (!R)
    return PMPI_Cancel(H);
  if (R->Done)
    return MPI_SUCCESS;
  return PMPI_Cancel(&R->Real);
}
}

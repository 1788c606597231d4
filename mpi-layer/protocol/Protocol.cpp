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
// Modes: Run -> (checkpoint) NonDet-Log -> (ALL: every rank checkpointed,
// or a message from a rank that stopped logging) RecvOnly-Log -> (all late
// messages received, the collectives this rank must log logged: write the
// log) Run. Restore replays the log. Tests, Waitany/some, Iprobe outcomes
// are logged in NonDet-Log mode and replayed in order.
//
// A version counts once rank 0 knows, up the tree of control messages, that
// every rank wrote its image and its log; it then writes the commit record.
//
// This file: modes, the message log and its file, the period, sites and
// restart. ProtocolControl.cpp: control messages; ProtocolMessages.cpp:
// headers, sends and receives, replay; ProtocolCollectives.cpp: collectives
// across the line; Places.cpp: each message's place on its channel;
// ProtocolInternal.h: what they share.
//
//===----------------------------------------------------------------------===//
#include "ProtocolInternal.h"
#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"
#include "rt/process/Parallel.h"
#include "rt/store/Store.h"

#include "ccc.h"
#include "ccc/abi.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccc {
namespace mpi {

bool NonBlocking = false;

namespace nb {

constexpr uint64_t kLineOp = 1ULL << 63;

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

Replay RP;
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

WasEarly *WE;
uint64_t WasEarlyLeft;

void maybeEndRestore() {
  if (L->M == Mode::Restore && RP.Left == 0 && WasEarlyLeft == 0)
    setMode(Mode::Run, "log replayed and early sends suppressed");
}

//===-- Checksummed log file ----------------------------------------------===//

bool writeLogFile(uint64_t Version) {
  char Path[kPathMax], Tmp[kPathMax + 8];
  logPath(Path, imageDir(), storeName(), Version, L->Rank);
  snprintf(Tmp, sizeof(Tmp), "%s.tmp", Path);
  int Fd = open(Tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0) {
    logMessage("checkpoint %llu: cannot write %s: %s",
               (unsigned long long)Version, Tmp, strerror(errno));
    return false;
  }
  LogHeader H = {kLogMagic,         Version, (uint32_t)L->Rank,
                 (uint32_t)L->Size, Log.Len, logChecksum(Log.Data, Log.Len)};
  bool Ok = writeAll(Fd, &H, sizeof(H)) && writeAll(Fd, Log.Data, Log.Len) &&
            fsync(Fd) == 0;
  int E = errno;
  close(Fd);
  if (!Ok || !publish(Tmp, Path, imageDir())) {
    logMessage("checkpoint %llu: cannot write %s: %s",
               (unsigned long long)Version, Path, strerror(E));
    unlink(Tmp);
    return false;
  }
  char Why[kPathMax + 256];
  if (!partnerCopy(Path, Why, sizeof(Why)) ||
      !flushCopy(Path, Why, sizeof(Why))) {
    logMessage("checkpoint %llu: %s", (unsigned long long)Version, Why);
    unlink(Path);
    return false;
  }
  return true;
}

// Reads and checks a log file (every record a replay will use); the
// records are returned in libc memory.
char *readLogFile(uint64_t Version, size_t *Len, char *Why, size_t Cap) {
  char Path[kPathMax];
  logPath(Path, imageDir(), storeName(), Version, processRank());
  LogExpect E;
  E.Version = Version;
  E.Rank = processRank();
  E.NRanks = processCount();
  return readMessageLog(Path, E, nullptr, Len, scratch, scratchFree, Why, Cap);
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
  ctrlPeriodEnded(TakeResult);
}

// ... and every collective whose outputs this rank must log was logged.
void checkPeriod() {
  if (L->M != Mode::RecvOnlyLog || !AllSeen || !collDebtsPaid())
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

} // namespace nb
using namespace nb;

//===-- Progress, sites ---------------------------------------------------===//

// Whether this rank takes part in a checkpoint still open: its period, or
// on rank 0 a commit still waiting for other ranks.
static bool checkpointOpen() { return L->M != Mode::Run || ctrlOpen(); }

void nbWhileWaiting(int Spin) {
  pollCtrl();
  if (Spin > 64)
    sched_yield(); // ranks may share cores
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
  placesInit();
  if (L->SentEp)
    return; // restored state (nbAfterRestore goes on)
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
  ctrlInit(0);
}

// Take: null when the program is finishing and cannot checkpoint.
static int startCheckpoint(int (*Take)()) {
  int Size = L->Size;
  auto *OldSent = static_cast<uint64_t *>(scratch(Size * 8));
  memcpy(OldSent, L->SentEp, Size * 8);
  bool OnItsOwn = !L->Initiated;
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
  L->Initiated = false;
  L->RecvSeq = 0;
  AllSeen = false;
  // Receives open across the line are named by their table slot.
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    Request &R = L->Reqs[I];
    if (R.InUse && !R.Done && R.Kind == ReqKind::Recv)
      R.Op = kLineOp | I;
  }
  Log.clear();
  setMode(Mode::NonDetLog, "local checkpoint");
  setNextVersion(L->VersionBase + L->Epoch);
  Buffer Cuts;
  collCheckpoint(Cuts);
  // Tell the other ranks before writing the image: each then starts its own
  // checkpoint at its next site while this one writes (told afterwards,
  // ranks that wait for each other's messages wrote one after the other:
  // bench/coordination). Nothing is received before the image, since
  // control messages would change the state it saves.
  ctrlCheckpointStarted(OnItsOwn, OldSent);
  scratchFree(OldSent);
  int R = Take ? Take() : CCC_NONE;
  __ccc_pending = 1; // the runtime clears it after each checkpoint
  if (R == CCC_RESTARTED)
    return R;    // (Cuts was libc memory of the process that died)
  L->NEarly = 0; // the registry is in the image
  TakeResult = R == CCC_TAKEN ? kWritten : Take ? kWriteFailed : kFinished;
  ctrlCheckpointWritten(Cuts);
  __libc_free(Cuts.Data);
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
  if (Want || L->Initiated || checkpointOpen() || ctrlStopping() ||
      controlProbeDue())
    pollCtrl();
  // Windows whose members checkpoint together decide at every site.
  int Group = windowsAgree(Want || L->Initiated, L->M == Mode::Run);
  if (L->M != Mode::Run || Group == kGroupHold) {
    WantNext = Want; // served at a later site (after this period)
    return CCC_NONE;
  }
  // Fence-mode windows agree at a fence first.
  Want = Group == kGroupTake || windowsWant(Want);
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
  L->Initiated = false;
  ctrlInit(L->Epoch);
  // Requests across the line: sends were sent (their receivers have the
  // message or its log); receives are posted again unless the log completes
  // them, in the order the program posted them (MPI gives a channel's
  // messages to its receives in posting order, and places count on it).
  auto *Again = static_cast<uint32_t *>(scratch(L->NReqs * 4 + 4));
  uint32_t NAgain = 0;
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
    if (R.NewComm) {
      idupRestored(R);
      continue;
    }
    if (R.Kind == ReqKind::Coll) {
      collRestoreOpen(R);
      continue;
    }
    uint32_t J = NAgain++;
    for (; J > 0 && L->Reqs[Again[J - 1]].Posted > R.Posted; --J)
      Again[J] = Again[J - 1];
    Again[J] = I;
  }
  for (uint32_t K = 0; K < NAgain; ++K) {
    Request &R = L->Reqs[Again[K]];
    postReceive(R);
    TRACE("%d epoch %u: receive request %u open across the line: %s", L->Rank,
          L->Epoch, Again[K],
          R.Done ? "completed by a late message from the log" : "posted again");
  }
  scratchFree(Again);
  postingEnded(); // places that waited for a posting the log completed
  maybeEndRestore();
  // Versions go on from the next one free on disk (agreed by all ranks).
  L->VersionBase = nextVersion() - L->Epoch - 1;
  collAfterRestore();
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
    if (L->M == Mode::RecvOnlyLog && AllSeen) {
      bool Missing = !collDebtsPaid();
      for (int Q = 0; Q < L->Size; ++Q)
        Missing |= L->LateGot[Q] < (uint64_t)L->LateWant[Q];
      if (Missing) {
        // Said once, by a rank whose part was otherwise complete.
        if (TakeResult == kWritten) {
          logMessage("checkpoint %llu not committed: the program finished "
                     "without receiving every message sent before it (or "
                     "completing every collective begun before it)",
                     (unsigned long long)(L->VersionBase + L->Epoch));
          TakeResult = kSaid;
        }
        for (int Q = 0; Q < L->Size; ++Q)
          L->LateGot[Q] = (uint64_t)L->LateWant[Q];
        collForgiveDebts();
        checkPeriod();
      }
    }
    if (Spin > 1000)
      usleep(1000);
  }
  if (L->M == Mode::Restore)
    L->M = Mode::Run;
  ctrlFinish();   // every rank's LOGGED on its way to rank 0
  reportCounts(); // after: the last LOGGED is counted
  reportPlaces();
}

} // namespace mpi
} // namespace ccc

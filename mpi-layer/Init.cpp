//===- Init.cpp - MPI_Init/Finalize and the runtime's parallel hooks ------===//
//
// A fresh run: MPI_Init initialises MPI, creates the layer's state in the
// saved region and makes all ranks agree on the next checkpoint version. A
// restart never calls the program's MPI_Init (the program resumes past
// it): the runtime asks the layer to initialise MPI before it restores
// memory, to agree on a version, and to rebuild MPI objects afterwards.
//
//===----------------------------------------------------------------------===//
#include "Layer.h"

#include "rt/common/Log.h"
#include "rt/process/Parallel.h"
#include "rt/store/Store.h"

#include "ccc.h"
#include "ccc/abi.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>

namespace ccc {
namespace mpi {

LayerState *L = nullptr;
MPI_Comm Private = MPI_COMM_NULL;
bool Active = false;
bool Restoring = false;
bool Bypass = false;

void *saved(size_t Bytes) {
  void *P = __ccc_calloc(1, Bytes ? Bytes : 1);
  if (!P)
    fatal("out of memory in the MPI layer (%zu bytes)", Bytes);
  return P;
}

void *scratch(size_t Bytes) {
  void *P = __libc_malloc(Bytes ? Bytes : 1);
  if (!P)
    fatal("out of memory in the MPI layer (%zu bytes)", Bytes);
  return P;
}

void scratchFree(void *P) { __libc_free(P); }

bool calledByMpi(void *Ret) {
  static void *MpiBase;
  if (!MpiBase) {
    Dl_info Mpi;
    if (!dladdr(reinterpret_cast<void *>(&PMPI_Type_free), &Mpi))
      return false;
    MpiBase = Mpi.dli_fbase;
  }
  Dl_info Caller;
  return dladdr(Ret, &Caller) && Caller.dli_fbase == MpiBase;
}

void refuse(const char *Fn, const char *Why) {
  logMessage("%s is not supported under checkpointing (%s); stopping so "
             "that no checkpoint silently misses it",
             Fn, Why);
  int Initialised = 0;
  PMPI_Initialized(&Initialised);
  if (Initialised)
    PMPI_Abort(MPI_COMM_WORLD, 3);
  _exit(3);
}

namespace {
// The first call this process made to a function the layer cannot
// checkpoint (its name as refused, and why). Per process, never saved: a
// checkpoint is never taken after such a call, so a restarted process
// resumes before any.
char RefusedFn[192];
const char *RefusedWhy;
} // namespace

void noteRefused(const char *Fn, const char *Why) {
  if (Bypass || RefusedWhy)
    return;
  snprintf(RefusedFn, sizeof(RefusedFn), "%s", Fn);
  RefusedWhy = Why;
}

void refuseIfUnsupported() {
  if (RefusedWhy)
    refuse(RefusedFn, RefusedWhy);
}

namespace {

struct RestartBlob {
  uint64_t Magic;
  int ThreadRequested;
};

int envInt(const char *A, const char *B, const char *C, int Default) {
  const char *Names[] = {A, B, C};
  for (const char *N : Names)
    if (const char *V = getenv(N))
      return atoi(V);
  return Default;
}

bool Launched = false;     // the runtime started (the program has sites)
bool Initialising = false; // inside PMPI_Init_thread

void launchRank(uint32_t *Rank, uint32_t *NRanks) {
  Launched = true;
  // Open MPI, then MPICH's hydra (PMI), then PMIx.
  *Rank = envInt("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", 0);
  *NRanks = envInt("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS", 1);
}

uint64_t allReduce(uint64_t V, MPI_Op Op) {
  uint64_t R;
  PMPI_Allreduce(&V, &R, 1, MPI_UINT64_T, Op, Private);
  return R;
}

bool Restarting = false; // set before initMpi by the restart paths

// Settings every rank must share: otherwise ranks take different paths
// through their first collectives (node-local inventory, restart exchange)
// and wait for one another for ever. Open MPI gives remote ranks only the
// variables named with -x, so a variable set where mpirun runs reaches
// only the ranks of that host: the usual way here. Compared with rank 0's;
// the lowest rank that differs says how and ends the job.
void checkSameSettings(int Rank) {
  enum { Dir, LocalDir, Protocol, Restart, N };
  uint64_t Mine[N] = {getenv("CCC_DIR") != nullptr, nodeLocalStorage(),
                      NonBlocking ? 2u : 1u, Restarting};
  uint64_t Root[N];
  memcpy(Root, Mine, sizeof(Root));
  PMPI_Bcast(Root, N, MPI_UINT64_T, 0, Private);
  int Bad = -1;
  for (int I = 0; I < N && Bad < 0; ++I)
    if (Root[I] != Mine[I])
      Bad = I;
  // (Small values: MPICH 4.0.2 compares MPI_UINT64_T as signed in
  // MPI_MIN, so ~0 would be the minimum.)
  int Size;
  PMPI_Comm_size(Private, &Size);
  uint64_t First =
      allReduce(Bad >= 0 ? (uint64_t)Rank : (uint64_t)Size, MPI_MIN);
  if (First == (uint64_t)Size)
    return;
  uint64_t Count = allReduce(Bad >= 0, MPI_SUM);
  if ((uint64_t)Rank != First) {
    sleep(60); // the reporting rank's error ends the job
    _exit(3);
  }
  static const char *const Hint =
      "with Open MPI, remote ranks see only the variables named with -x "
      "(mpirun -x CCC_DIR -x CCC_LOCAL_DIR -x CCC_PROTOCOL ...)";
  const char *SetHere = Mine[Bad] ? "set" : "not set";
  const char *SetThere = Root[Bad] ? "set" : "not set";
  char Others[64] = "";
  if (Count > 1)
    snprintf(Others, sizeof(Others), " (and %llu more ranks)",
             (unsigned long long)Count - 1);
  switch (Bad) {
  case Dir:
  case LocalDir:
    fatal("%s is %s on rank %d%s but %s on rank 0: every rank needs the "
          "same; %s",
          Bad == Dir ? "CCC_DIR" : "CCC_LOCAL_DIR", SetHere, Rank, Others,
          SetThere, Hint);
  case Protocol:
    fatal("rank %d%s uses the %s protocol, rank 0 the %s one: set "
          "CCC_PROTOCOL alike for every rank; %s",
          Rank, Others, NonBlocking ? "non-blocking" : "blocking",
          NonBlocking ? "blocking" : "non-blocking", Hint);
  default:
    fatal("rank %d%s %s, rank 0 %s: the ranks do not see the same "
          "checkpoints (CCC_DIR alike on every rank, on a file system they "
          "share); %s",
          Rank, Others, Mine[Restart] ? "restarts" : "starts afresh",
          Root[Restart] ? "restarts" : "starts afresh", Hint);
  }
}

void initMpi(int Required) {
  NonBlocking = nonblockingProtocol();
  int Provided;
  int Argc = 0;
  char **Argv = nullptr;
  Initialising = true;
  int Err = PMPI_Init_thread(&Argc, &Argv, Required, &Provided);
  Initialising = false;
  if (Err != MPI_SUCCESS)
    fatal("MPI_Init_thread failed");
  PMPI_Comm_dup(MPI_COMM_WORLD, &Private);
  int Rank, Size;
  PMPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Launched &&
      ((uint32_t)Rank != processRank() || (uint32_t)Size != processCount()))
    fatal("MPI says rank %d of %d, the launcher's environment said %u of %u",
          Rank, Size, processRank(), processCount());
  checkSameSettings(Rank);
  if (Launched && nodeLocalStorage())
    nodeLocalInit();
}

void initForRestart(const void *Blob, size_t Len) {
  int Required = MPI_THREAD_SINGLE;
  RestartBlob B;
  if (Len >= sizeof(B)) {
    memcpy(&B, Blob, sizeof(B));
    if (B.Magic == kStateMagic)
      Required = B.ThreadRequested;
  }
  Restarting = true;
  initMpi(Required);
}

uint64_t allMin(uint64_t Local) { return allReduce(Local, MPI_MIN); }

// Node-local storage: this host may hold none of this rank's images (a
// spare that replaces a lost host), so the thread level comes from the
// newest commit record, which rank 0 wrote to the shared CCC_DIR.
void gatherImages(const uint64_t *Versions, int N) {
  int Required = MPI_THREAD_SINGLE;
  for (int I = 0; I < N; ++I)
    if (int T = commitThread(storeDir(), storeName(), Versions[I]); T >= 0) {
      Required = T;
      break;
    }
  Restarting = true;
  initMpi(Required);
  nodeLocalGather(Versions, N);
}

bool imageWritten(const char *Path, char *Why, size_t Cap) {
  return partnerCopy(Path, Why, Cap) && flushCopy(Path, Why, Cap);
}

void afterRestore() {
  L = static_cast<LayerState *>(parallelState());
  if (!L || L->Magic != kStateMagic)
    fatal("the image holds no MPI layer state");
  // The image's state is the protocol's own (message log, counters): the
  // job goes on under the protocol that wrote it, whatever CCC_PROTOCOL
  // says now.
  bool Written = L->Protocol == 2;
  if (L->Protocol != 1 && L->Protocol != 2)
    fatal("the image's MPI layer state names no known protocol (%u)",
          (unsigned)L->Protocol);
  if (Written != NonBlocking && L->Rank == 0)
    logMessage("restarting under CCC_PROTOCOL=%s, the protocol that wrote "
               "this checkpoint (CCC_PROTOCOL=%s applies to fresh runs)",
               Written ? "nonblocking" : "blocking",
               NonBlocking ? "nonblocking" : "blocking");
  NonBlocking = Written;
  clockAfterRestore();
  Restoring = true;
  filesBeforeRestore();
  rebuildObjects();
  filesAfterRestore();
  replayNames();
  rebuildWindows();
  setNextVersion(allReduce(nextVersion(), MPI_MAX));
  if (NonBlocking)
    nbAfterRestore();
  else
    afterRestoreRequests();
  Restoring = false;
  Active = true;
  __ccc_pending = 1; // every site asks the protocol
}

size_t stateBlob(void *Buf, size_t Cap) {
  RestartBlob B = {kStateMagic, L ? L->ThreadRequested : MPI_THREAD_SINGLE};
  if (Cap < sizeof(B))
    return 0;
  memcpy(Buf, &B, sizeof(B));
  return sizeof(B);
}

int site(int Kind, int (*Take)()) {
  if (!Active) {
    static bool Warned;
    if (!Warned)
      logMessage("ccc_checkpoint() outside MPI_Init..MPI_Finalize: no "
                 "checkpoint taken");
    Warned = true;
    return CCC_NONE;
  }
  // No image while a generalized request or an MPI-IO collective is open.
  Take = guardTake(guardFiles(Take));
  Take = windowTake(Take); // RMA complete (or checked) before the image
  Take = clockTake(Take);
  return NonBlocking ? siteNonBlocking(Kind, Take) : siteBlocking(Kind, Take);
}

// Only the non-blocking protocol has a message log to check; the commit
// record says which protocol wrote Version (records older than that field:
// the protocol set now).
bool checkVersion(uint64_t Version, char *Why, size_t Cap) {
  char Protocol[32];
  bool Logged = commitProtocol(storeDir(), storeName(), Version, Protocol,
                               sizeof(Protocol))
                    ? !strcmp(Protocol, "nonblocking")
                    : nonblockingProtocol();
  return !Logged || nbCheckVersion(Version, Why, Cap);
}

// Under the non-blocking protocol the other ranks go on while this one
// writes, and some wait for its messages in flight.
void duringWrite() {
  if (Active && NonBlocking)
    nbLetMpiProgress();
}

// A rank that stops before MPI is initialised (CCC_DIR locked, say)
// initialises it only to abort the job: the other ranks wait for it in
// their MPI_Init, where MPICH's hydra never gives up.
void abortJob() {
  int Initialised = 0, Finalised = 0;
  PMPI_Initialized(&Initialised);
  PMPI_Finalized(&Finalised);
  if (Finalised || Initialising)
    return;
  if (!Initialised) {
    int Provided;
    if (!Launched || processCount() < 2 ||
        PMPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &Provided) !=
            MPI_SUCCESS)
      return;
  }
  // The message is in the pipe to the launcher; MPICH's stops forwarding
  // the ranks' output once an abort reaches it, and lost it about one time
  // in two when every rank stopped on the same error at once.
  usleep(200000);
  PMPI_Abort(MPI_COMM_WORLD, 3);
}

ParallelLayer Hooks = {launchRank,   initForRestart, allMin,       afterRestore,
                       site,         stateBlob,      checkVersion, duringWrite,
                       imageWritten, gatherImages,   abortJob};

// Registered before main, so the runtime knows the job is parallel.
// With CCC_DISABLE=1 (read as the runtime's entry does) the layer stays out
// of the way: no protocol, no tables, no header on messages, MPI's own
// reductions; the runtime never calls the hooks.
__attribute__((constructor)) void registerLayer() {
  Parallel = &Hooks;
  const char *Disable = getenv("CCC_DISABLE");
  Bypass = Disable && !strcmp(Disable, "1");
}

int initLayer(int Required, int *Provided) {
  if (Active)
    return MPI_SUCCESS; // a restart already initialised MPI
  initMpi(Required);
  if (Provided)
    PMPI_Query_thread(Provided);
  L = static_cast<LayerState *>(saved(sizeof(LayerState)));
  L->Magic = kStateMagic;
  L->ThreadRequested = Required;
  PMPI_Comm_rank(MPI_COMM_WORLD, &L->Rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &L->Size);
  L->Sent = static_cast<uint64_t *>(saved(L->Size * sizeof(uint64_t)));
  L->Recvd = static_cast<uint64_t *>(saved(L->Size * sizeof(uint64_t)));
  L->Protocol = NonBlocking ? 2 : 1;
  setParallelState(L);
  setNextVersion(allReduce(nextVersion(), MPI_MAX));
  if (NonBlocking)
    nbInit();
  Active = true;
  // Every site asks the protocol (Blocking.cpp, Protocol.cpp).
  __ccc_pending = 1;
  return MPI_SUCCESS;
}

} // namespace
} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {
int MPI_Init(int *Argc, char ***Argv) {
  if (Bypass)
    return PMPI_Init(Argc, Argv);
  return initLayer(MPI_THREAD_SINGLE, nullptr);
}

int MPI_Init_thread(int *Argc, char ***Argv, int Required, int *Provided) {
  if (Bypass)
    return PMPI_Init_thread(Argc, Argv, Required, Provided);
  if (Active) {
    PMPI_Query_thread(Provided);
    return MPI_SUCCESS;
  }
  return initLayer(Required, Provided);
}

int MPI_Finalize(void) {
  if (Bypass)
    return PMPI_Finalize();
  if (Active && NonBlocking)
    nbFinalize();
  Active = false;
  __ccc_pending = 0;
  if (Private != MPI_COMM_NULL)
    PMPI_Comm_free(&Private);
  freeSelfComm();
  return PMPI_Finalize();
}
}

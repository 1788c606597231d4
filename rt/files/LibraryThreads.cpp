//===- LibraryThreads.cpp - Saved libraries' threads and thread keys ------===//
//
// A thread's stack, registers and kernel state are in no image, and a
// library that started one keeps its handle and its work queue in the very
// memory a restart writes back: restored, it would wait for a thread that
// does not exist. So while a thread a saved library started
// (rt/layout/Libraries.cpp) is running, checkpoints are refused with the
// library's name, and the previous committed checkpoint stays. Threads of
// the MPI library, of libc, of the OpenMP runtime (re-created by the
// runtime, rt/process/OpenMP.cpp) and the program's own are not counted.
// The executable defines pthread_create (exported, CCC_RT_LDFLAG), so a
// shared library's call comes here. Threads started before the libraries
// are sorted (a library's constructor starts a pool at load, as OpenBLAS
// does) are followed with their start and caller addresses and counted
// once the sort says they are a saved library's; so are keys made then.
//
// Thread-local keys: a thread-safe library (Debian's serial HDF5) keeps
// the number of its pthread key in its .bss and creates the key once. A
// restored .bss names a key the new process never created, and
// pthread_getspecific on it returns nothing the library expects. So the
// keys saved libraries create are recorded, and a restart creates them
// again under the same numbers (glibc hands out the lowest free number)
// with the values the checkpointing thread had.
//
//===----------------------------------------------------------------------===//
#include "LibraryThreads.h"

#include "rt/layout/Libraries.h"

#include "rt/common/LibcHeap.h"
#include "rt/common/NextDefinition.h"
#include "rt/heap/HeapRegion.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <pthread.h>

namespace ccc {
namespace {
std::atomic<int> Running;
std::atomic<const char *> Starter; // the library of the latest one

// A thread started before the sort: running and not yet counted, counted
// (once its starter is known to be a saved library), or finished.
enum EarlyState { EarlyRunning, EarlyCounted, EarlyFinished };
struct EarlyThread {
  uintptr_t Entry, Caller;
  std::atomic<int> State;
};
constexpr int kMaxEarly = 64;
EarlyThread Early[kMaxEarly];
std::atomic<int> NEarly;

struct Start {
  void *(*Fn)(void *);
  void *Arg;
  EarlyThread *Early; // null: counted from its start
};

void finished(void *P) {
  auto *E = static_cast<EarlyThread *>(P);
  if (!E || E->State.exchange(EarlyFinished) == EarlyCounted)
    Running.fetch_sub(1, std::memory_order_relaxed);
}

void *runCounted(void *P) {
  Start S = *static_cast<Start *>(P);
  __libc_free(P);
  void *R = nullptr;
  // Also when the thread ends by pthread_exit or is cancelled.
  pthread_cleanup_push(finished, S.Early);
  R = S.Fn(S.Arg);
  pthread_cleanup_pop(1);
  return R;
}

// The saved library a thread's start or its caller belongs to, or 0.
uintptr_t libraryOwner(uintptr_t Entry, uintptr_t Caller) {
  return codeOwner(Entry) == CodeOwner::SavedLibrary    ? Entry
         : codeOwner(Caller) == CodeOwner::SavedLibrary ? Caller
                                                        : 0;
}

using CreateFn = int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                         void *);
void *RealCreate;

struct KeyRecord {
  uint64_t Key, Destructor, Value;
  uint64_t Caller; // kept only until the sort, for keys made before it
};
struct KeyTable {
  uint64_t N;
  KeyRecord R[64];
};
KeyTable Keys;   // the runtime's own copy
KeyTable *Saved; // in the heap region, written at checkpoints
pthread_mutex_t KeysLock = PTHREAD_MUTEX_INITIALIZER;

using KeyCreateFn = int (*)(pthread_key_t *, void (*)(void *));
using KeyDeleteFn = int (*)(pthread_key_t);
void *RealKeyCreate, *RealKeyDelete;
} // namespace

void reserveLibraryKeys() {
  pthread_mutex_lock(&KeysLock);
  if (!Saved && heapIsMapped())
    Saved = static_cast<KeyTable *>(__ccc_calloc(1, sizeof(KeyTable)));
  pthread_mutex_unlock(&KeysLock);
}

uint64_t saveLibraryKeys() {
  pthread_mutex_lock(&KeysLock);
  if (Saved) {
    for (uint64_t I = 0; I < Keys.N; ++I)
      Keys.R[I].Value = reinterpret_cast<uint64_t>(
          pthread_getspecific(static_cast<pthread_key_t>(Keys.R[I].Key)));
    *Saved = Keys;
  }
  pthread_mutex_unlock(&KeysLock);
  return reinterpret_cast<uint64_t>(Saved);
}

bool restoreLibraryKeys(uint64_t Block, char *Why, size_t Cap) {
  Saved = reinterpret_cast<KeyTable *>(Block);
  Keys = Saved ? *Saved : KeyTable{};
  auto Create =
      nextDefinition<KeyCreateFn>(RealKeyCreate, "pthread_key_create");
  auto Delete =
      nextDefinition<KeyDeleteFn>(RealKeyDelete, "pthread_key_delete");
  for (uint64_t I = 0; I < Keys.N && I < 64; ++I) {
    const KeyRecord &R = Keys.R[I];
    auto *Dtor = reinterpret_cast<void (*)(void *)>(R.Destructor);
    // Lower free numbers are taken and given back once K is reached.
    pthread_key_t Fill[128], K;
    int NFill = 0;
    bool Got = false;
    while (Create(&K, Dtor) == 0) {
      if (K == R.Key) {
        Got = true;
        break;
      }
      if (K > R.Key || NFill == 128) {
        Delete(K);
        break;
      }
      Fill[NFill++] = K;
    }
    while (NFill)
      Delete(Fill[--NFill]);
    if (!Got) {
      snprintf(Why, Cap,
               "a library's thread-local key %llu is taken in the new "
               "process (by the MPI library or libc); start afresh or set "
               "CCC_LIBRARIES=off in both runs",
               (unsigned long long)R.Key);
      return false;
    }
    pthread_setspecific(K, reinterpret_cast<void *>(R.Value));
  }
  return true;
}

void sortEarlyLibraryState() {
  int N = NEarly.load();
  for (int I = 0; I < N && I < kMaxEarly; ++I) {
    EarlyThread &E = Early[I];
    uintptr_t Owner = libraryOwner(E.Entry, E.Caller);
    int Was = EarlyRunning;
    if (Owner && E.State.compare_exchange_strong(Was, EarlyCounted)) {
      Running.fetch_add(1, std::memory_order_relaxed);
      Starter.store(savedLibraryAt(Owner), std::memory_order_relaxed);
    }
  }
  pthread_mutex_lock(&KeysLock);
  uint64_t Out = 0;
  for (uint64_t I = 0; I < Keys.N; ++I)
    if (!Keys.R[I].Caller ||
        codeOwner(Keys.R[I].Caller) == CodeOwner::SavedLibrary ||
        codeOwner(Keys.R[I].Destructor) == CodeOwner::SavedLibrary) {
      Keys.R[Out] = Keys.R[I];
      Keys.R[Out++].Caller = 0;
    }
  Keys.N = Out;
  pthread_mutex_unlock(&KeysLock);
}

bool checkLibraryThreads(char *Why, size_t Cap) {
  int N = Running.load(std::memory_order_relaxed);
  if (N <= 0)
    return true;
  const char *Lib = Starter.load(std::memory_order_relaxed);
  snprintf(Why, Cap,
           "%d thread%s started by %s %s running; a restart cannot bring back "
           "a library's threads, whose state that library keeps (checkpoint "
           "where it has none running, have it start none (a thread pool "
           "of one: OPENBLAS_NUM_THREADS=1 and the like), or set "
           "CCC_LIBRARIES=off if the library needs nothing restored)",
           N, N == 1 ? "" : "s", Lib ? Lib : "a library",
           N == 1 ? "is" : "are");
  return false;
}
} // namespace ccc

using namespace ccc;

extern "C" __attribute__((noinline, used, no_sanitize("address"))) int
pthread_create(pthread_t *T, const pthread_attr_t *Attr, void *(*Fn)(void *),
               void *Arg) {
  auto Real = nextDefinition<CreateFn>(RealCreate, "pthread_create");
  // The thread's code, or the caller's (a library function that ends in
  // pthread_create returns to its own caller: the return address may be
  // the program's).
  uintptr_t Entry = reinterpret_cast<uintptr_t>(Fn);
  uintptr_t Caller = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
  EarlyThread *E = nullptr;
  uintptr_t Owner = 0;
  if (!librariesScanned()) {
    int I = NEarly.fetch_add(1);
    if (I < kMaxEarly) {
      E = &Early[I];
      E->Entry = Entry;
      E->Caller = Caller;
      E->State.store(EarlyRunning);
    }
  } else {
    Owner = libraryOwner(Entry, Caller);
  }
  if (!Owner && !E)
    return Real(T, Attr, Fn, Arg);
  auto *S = static_cast<Start *>(__libc_malloc(sizeof(Start)));
  if (!S) {
    if (E)
      E->State.store(EarlyFinished);
    return Real(T, Attr, Fn, Arg);
  }
  *S = {Fn, Arg, E};
  if (Owner) {
    Starter.store(savedLibraryAt(Owner), std::memory_order_relaxed);
    Running.fetch_add(1, std::memory_order_relaxed);
  }
  int R = Real(T, Attr, runCounted, S);
  if (R != 0) {
    if (Owner)
      Running.fetch_sub(1, std::memory_order_relaxed);
    if (E)
      E->State.store(EarlyFinished);
    __libc_free(S);
  }
  return R;
}

extern "C" __attribute__((noinline, used, no_sanitize("address"))) int
pthread_key_create(pthread_key_t *Key, void (*Dtor)(void *)) {
  int R = nextDefinition<KeyCreateFn>(RealKeyCreate,
                                      "pthread_key_create")(Key, Dtor);
  uintptr_t Caller = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
  // Before the sort every key is kept with its caller; the sort drops the
  // ones no saved library made.
  bool Early = !librariesScanned();
  if (R != 0 ||
      (!Early && codeOwner(Caller) != CodeOwner::SavedLibrary &&
       codeOwner(reinterpret_cast<uintptr_t>(Dtor)) != CodeOwner::SavedLibrary))
    return R;
  pthread_mutex_lock(&KeysLock);
  if (Keys.N < 64)
    Keys.R[Keys.N++] = {*Key, reinterpret_cast<uint64_t>(Dtor), 0,
                        Early ? Caller : 0};
  pthread_mutex_unlock(&KeysLock);
  return R;
}

extern "C" __attribute__((noinline, used)) int
pthread_key_delete(pthread_key_t Key) {
  pthread_mutex_lock(&KeysLock);
  for (uint64_t I = 0; I < Keys.N; ++I)
    if (Keys.R[I].Key == Key) {
      Keys.R[I] = Keys.R[--Keys.N];
      break;
    }
  pthread_mutex_unlock(&KeysLock);
  return nextDefinition<KeyDeleteFn>(RealKeyDelete, "pthread_key_delete")(Key);
}

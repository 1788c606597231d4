//===- Layer.h - libccc_mpi: state shared by the wrappers -------*- C++ -*-===//
//
// The layer sits between the program and MPI (PMPI interposition). What
// must survive a restart lives in one LayerState block in ccc's heap region,
// saved and restored with the image like the program's own data; the real
// MPI handles inside it are re-created after a restart. Everything else is
// per-process (plain globals of this library, never saved).
//
// The layer's own memory is therefore allocated explicitly: saved() for
// state, scratch() for temporaries. It never calls malloc or operator new,
// which the link routes into the saved region.
//
// Handles the program gets for objects it created (communicators,
// datatypes, ops, groups, requests) are ccc handles: values that encode an
// index into the layer's tables and stay valid across restarts.
// Predefined handles (MPI_COMM_WORLD, MPI_DOUBLE, MPI_SUM) pass through:
// with address randomisation off they are the same in every run.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_MPI_LAYER_H
#define CCC_MPI_LAYER_H

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

extern "C" {
void *__ccc_malloc(size_t);
void *__ccc_calloc(size_t, size_t);
void *__ccc_realloc(void *, size_t);
void __ccc_free(void *);
void *__libc_malloc(size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);
extern volatile int __ccc_pending;
}

namespace ccc {
namespace mpi {

//===-- Objects created by the program ------------------------------------===//

enum class ObjKind : uint8_t { Comm, Type, Op, Group };

// How an object was made, so a restart can make it again. Arguments that
// are handles are the program's handles (predefined or ccc).
enum class Recipe : uint8_t {
  CommDup,
  CommSplit,
  CommCreate,
  TypeContiguous,
  TypeVector,
  TypeHvector,
  TypeIndexed,
  TypeHindexed,
  TypeIndexedBlock,
  TypeStruct,
  TypeResized,
  TypeSubarray,
  TypeDup,
  OpCreate,
  GroupOfComm,
  GroupIncl,
  GroupExcl,
  GroupRangeIncl,
  GroupUnion,
  GroupIntersection,
  GroupDifference,
};

struct Object {
  ObjKind Kind;
  Recipe How;
  bool Live;      // not yet freed by the program
  bool Committed; // datatypes: MPI_Type_commit was called
  union {
    MPI_Comm Comm;
    MPI_Datatype Type;
    MPI_Op Op;
    MPI_Group Group;
  } Real;          // this process's MPI object (re-created after restart)
  int NInts;       // creation arguments (saved heap)
  int *Ints;
  int NAints;
  MPI_Aint *Aints;
  int NHandles;    // program handles of other objects, as uint64_t
  uint64_t *Handles;
  MPI_User_function *Fn; // ops
  // Communicators: world rank of each member (for per-peer counters).
  int Size;
  int *WorldRanks;
};

//===-- Requests ----------------------------------------------------------===//

enum class ReqKind : uint8_t { Send, Recv };

struct Request {
  bool InUse;
  ReqKind Kind;
  bool Done;     // completed; Status holds the result
  bool Orphan;   // freed by the program while active
  MPI_Request Real;
  MPI_Status Status;
  // Receives: what to post again after a restart.
  void *Buf;
  int Count;
  MPI_Datatype Type; // program handle
  int Peer, Tag;
  MPI_Comm Comm;     // program handle
};

// A message received by the layer (drained at a checkpoint) and not yet
// delivered to the program.
struct Message {
  Message *Next;
  MPI_Comm Comm; // program handle
  int Source, Tag;
  size_t Bytes;
  char Data[];
};

struct LayerState {
  uint64_t Magic;
  int ThreadRequested;
  int Rank, Size;
  uint64_t *Sent;  // [Size] messages sent to each world rank, ever
  uint64_t *Recvd; // [Size] messages received from each world rank, ever
  Object *Objs;
  uint32_t NObjs, CapObjs;
  Request *Reqs;
  uint32_t NReqs, CapReqs, FreeReqHint;
  Message *Pending, *PendingTail;
};

constexpr uint64_t kStateMagic = 0x31696d6363636363ULL;

// The state (null before MPI_Init), and per-process facts.
extern LayerState *L;
extern MPI_Comm Private; // the layer's own communicator (a dup of WORLD)
extern bool Active;      // between MPI_Init and MPI_Finalize
extern bool Restoring;   // true while a restart rebuilds objects

void *saved(size_t Bytes);   // zeroed, in the saved region
void *scratch(size_t Bytes); // libc
void scratchFree(void *P);
[[noreturn]] void refuse(const char *Fn, const char *Why);

//===-- Handles -----------------------------------------------------------===//

constexpr uint64_t kFakeBase = 0x7ccc00000000ULL;

template <typename H> H encodeHandle(uint32_t Kind, uint32_t Index) {
  if constexpr (std::is_pointer_v<H>)
    return reinterpret_cast<H>(kFakeBase + ((uint64_t)Kind << 32) +
                               (uint64_t)Index * 16);
  else
    return static_cast<H>(0x78000000 | (Kind << 20) | Index);
}

template <typename H> bool decodeHandle(H Handle, uint32_t Kind,
                                        uint32_t *Index) {
  if constexpr (std::is_pointer_v<H>) {
    uint64_t V = reinterpret_cast<uint64_t>(Handle);
    uint64_t Base = kFakeBase + ((uint64_t)Kind << 32);
    if (V < Base || V >= Base + (1ULL << 32) || (V - Base) % 16)
      return false;
    *Index = (uint32_t)((V - Base) / 16);
    return true;
  } else {
    uint32_t V = static_cast<uint32_t>(Handle);
    if ((V & 0xff000000u) != 0x78000000u || ((V >> 20) & 0xf) != Kind)
      return false;
    *Index = V & 0xfffff;
    return true;
  }
}

template <typename H> uint64_t handleBits(H Handle) {
  if constexpr (std::is_pointer_v<H>)
    return reinterpret_cast<uint64_t>(Handle);
  else
    return static_cast<uint64_t>(static_cast<uint32_t>(Handle));
}
template <typename H> H handleFromBits(uint64_t Bits) {
  if constexpr (std::is_pointer_v<H>)
    return reinterpret_cast<H>(Bits);
  else
    return static_cast<H>(static_cast<uint32_t>(Bits));
}

constexpr uint32_t kHandleObj = 1, kHandleReq = 2;

// Program handle <-> object. Predefined handles are not objects.
Object *object(uint64_t HandleBits);
template <typename H> Object *object(H Handle) {
  return object(handleBits(Handle));
}
template <typename H> H objectHandle(uint32_t Index) {
  return encodeHandle<H>(kHandleObj, Index);
}
uint32_t newObject(ObjKind Kind, Recipe How);

MPI_Comm realComm(MPI_Comm C);
MPI_Datatype realType(MPI_Datatype T);
MPI_Op realOp(MPI_Op O);
MPI_Group realGroup(MPI_Group G);
// World rank of rank R of communicator C (program handle).
int worldRank(MPI_Comm C, int R);
// Records the members of a new communicator object.
void recordMembers(Object &O);
// Re-creates object I from its recipe (after a restart).
void rebuildObject(uint32_t I);

// Request table.
MPI_Request newRequest(ReqKind Kind, Request **Out);
Request *request(MPI_Request R);
void releaseRequest(MPI_Request R);

// Point-to-point bookkeeping.
void countSent(MPI_Comm C, int Dest);
void countReceived(MPI_Comm C, int Source);
// A drained message matching (Source, Tag, C), removed from the list.
Message *takePending(MPI_Comm C, int Source, int Tag, bool Remove);
// Copies M into the program's buffer and fills Status (may be ignore).
int deliver(Message *M, void *Buf, int Count, MPI_Datatype Type,
            MPI_Status *Status);

// Protocol.
int siteBlocking(int Kind, int (*Take)());
void drainForCheckpoint();
void afterRestoreRequests();

} // namespace mpi
} // namespace ccc
#endif

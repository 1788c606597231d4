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

#include "rt/common/LibcHeap.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

extern "C" {
void *__ccc_malloc(size_t);
void *__ccc_calloc(size_t, size_t);
void *__ccc_realloc(void *, size_t);
void __ccc_free(void *);
extern volatile int __ccc_pending;
}

namespace ccc {
namespace mpi {

//===-- Objects created by the program ------------------------------------===//

// Collectives a rank started on one communicator (the non-blocking
// protocol's recovery line for collectives, ProtocolCollectives.cpp): N in
// all; Cut, N at this rank's last checkpoint; Max, the largest Cut of any
// member when some member's is smaller (the collectives numbered below it
// crossed the line), else 0.
struct CollCount {
  uint64_t N, Cut, Max;
  // 1 + the number of the first MPI_Comm_idup started on the communicator
  // since this rank's checkpoint (0: none); such a call cannot cross the
  // recovery line (ProtocolCollectives.cpp).
  uint64_t FirstIdup;
};

enum class ObjKind : uint8_t {
  Comm,
  Type,
  Op,
  Group,
  // Communicators.cpp: info objects and error handlers made by the program.
  Info,
  Errh,
  // Files.cpp: MPI-IO files open, and each view set on one.
  File,
};

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
  // Topologies.cpp: communicators with a process topology.
  CartCreate,
  CartSub,
  GraphCreate,
  DistGraphCreate,
  DistGraphAdjacent,
  // Communicators.cpp: the rest of the communicator constructors, remote
  // groups, info objects (contents in Object::Strings) and error handlers
  // with a user function (Object::Fn).
  CommSplitType,
  CommCreateGroup,
  CommDupWithInfo,
  IntercommCreate,
  IntercommMerge,
  GroupRemote,
  InfoCreate,
  ErrhCreate,
  // Datatypes.cpp: datatypes made by makeDatatype.
  TypeHindexedBlock,
  TypeDarray,
  TypeF90Integer,
  TypeF90Real,
  TypeF90Complex,
  GroupRangeExcl,
  // Files.cpp: MPI_File_open, MPI_File_set_view.
  FileOpen,
  FileView,
  // Errhandlers.cpp: MPI_Win_create_errhandler, MPI_File_create_errhandler
  // (Object::Fn).
  WinErrhCreate,
  FileErrhCreate,
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
    MPI_Info Info;
    MPI_Errhandler Errh;
    MPI_File File;
  } Real;    // this process's MPI object (re-created after restart)
  int NInts; // creation arguments (saved heap)
  int *Ints;
  int NAints;
  MPI_Aint *Aints;
  int NHandles; // program handles of other objects, as uint64_t
  uint64_t *Handles;
  MPI_User_function *Fn; // ops
  // Communicators: world rank of each member (for per-peer counters), and
  // a tag agreed by the members, distinct for any two communicators that
  // share a member (with the lowest member, the key that names it in the
  // non-blocking protocol's control messages).
  int Size;
  int *WorldRanks;
  int CollTag;
  // Non-zero: the key that names the communicator in the non-blocking
  // protocol's control messages, in place of (CollTag, lowest member). A
  // communicator from MPI_Comm_idup has no agreed tag (agreeing would block
  // its members); its key is derived from its parent's and the call's
  // number on the parent, the same at every member. An
  // inter-communicator's is (CollTag, lowest member of both groups): its
  // members are the local group and WorldRanks, the remote one.
  uint64_t Key;
  CollCount Coll;      // non-blocking protocol (ProtocolCollectives.cpp)
  uint32_t FreedEpoch; // the epoch the program freed it in
  // Info objects: their keys and values, "key\0value\0" pairs (saved heap).
  char *Strings;
  uint32_t StringsLen;
  // Error handlers: references handed out by MPI_Comm_get_errhandler and
  // not yet freed; the function is Fortran's (handles as MPI_Fint).
  int Refs;
  bool Fortran;
  // Files (FileOpen): what a restart needs beyond the recipe (Files.cpp).
  struct FileState *Fs;
  // Communicators: what a collective's outputs depend on, asked of MPI at
  // the first call that needs it (commFacts, CommFacts.cpp) rather than at
  // every non-blocking collective (two or three MPI calls each). None of
  // it changes in a communicator's life, nor across a restart. (The size
  // of the group that sends to its members is Size, above.)
  struct CommFacts {
    bool Known, Inter;
    int Rank;    // in the local group
    int In, Out; // neighbourhood degrees (0 without a topology)
  } Facts;
};

//===-- Requests ----------------------------------------------------------===//

// Generalized: MPI_Grequest_start (GeneralizedRequests.cpp).
// File: MPI-IO's non-blocking reads and writes (Files.cpp).
enum class ReqKind : uint8_t { Send, Recv, Generalized, Coll, File };

// Where a collective leaves its results at this rank, so that the
// non-blocking protocol can log them and a restart can put them back:
// One: Count elements of Type at Buf; Blocks: N blocks of Counts[i]
// elements of Type at Buf + Displs[i] extents; BlocksW: of Types[i] at
// Buf + Displs[i] bytes (int displacements), BlocksWA (MPI_Aint ones).
// Handles are the program's.
struct CollOutputs {
  enum Shape : uint8_t { None, One, Blocks, BlocksW, BlocksWA } S = None;
  void *Buf = nullptr;
  int Count = 0;
  MPI_Datatype Type = MPI_DATATYPE_NULL;
  int N = 0;
  const int *Counts = nullptr;
  const void *Displs = nullptr;
  const MPI_Datatype *Types = nullptr;
};

struct Request {
  bool InUse;
  ReqKind Kind;
  bool Done;     // completed; Status holds the result
  bool Orphan;   // freed by the program while active
  bool Raw;      // non-blocking protocol: posted without a header (PROC_NULL)
  bool Packed;   // non-blocking protocol: header and data in Hdr's block
  uint32_t *Hdr; // non-blocking protocol: the piggybacked header (its own
                 // block: MPI writes it after the table may have moved)
  bool HdrCell;  // Hdr is a cell (cellAlloc), not a heap block
  uint64_t Op;   // non-blocking protocol: receive operation id (Protocol.cpp)
  // Non-blocking protocol: the receive's number among the layer's postings
  // to MPI (LayerState::Postings), 0 once its outcome is known (Places.cpp).
  uint64_t Posted;
  MPI_Request Real;
  MPI_Status Status;
  // Receives: what to post again after a restart.
  void *Buf;
  int Count;
  MPI_Datatype Type; // program handle
  int Peer, Tag;
  MPI_Comm Comm; // program handle
  // Persistent requests (Persistent.cpp): the fields above are the recipe
  // (sends too); each MPI_Start runs the layer's Isend/Irecv into this
  // slot. Inactive: Done, with an empty status.
  bool Persistent;
  bool Active;
  uint8_t SendMode; // 0 standard, 1 synchronous, 2 buffered, 3 ready
  // Buffered sends (BufferedSends.cpp): the layer's copy of the data (saved
  // heap, freed with the request) and the room it takes in the attached
  // buffer.
  void *Copy;
  int CopyRoom;
  // Generalized requests: MPI_Grequest_complete was called.
  bool GComplete;
  // Non-blocking collectives (Collectives.cpp): the collective's number on
  // Comm, its outputs (the non-blocking protocol only: HasOuts), with
  // copies of their arrays in OutsArrays (saved heap), and whether they go
  // to the message log when it completes (OpenAtLine: it was open at this
  // rank's checkpoint). Kept in the slot, so that a collective without
  // arrays allocates nothing.
  uint64_t CollSeq;
  CollOutputs Outs;
  void *OutsArrays;
  bool HasOuts, LogIt, OpenAtLine;
  MPI_Datatype *RealTypes; // Ialltoallw-like: MPI reads them until done
  // MPI_Comm_idup: 1 + the new communicator's object (0: another
  // collective), and where MPI writes its real handle (its own block, as
  // Hdr's); the object gets it when the request completes.
  uint32_t NewComm;
  MPI_Comm *RealNew;
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

// Non-blocking protocol: a channel and a message whose place waits
// (ProtocolInternal.h).
struct Channel;
struct Unsettled;

// Non-blocking protocol (C3): a process's mode.
enum class Mode : uint8_t { Run, NonDetLog, RecvOnlyLog, Restore };

// An early message received in this epoch: its sender (world rank) and the
// sender's per-destination sequence number, so the sender can suppress
// exactly that send when it re-executes after a restart.
struct EarlyEntry {
  int32_t Src;
  uint32_t Seq;
};

// An error handler the program set on a communicator when NObjs objects
// existed; a restart sets it again at the same point of re-creating the
// objects, so communicators made after it inherit it as they did
// (Errhandlers.cpp).
struct ErrhSet {
  uint64_t Comm; // program handle
  uint64_t Errh; // one of MPI's predefined handlers
  uint32_t NObjs;
};

// A name the program gave a communicator or datatype (Names.cpp).
struct ObjectName {
  uint64_t Handle; // program handle
  uint8_t Kind;    // communicator or datatype
  char Name[MPI_MAX_OBJECT_NAME];
};

struct LayerState {
  uint64_t Magic;
  uint8_t Protocol; // 1 blocking, 2 non-blocking
  // Non-blocking protocol (Protocol.cpp). Counters are per world rank and
  // per epoch.
  Mode M;
  bool Initiated;       // another rank started the next checkpoint
  uint32_t Epoch;       // checkpoints taken (restored with the image)
  uint64_t VersionBase; // checkpoint version = VersionBase + Epoch
  uint64_t RecvSeq;     // receive operations posted in this epoch
  CollCount WorldColl;  // collectives on MPI_COMM_WORLD
  uint64_t *SentEp;     // messages sent in this epoch (sequence numbers)
  uint64_t *RecvEp;     // intra-epoch messages received in this epoch
  uint64_t *EarlyEp;    // early messages (sender in the next epoch)
  uint64_t *LateGot;    // previous-epoch messages received (period)
  int64_t *LateWant;    // from Checkpoint-Initiated; -1 until it came
  int64_t *FutureWant;  // Checkpoint-Initiated for our next epoch
  EarlyEntry *Early;
  uint32_t NEarly, CapEarly;
  int ThreadRequested;
  int Rank, Size;
  uint64_t *Sent;  // [Size] messages sent to each world rank, ever
  uint64_t *Recvd; // [Size] messages received from each world rank, ever
  Object *Objs;
  uint32_t NObjs, CapObjs;
  Request *Reqs;
  uint32_t NReqs, CapReqs, FreeReqHint;
  int NextCollTag; // Object::CollTag: this rank's next free one
  Message *Pending, *PendingTail;
  ErrhSet *ErrhSets;
  uint32_t NErrhSets, CapErrhSets;
  // Matched probe (MatchedProbe.cpp): messages matched by MPI_Mprobe and
  // not received yet; an MPI_Message is a ccc handle of a slot (null: free).
  Message **Matched;
  uint32_t NMatched;
  // MPI_Buffer_attach (BufferedSends.cpp): the program's buffer, kept for
  // MPI_Buffer_detach and the room check; MPI never sees it.
  void *BsendBuf;
  int BsendSize;
  bool BsendAttached;
  ObjectName *Names; // Names.cpp
  uint32_t NNames, CapNames;
  // Attributes.cpp: keyvals, attribute values; Errhandlers.cpp: added
  // error classes, codes and strings, in the order the program added them.
  struct Keyval *Keyvals;
  uint32_t NKeyvals, CapKeyvals;
  struct Attr *Attrs;
  uint32_t NAttrs, CapAttrs;
  struct ErrorAdd *ErrorAdds;
  uint32_t NErrorAdds, CapErrorAdds;
  // Files.cpp: the error handler set on MPI_FILE_NULL (files opened later
  // get it), a predefined one; 0 if never set.
  uint64_t FileNullErrh;
  // Windows.cpp: the program's RMA windows, in creation order.
  struct Window *Wins;
  uint32_t NWins, CapWins;
  // Free cells for small request blocks (cellAlloc, PointToPoint.cpp),
  // linked through their first word.
  void *FreeCells;
  // Clock.cpp: MPI_Wtime when the image was taken.
  double WtimeAtCheckpoint;
  // Places.cpp: the channel table (open addressing, CapChans a power of
  // two), the messages whose place is not settled yet (in posting order),
  // the receives posted to MPI so far, and the places the check compared.
  Channel *Chans;
  uint32_t NChans, CapChans;
  Unsettled *Waiting;
  uint32_t NWaiting, CapWaiting;
  uint64_t Postings;
  uint64_t PlacesChecked;
};

// A keyval the program created (its handle is a ccc handle of kind
// kHandleKeyval holding the index): MPI calls the layer's callbacks, which
// call the program's with its handles (Attributes.cpp).
enum : uint8_t { kKeyvalComm, kKeyvalType, kKeyvalWin };
struct Keyval {
  uint8_t Kind; // kKeyval*
  bool Live;
  bool Fortran; // Fortran callbacks (arguments by reference, MPI_Fint)
  void *Copy, *Delete, *Extra;
  int Real;
};
// The value of an attribute: set again on its object after a restart.
struct Attr {
  uint64_t Obj; // program handle (a ccc one, or MPI_COMM_WORLD/SELF)
  uint32_t Keyval;
  bool Live;
  void *Val;
};
// MPI_Add_error_class (Op 0, Result the class), _code (1: Arg the class,
// Result the code), _string (2: Arg the code, Str the string).
struct ErrorAdd {
  uint8_t Op;
  int Arg, Result;
  char *Str;
};

constexpr uint64_t kStateMagic = 0x32696d6363636363ULL;

// The state (null before MPI_Init), and per-process facts.
extern LayerState *L;
extern MPI_Comm Private; // the layer's own communicator (a dup of WORLD)

// Node-local storage (NodeLocal.cpp, CCC_LOCAL_DIR): partners and their
// receiver, set up collectively after MPI is initialised; a copy of one of
// this rank's files to its partner (true when durable there, or when there
// is no partner); on restart, the files brought to the hosts that need
// them (collective).
void nodeLocalInit();
// write(2)/read(2) of all N bytes (EINTR retried); false on error or EOF.
bool writeAll(int Fd, const void *P, size_t N);
bool readAll(int Fd, void *P, size_t N);
bool partnerCopy(const char *Path, char *Why, size_t Cap);
// CCC_FLUSH_EVERY: the copy of one of this rank's files of a flushed
// version to the shared CCC_DIR (true when durable there, or not flushed).
bool flushCopy(const char *Path, char *Why, size_t Cap);
void nodeLocalGather(const uint64_t *Versions, int N);
extern bool Active;    // between MPI_Init and MPI_Finalize
extern bool Restoring; // true while a restart rebuilds objects
// CCC_DISABLE=1: the program runs without ccc, so every call the layer
// defines by hand goes straight to MPI (the generated ones pass through
// too: the layer is never active and has no tables).
extern bool Bypass;

// Whether the code at return address Ret is the MPI library's own: MPICH's
// ROMIO calls MPI_Type_create_resized and MPI_Type_free_keyval by their
// public names, which the layer defines; those calls must reach MPI as they
// are (Init.cpp).
bool calledByMpi(void *Ret);

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

template <typename H>
bool decodeHandle(H Handle, uint32_t Kind, uint32_t *Index) {
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

constexpr uint32_t kHandleObj = 1, kHandleReq = 2, kHandleMsg = 3;
constexpr uint32_t kHandleKeyval = 4; // Attributes.cpp

// Program handle <-> object. Predefined handles are not objects. Inline:
// every wrapped call translates two or three handles.
inline Object *object(uint64_t Bits) {
  uint32_t I;
  if (!L || !decodeHandle(handleFromBits<MPI_Comm>(Bits), kHandleObj, &I) ||
      I >= L->NObjs)
    return nullptr;
  return &L->Objs[I];
}
template <typename H> Object *object(H Handle) {
  return object(handleBits(Handle));
}
template <typename H> H objectHandle(uint32_t Index) {
  return encodeHandle<H>(kHandleObj, Index);
}
uint32_t newObject(ObjKind Kind, Recipe How);

// MPI's info object and error handler of a program handle (Info.cpp,
// Errhandlers.cpp).
MPI_Info realInfo(MPI_Info I);
MPI_Errhandler realErrhandler(MPI_Errhandler E);
inline MPI_Comm realComm(MPI_Comm C) {
  Object *O = object(C);
  return O ? O->Real.Comm : C;
}
inline MPI_Datatype realType(MPI_Datatype T) {
  Object *O = object(T);
  return O ? O->Real.Type : T;
}
// File handles are pointers in both MPIs (MPICH's other handles are ints,
// which object() decodes): looked up on their own.
inline Object *fileHandleObject(MPI_File F) {
  uint32_t I;
  if (!L || !decodeHandle(F, kHandleObj, &I) || I >= L->NObjs)
    return nullptr;
  return &L->Objs[I];
}
inline MPI_File realFile(MPI_File F) {
  Object *O = fileHandleObject(F);
  return O ? O->Real.File : F;
}
MPI_Op realOp(MPI_Op O);
MPI_Group realGroup(MPI_Group G);
// World rank of rank R of communicator C (program handle); -1 if none.
int worldRankOf(MPI_Comm C, int R);
inline int worldRank(MPI_Comm C, int R) {
  return C == MPI_COMM_WORLD ? R : worldRankOf(C, R);
}

// The byte count a status holds (what MPI_Get_elements_x reports for
// MPI_BYTE), and setting it. Read from the implementation's own fields
// where the layer knows them: the two calls cost about 200 instructions
// per message, a good part of the layer's cost on small receives.
inline MPI_Count statusBytes(const MPI_Status &S) {
#if defined(OPEN_MPI)
  return (MPI_Count)S._ucount;
#elif defined(MPICH)
  return (MPI_Count)((uint64_t)(uint32_t)S.count_lo |
                     (uint64_t)((uint32_t)S.count_hi_and_cancelled >> 1) << 32);
#else
  MPI_Count B = 0;
  PMPI_Get_elements_x(&S, MPI_BYTE, &B);
  return B;
#endif
}
inline bool statusCancelled(const MPI_Status &S) {
#if defined(OPEN_MPI)
  return S._cancelled;
#elif defined(MPICH)
  return S.count_hi_and_cancelled & 1;
#else
  int C = 0;
  PMPI_Test_cancelled(&S, &C);
  return C;
#endif
}
// Whether a receive that returned Err got a message (whole, or truncated:
// MPI returns error codes, whose class names the error).
inline bool messageArrived(int Err) {
  if (Err == MPI_SUCCESS)
    return true;
  int Class = MPI_ERR_OTHER;
  PMPI_Error_class(Err, &Class);
  return Class == MPI_ERR_TRUNCATE;
}
inline void setStatusBytes(MPI_Status &S, MPI_Count B) {
#if defined(OPEN_MPI)
  S._ucount = (size_t)B;
#elif defined(MPICH)
  S.count_lo = (int)(uint32_t)B;
  S.count_hi_and_cancelled =
      (S.count_hi_and_cancelled & 1) | (int)(((uint64_t)B >> 32) << 1);
#else
  PMPI_Status_set_elements_x(&S, MPI_BYTE, B);
#endif
}
// Records the members of a new communicator object.
void recordMembers(Object &O);
// The same from the real communicator Real (MPI_Comm_idup: the parent's
// members, before the new communicator exists).
void recordMembersFrom(Object &O, MPI_Comm Real);
// Makes a communicator from Parent (program handle) by recipe How with the
// integer arguments Ints, recorded for restart (Objects.cpp); and makes the
// MPI object of a topology recipe (Topologies.cpp).
int createComm(Recipe How, MPI_Comm Parent, MPI_Comm *Out, int NInts,
               const int *Ints);
int makeTopology(Object &O);
// Re-creates object I from its recipe (after a restart).
void rebuildObject(uint32_t I);
// After a restart, before re-creating object NObjs (or after the last):
// sets again the error handlers the program set at that point.
void replayErrhandlers(uint32_t NObjs);
// After a restart, once every object exists: names them again (Names.cpp).
void replayNames();

// Request table.
// Slot I, free, becomes a request of Kind: all its fields zero but these.
inline MPI_Request takeSlot(uint32_t I, ReqKind Kind, Request **Out) {
  L->FreeReqHint = I + 1;
  Request &R = L->Reqs[I];
  memset(&R, 0, sizeof(R));
  R.InUse = true;
  R.Kind = Kind;
  R.Real = MPI_REQUEST_NULL;
  *Out = &R;
  return encodeHandle<MPI_Request>(kHandleReq, I);
}
// A free slot of the table, found past the hint (and the table grown if
// none is left).
MPI_Request newRequestGrow(ReqKind Kind, Request **Out);
// A new request of Kind: *Out is its slot, valid until the next new one.
// Inline for the common case, the slot at the hint free (every request so
// far released in turn).
inline MPI_Request newRequest(ReqKind Kind, Request **Out) {
  uint32_t I = L->FreeReqHint;
  if (__builtin_expect(I < L->NReqs && !L->Reqs[I].InUse, 1))
    return takeSlot(I, Kind, Out);
  return newRequestGrow(Kind, Out);
}
// The slot of handle H, or null if H is not one of the layer's requests in
// use. Inline: every completion call starts here.
inline Request *request(MPI_Request H) {
  uint32_t I;
  if (!L || !decodeHandle(H, kHandleReq, &I) || I >= L->NReqs ||
      !L->Reqs[I].InUse)
    return nullptr;
  return &L->Reqs[I];
}
uint32_t *headerOf(Request &R);
// A block of Bytes for R.Hdr (a header, or a header and packed data): a
// cell if it fits one, so that a small message's request takes no lock
// and no heap call; releaseHeader gives back the one R holds.
constexpr size_t kCellBytes = 64;
uint32_t *newHeader(Request &R, size_t Bytes);
void releaseHeader(Request &R);
void releaseRequest(MPI_Request R);
// A request the program may complete (in use, and not an inactive
// persistent one), or null.
Request *liveRequest(MPI_Request R);
// Marks R complete with the empty status (a request finished without MPI:
// from the log, or by a restart).
void completeEmpty(Request &R);
// Reaps the layer's own buffered-send copies whose sends completed; frees
// the table slot (and copy) of R (BufferedSends.cpp, PointToPoint.cpp).
void reapBufferedSends();
void releaseSlot(Request &R);
// MPI keeps a persistent request's datatype alive after the program frees
// it: whether a persistent request in the table names datatype T
// (Persistent.cpp). The layer keeps such a type's real type, and makes it
// again at a restart, until the last of them is freed; then
// releaseFreedType frees it.
bool typeHeld(MPI_Datatype T);
void releaseFreedType(MPI_Datatype T);
// The layer's buffered send (a copy sent with Isend); Out: a request the
// program may hold (MPI_Ibsend, persistent Bsend_init), or null.
int bufferedSend(const void *Buf, int Count, MPI_Datatype Type, int Dest,
                 int Tag, MPI_Comm C, MPI_Request *Out);
// Wraps the runtime's image writer: a rank with a generalized request open
// (not MPI_Grequest_complete'd) cannot write a restartable image
// (GeneralizedRequests.cpp).
int (*guardTake(int (*Take)()))();
// Files.cpp: wraps it too: completes MPI-IO requests and records each open
// file's pointers and size for the image (no image while a split
// collective is open); makes and frees file objects; after a restart once
// every object exists, puts the files back as they were at the checkpoint.
int (*guardFiles(int (*Take)()))();
int makeFileObject(Object &O);
void freeFileObject(Object &O);
void filesAfterRestore();
void filesBeforeRestore();
// Objects.cpp: a new object with its recipe's arguments (copied into the
// saved region), not made yet; its index.
uint32_t recordObject(ObjKind Kind, Recipe How, int NInts, const int *Ints,
                      int NAints, const MPI_Aint *Aints, int NHandles,
                      const uint64_t *Handles);
// Objects.cpp: makes O's MPI object from its recipe (an MPI error code).
int makeObject(Object &O);

// Point-to-point bookkeeping.
void countSent(MPI_Comm C, int Dest);
void countReceived(MPI_Comm C, int Source);
// A drained message matching (Source, Tag, C), removed from the list.
Message *takePending(MPI_Comm C, int Source, int Tag, bool Remove);
// Unpacks Bytes of packed data (MPI_Pack's form) into Count elements of
// RealType at Buf, as a receive would: at most Count elements, the last
// one possibly in part.
void unpackBytes(const void *Data, size_t Bytes, void *Buf, int Count,
                 MPI_Datatype RealType);
void freeSelfComm(); // MPI_Finalize: unpackBytes' communicator
// Copies M into the program's buffer and fills Status (may be ignore).
int deliver(Message *M, void *Buf, int Count, MPI_Datatype Type,
            MPI_Status *Status);
// A status describing M as received (not yet delivered); its MPI_ERROR
// is left as it was.
void fillStatus(MPI_Status *S, const Message *M);

// A call that returns one status leaves its MPI_ERROR as the program set it
// (MPI-3.1, 3.2.5: the error is the function's value); both MPIs do so, but
// for MPICH's MPI_Probe and MPI_Iprobe, which set it to MPI_SUCCESS. Where
// the layer fills such a status itself, KeptError puts the program's value
// back when the call succeeds: `KeptError Keep(Status); ... return
// Keep(Err);`.
class KeptError {
  MPI_Status *S;
  int E;

public:
  explicit KeptError(MPI_Status *Status)
      : S(Status == MPI_STATUS_IGNORE ? nullptr : Status),
        E(S ? S->MPI_ERROR : MPI_SUCCESS) {}
  int operator()(int Err) const {
    if (S && Err == MPI_SUCCESS)
      S->MPI_ERROR = E;
    return Err;
  }
};
#if defined(MPICH_VERSION)
constexpr bool kProbeSetsError = true;
#else
constexpr bool kProbeSetsError = false;
#endif

// Protocol.
extern bool NonBlocking; // CCC_PROTOCOL=nonblocking
int siteBlocking(int Kind, int (*Take)());
// Rank 0: writes the commit record of V if every rank wrote what it must
// (AllOk; What names it in the message otherwise), and prunes.
bool commitVersion(uint64_t V, bool AllOk, const char *What);
// A call of a function the layer cannot checkpoint (`refuse` in the spec,
// or not written yet): it ran, and the first one is remembered (Fn copied;
// Why a literal); nothing with CCC_DISABLE=1. refuseIfUnsupported stops the
// job with refuse()'s message for it, where a checkpoint is about to be
// taken (both protocols' sites): a program that never checkpoints runs as
// without ccc.
void noteRefused(const char *Fn, const char *Why);
void refuseIfUnsupported();
// Re-creates every object a restart needs, in creation order, freeing
// again those the program freed once no later recipe needs them
// (Objects.cpp); replaces calling rebuildObject for each.
void rebuildObjects();
// Datatypes: a new datatype object from a recipe (Objects.cpp), an object
// with From's recipe (Type_get_contents hands out such copies), and the
// MPI object of the recipes of Datatypes.cpp.
int createType(Recipe How, MPI_Datatype *Out, int NInts, const int *Ints,
               int NAints, const MPI_Aint *Aints, int NHandles,
               const uint64_t *Handles);
uint32_t cloneObject(uint32_t From);
int makeDatatype(Object &O);

//===-- Windows.cpp (issue 23, one-sided) ---------------------------------===//
// A window the program made is a ccc handle of kind kHandleWin (index into
// L->Wins); realWin gives MPI's (other handles pass through).
constexpr uint32_t kHandleWin = 7;
MPI_Win realWin(MPI_Win W);
// After a restart, once the communicators exist: makes every live window
// again, in creation order, over the same memory.
void rebuildWindows();
// The program's handle of MPI's window Real (MPI_WIN_NULL if none); and
// what the program sees of window attribute Key that MPI gave in *Val (the
// program's address for MPI_WIN_BASE, MPI_Win_allocate's flavour).
MPI_Win programWin(MPI_Win Real);
void programWinAttr(MPI_Win H, int Key, void *Val);
// Wraps the image writer: completes RMA before the image (blocking
// protocol) or notes the open fence epoch (non-blocking), and re-opens the
// epochs the program had open when a restart returns through it.
int (*windowTake(int (*Take)()))();
// Non-blocking protocol, at a site: whether to checkpoint now (Want: the
// rank's own wish) when fence-mode windows must agree on it at a fence.
bool windowsWant(bool Want);
// Non-blocking protocol, at every site (Run: the rank is in the Run mode):
// the members of windows that checkpoint together (passive target,
// post/start, shared memory) decide whether they take one at this site
// (kGroupTake), must wait for a later one (kGroupHold), or leave it to the
// protocol (kGroupNone: no such window, or no wish).
enum { kGroupNone, kGroupTake, kGroupHold };
int windowsAgree(bool Want, bool Run);

// Clock.cpp: wraps the image writer to note MPI_Wtime in the image; after
// a restart, sets MPI_Wtime to go on from there.
int (*clockTake(int (*Take)()))();
void clockAfterRestore();

} // namespace mpi
} // namespace ccc

// The non-blocking protocol's entry points, used by the wrappers of every
// kind of call (a header of its own: Layer.h holds the state).
#include "NonBlockingProtocol.h"

#endif

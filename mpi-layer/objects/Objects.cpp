//===- Objects.cpp - Communicators, datatypes, ops and groups -------------===//
//
// Every object the program creates gets an entry that keeps its recipe
// (the creation call's arguments, with program handles). After a restart
// the entries are replayed in creation order, which is the order the
// original run made its collective creation calls in, so the replay cannot
// deadlock where the program did not. Every communicator is replayed (its
// creation was collective), freed ones too, and freed again. A freed
// datatype, group or op stays in the table while a recipe replayed later
// names it (as MPI itself keeps an object alive while others refer to it):
// a restart re-creates it only then, and frees it once the last object made
// from it is made (rebuildObjects).
//
//===----------------------------------------------------------------------===//
#include "CommunicatorCalls.h"
#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"

#include <cstring>

namespace ccc {
namespace mpi {

uint32_t newObject(ObjKind Kind, Recipe How) {
  if (L->NObjs == L->CapObjs) {
    uint32_t Cap = L->CapObjs ? 2 * L->CapObjs : 64;
    auto *N = static_cast<Object *>(saved(Cap * sizeof(Object)));
    if (L->NObjs)
      memcpy(N, L->Objs, L->NObjs * sizeof(Object));
    __ccc_free(L->Objs);
    L->Objs = N;
    L->CapObjs = Cap;
  }
  Object &O = L->Objs[L->NObjs];
  memset(&O, 0, sizeof(O));
  O.Kind = Kind;
  O.How = How;
  O.Live = true;
  return L->NObjs++;
}

MPI_Op realOp(MPI_Op Op) {
  Object *O = object(Op);
  return O ? O->Real.Op : Op;
}
MPI_Group realGroup(MPI_Group G) {
  Object *O = object(G);
  return O ? O->Real.Group : G;
}

int worldRankOf(MPI_Comm C, int R) {
  if (C == MPI_COMM_WORLD)
    return R;
  if (C == MPI_COMM_SELF)
    return L->Rank;
  Object *O = object(C);
  if (O && O->WorldRanks && R >= 0 && R < O->Size)
    return O->WorldRanks[R];
  return -1;
}

void recordMembers(Object &O) { recordMembersFrom(O, O.Real.Comm); }

void recordMembersFrom(Object &O, MPI_Comm Real) {
  MPI_Group G, World;
  // An inter-communicator's ranks in point-to-point calls are the remote
  // group's: its peers are those.
  int Inter = 0;
  PMPI_Comm_test_inter(Real, &Inter);
  if (Inter)
    PMPI_Comm_remote_group(Real, &G);
  else
    PMPI_Comm_group(Real, &G);
  PMPI_Comm_group(MPI_COMM_WORLD, &World);
  PMPI_Group_size(G, &O.Size);
  int *Mine = static_cast<int *>(scratch(O.Size * sizeof(int)));
  for (int I = 0; I < O.Size; ++I)
    Mine[I] = I;
  O.WorldRanks = static_cast<int *>(saved(O.Size * sizeof(int)));
  PMPI_Group_translate_ranks(G, O.Size, Mine, World, O.WorldRanks);
  scratchFree(Mine);
  PMPI_Group_free(&G);
  PMPI_Group_free(&World);
}

namespace {

void setArgs(Object &O, int NInts, const int *Ints, int NAints,
             const MPI_Aint *Aints, int NHandles, const uint64_t *Handles) {
  O.NInts = NInts;
  O.Ints = static_cast<int *>(saved(NInts * sizeof(int)));
  if (NInts)
    memcpy(O.Ints, Ints, NInts * sizeof(int));
  O.NAints = NAints;
  O.Aints = static_cast<MPI_Aint *>(saved(NAints * sizeof(MPI_Aint)));
  if (NAints)
    memcpy(O.Aints, Aints, NAints * sizeof(MPI_Aint));
  O.NHandles = NHandles;
  O.Handles = static_cast<uint64_t *>(saved(NHandles * sizeof(uint64_t)));
  if (NHandles)
    memcpy(O.Handles, Handles, NHandles * sizeof(uint64_t));
}

MPI_Comm commArg(const Object &O, int I) {
  return realComm(handleFromBits<MPI_Comm>(O.Handles[I]));
}
MPI_Datatype typeArg(const Object &O, int I) {
  return realType(handleFromBits<MPI_Datatype>(O.Handles[I]));
}
MPI_Group groupArg(const Object &O, int I) {
  return realGroup(handleFromBits<MPI_Group>(O.Handles[I]));
}

// Makes the MPI object of O from its recipe. Returns an MPI error code.
int make(Object &O) {
  const int *I = O.Ints;
  const MPI_Aint *A = O.Aints;
  switch (O.How) {
  case Recipe::CommDup:
    return PMPI_Comm_dup(commArg(O, 0), &O.Real.Comm);
  case Recipe::CommSplit:
    return PMPI_Comm_split(commArg(O, 0), I[0], I[1], &O.Real.Comm);
  case Recipe::CommCreate:
    return PMPI_Comm_create(commArg(O, 0), groupArg(O, 1), &O.Real.Comm);
  case Recipe::TypeContiguous:
    return PMPI_Type_contiguous(I[0], typeArg(O, 0), &O.Real.Type);
  case Recipe::TypeVector:
    return PMPI_Type_vector(I[0], I[1], I[2], typeArg(O, 0), &O.Real.Type);
  case Recipe::TypeHvector:
    return PMPI_Type_create_hvector(I[0], I[1], A[0], typeArg(O, 0),
                                    &O.Real.Type);
  case Recipe::TypeIndexed:
    return PMPI_Type_indexed(I[0], I + 1, I + 1 + I[0], typeArg(O, 0),
                             &O.Real.Type);
  case Recipe::TypeHindexed:
    return PMPI_Type_create_hindexed(I[0], I + 1, A, typeArg(O, 0),
                                     &O.Real.Type);
  case Recipe::TypeIndexedBlock:
    return PMPI_Type_create_indexed_block(I[0], I[1], I + 2, typeArg(O, 0),
                                          &O.Real.Type);
  case Recipe::TypeStruct: {
    auto *T =
        static_cast<MPI_Datatype *>(scratch(O.NHandles * sizeof(MPI_Datatype)));
    for (int K = 0; K < O.NHandles; ++K)
      T[K] = typeArg(O, K);
    int R = PMPI_Type_create_struct(I[0], I + 1, A, T, &O.Real.Type);
    scratchFree(T);
    return R;
  }
  case Recipe::TypeResized:
    return PMPI_Type_create_resized(typeArg(O, 0), A[0], A[1], &O.Real.Type);
  case Recipe::TypeSubarray:
    return PMPI_Type_create_subarray(I[0], I + 2, I + 2 + I[0],
                                     I + 2 + 2 * I[0], I[1], typeArg(O, 0),
                                     &O.Real.Type);
  case Recipe::TypeDup:
    return PMPI_Type_dup(typeArg(O, 0), &O.Real.Type);
  case Recipe::TypeHindexedBlock:
  case Recipe::TypeDarray:
  case Recipe::TypeF90Integer:
  case Recipe::TypeF90Real:
  case Recipe::TypeF90Complex:
    return makeDatatype(O);
  case Recipe::OpCreate:
    return PMPI_Op_create(O.Fn, I[0], &O.Real.Op);
  case Recipe::GroupOfComm:
    return PMPI_Comm_group(commArg(O, 0), &O.Real.Group);
  case Recipe::GroupIncl:
    return PMPI_Group_incl(groupArg(O, 0), I[0], I + 1, &O.Real.Group);
  case Recipe::GroupExcl:
    return PMPI_Group_excl(groupArg(O, 0), I[0], I + 1, &O.Real.Group);
  case Recipe::GroupRangeIncl: // I[0] ranges of 3 ints
    return PMPI_Group_range_incl(
        groupArg(O, 0), I[0],
        reinterpret_cast<int(*)[3]>(const_cast<int *>(I + 1)), &O.Real.Group);
  case Recipe::GroupRangeExcl:
    return PMPI_Group_range_excl(
        groupArg(O, 0), I[0],
        reinterpret_cast<int(*)[3]>(const_cast<int *>(I + 1)), &O.Real.Group);
  case Recipe::GroupUnion:
    return PMPI_Group_union(groupArg(O, 0), groupArg(O, 1), &O.Real.Group);
  case Recipe::GroupIntersection:
    return PMPI_Group_intersection(groupArg(O, 0), groupArg(O, 1),
                                   &O.Real.Group);
  case Recipe::GroupDifference:
    return PMPI_Group_difference(groupArg(O, 0), groupArg(O, 1), &O.Real.Group);
  case Recipe::CartCreate:
  case Recipe::CartSub:
  case Recipe::GraphCreate:
  case Recipe::DistGraphCreate:
  case Recipe::DistGraphAdjacent:
    return makeTopology(O);
  case Recipe::CommSplitType:
  case Recipe::CommCreateGroup:
  case Recipe::CommDupWithInfo:
  case Recipe::IntercommCreate:
  case Recipe::IntercommMerge:
  case Recipe::GroupRemote:
  case Recipe::InfoCreate:
  case Recipe::ErrhCreate:
  case Recipe::WinErrhCreate:
  case Recipe::FileErrhCreate:
    return makeCommunicator(O);
  case Recipe::FileOpen:
  case Recipe::FileView:
    return makeFileObject(O);
  }
  return MPI_ERR_INTERN;
}

void freeReal(Object &O) {
  switch (O.Kind) {
  case ObjKind::Comm:
    if (O.Real.Comm != MPI_COMM_NULL)
      PMPI_Comm_free(&O.Real.Comm);
    break;
  case ObjKind::Type:
    PMPI_Type_free(&O.Real.Type);
    forgetTypeShapes();
    break;
  case ObjKind::Op:
    PMPI_Op_free(&O.Real.Op);
    break;
  case ObjKind::Group:
    if (O.Real.Group != MPI_GROUP_EMPTY)
      PMPI_Group_free(&O.Real.Group);
    break;
  case ObjKind::Info:
  case ObjKind::Errh:
    freeOther(O);
    break;
  case ObjKind::File:
    freeFileObject(O);
    break;
  }
}

// Creates an object from a recipe; hands the program its handle.
template <typename H>
int create(ObjKind Kind, Recipe How, H *Out, int NInts, const int *Ints,
           int NAints, const MPI_Aint *Aints, int NHandles,
           const uint64_t *Handles, MPI_User_function *Fn = nullptr) {
  uint32_t Idx = newObject(Kind, How);
  Object &O = L->Objs[Idx];
  setArgs(O, NInts, Ints, NAints, Aints, NHandles, Handles);
  O.Fn = Fn;
  // MPI's output starts as the program's: a failed call hands back what
  // MPI left there (the null handle, or the program's value untouched).
  static_assert(sizeof(H) <= sizeof(O.Real), "a handle fits Object::Real");
  memcpy(&O.Real, Out, sizeof(H));
  int R = make(O);
  if (R != MPI_SUCCESS) {
    memcpy(Out, &O.Real, sizeof(H));
    L->NObjs--;
    return R;
  }
  // A communicator this rank is not part of is MPI_COMM_NULL; it stays an
  // entry (the replay must make the same collective call) but the program
  // sees the null handle.
  if (Kind == ObjKind::Comm && O.Real.Comm == MPI_COMM_NULL) {
    O.Live = false;
    *Out = handleFromBits<H>(handleBits(MPI_COMM_NULL));
    return R;
  }
  if (Kind == ObjKind::Comm) {
    recordMembers(O);
    int Next = L->NextCollTag > 3 ? L->NextCollTag : 3;
    O.CollTag = agreeCollTag(O.Real.Comm, Next);
    L->NextCollTag = O.CollTag + 1;
    int Inter = 0;
    PMPI_Comm_test_inter(O.Real.Comm, &Inter);
    if (Inter)
      O.Key = interCommKey(O.Real.Comm, O.CollTag, O.WorldRanks, O.Size);
  }
  *Out = objectHandle<H>(Idx);
  return R;
}

// A handle that is no ccc handle is MPI's own (from a call the layer does
// not record, say MPI_Win_get_group): MPI frees it (or reports the error).
template <typename H> int release(H *Handle, ObjKind Kind) {
  Object *O = object(*Handle);
  if (!O) {
    switch (Kind) {
    case ObjKind::Comm:
      return PMPI_Comm_free(reinterpret_cast<MPI_Comm *>(Handle));
    case ObjKind::Type:
      return PMPI_Type_free(reinterpret_cast<MPI_Datatype *>(Handle));
    case ObjKind::Op:
      return PMPI_Op_free(reinterpret_cast<MPI_Op *>(Handle));
    case ObjKind::Group:
      return PMPI_Group_free(reinterpret_cast<MPI_Group *>(Handle));
    }
  }
  if (O->Kind != Kind || !O->Live)
    return MPI_ERR_ARG;
  O->Live = false;
  O->FreedEpoch = L->Epoch;
  if (Kind != ObjKind::Type ||
      !typeHeld(handleFromBits<MPI_Datatype>(handleBits(*Handle))))
    freeReal(*O);
  // The bits as they are: handleBits of a uint64_t would cut a pointer.
  *Handle =
      handleFromBits<H>(Kind == ObjKind::Comm   ? handleBits(MPI_COMM_NULL)
                        : Kind == ObjKind::Type ? handleBits(MPI_DATATYPE_NULL)
                        : Kind == ObjKind::Op   ? handleBits(MPI_OP_NULL)
                                                : handleBits(MPI_GROUP_NULL));
  return MPI_SUCCESS;
}

} // namespace

int createComm(Recipe How, MPI_Comm Parent, MPI_Comm *Out, int NInts,
               const int *Ints) {
  if (Bypass) { // CCC_DISABLE=1: no table, MPI's communicator as it is
    Object O;
    memset(&O, 0, sizeof(O));
    uint64_t H[] = {handleBits(Parent)};
    O.Kind = ObjKind::Comm;
    O.How = How;
    O.NInts = NInts;
    O.Ints = const_cast<int *>(Ints);
    O.NHandles = 1;
    O.Handles = H;
    int R = make(O);
    *Out = O.Real.Comm;
    return R;
  }
  if (NonBlocking)
    nbCommCreation(Parent);
  uint64_t H[] = {handleBits(Parent)};
  return create(ObjKind::Comm, How, Out, NInts, Ints, 0, nullptr, 1, H);
}

int createCommFrom(Recipe How, int NH, const uint64_t *H, int NInts,
                   const int *Ints, MPI_Comm *Out) {
  return create(ObjKind::Comm, How, Out, NInts, Ints, 0, nullptr, NH, H);
}

int createGroupFrom(Recipe How, int NH, const uint64_t *H, MPI_Group *Out) {
  return create(ObjKind::Group, How, Out, 0, nullptr, 0, nullptr, NH, H);
}

int createType(Recipe How, MPI_Datatype *Out, int NInts, const int *Ints,
               int NAints, const MPI_Aint *Aints, int NHandles,
               const uint64_t *Handles) {
  return create(ObjKind::Type, How, Out, NInts, Ints, NAints, Aints, NHandles,
                Handles);
}

uint32_t recordObject(ObjKind Kind, Recipe How, int NInts, const int *Ints,
                      int NAints, const MPI_Aint *Aints, int NHandles,
                      const uint64_t *Handles) {
  uint32_t Idx = newObject(Kind, How);
  setArgs(L->Objs[Idx], NInts, Ints, NAints, Aints, NHandles, Handles);
  return Idx;
}

int makeObject(Object &O) { return make(O); }

void releaseFreedType(MPI_Datatype T) {
  Object *O = object(T);
  if (O && O->Kind == ObjKind::Type && !O->Live &&
      O->Real.Type != MPI_DATATYPE_NULL && !typeHeld(T))
    freeReal(*O);
}

uint32_t cloneObject(uint32_t From) {
  uint32_t Idx = newObject(L->Objs[From].Kind, L->Objs[From].How);
  Object &F = L->Objs[From], &O = L->Objs[Idx];
  setArgs(O, F.NInts, F.Ints, F.NAints, F.Aints, F.NHandles, F.Handles);
  O.Fn = F.Fn;
  return Idx;
}

void rebuildObject(uint32_t Idx) {
  Object &O = L->Objs[Idx];
  if (make(O) != MPI_SUCCESS)
    fatal("cannot re-create MPI object %u after restart", Idx);
  if (O.Kind == ObjKind::Type && O.Committed)
    PMPI_Type_commit(&O.Real.Type);
}

// Whether object I is a datatype a persistent request still names.
static bool heldType(uint32_t I) {
  return L->Objs[I].Kind == ObjKind::Type &&
         typeHeld(objectHandle<MPI_Datatype>(I));
}

void rebuildObjects() {
  uint32_t N = L->NObjs;
  // Last[I]: the last object whose making needs object I (I itself if only
  // I's own liveness), -1 if I need not be made. References always point
  // to earlier objects, so one backward pass sees every user of I first.
  auto *Last = static_cast<int64_t *>(scratch(N * sizeof(int64_t)));
  auto *Held = static_cast<bool *>(scratch(N));
  for (uint32_t I = 0; I < N; ++I) {
    const Object &O = L->Objs[I];
    // Communicators: their making was collective. Info objects and error
    // handlers: a later recipe or handler setting may name them (they stay
    // alive until the restore ends, Communicators.cpp).
    bool Always = O.Kind == ObjKind::Comm || O.Kind == ObjKind::Info ||
                  O.Kind == ObjKind::Errh;
    Last[I] = O.Live || Always || heldType(I) ? (int64_t)I : -1;
    Held[I] = false;
  }
  auto Input = [](const Object &O, int K) -> int64_t {
    Object *In = object(O.Handles[K]);
    return In ? In - L->Objs : -1;
  };
  for (uint32_t J = N; J-- > 0;) {
    if (Last[J] < 0)
      continue;
    for (int K = 0; K < L->Objs[J].NHandles; ++K)
      if (int64_t I = Input(L->Objs[J], K); I >= 0 && Last[I] < (int64_t)J)
        Last[I] = J;
  }
  uint32_t Made = 0;
  for (uint32_t J = 0; J < N; ++J) {
    replayErrhandlers(J);
    if (Last[J] < 0)
      continue;
    rebuildObject(J);
    Held[J] = true;
    ++Made;
    // Inputs freed by the program that no later object needs, and J
    // itself if freed and needed by nobody.
    for (int K = 0; K <= L->Objs[J].NHandles; ++K) {
      int64_t I = K < L->Objs[J].NHandles ? Input(L->Objs[J], K) : J;
      if (I >= 0 && Held[I] && !L->Objs[I].Live && !heldType(I) &&
          Last[I] == (int64_t)J) {
        freeReal(L->Objs[I]);
        Held[I] = false;
      }
    }
  }
  replayErrhandlers(N);
  CCC_DEBUG("re-created %u of %u MPI objects", Made, N);
  scratchFree(Last);
  scratchFree(Held);
}

const MPI_Datatype *realTypes(const MPI_Datatype *Ts, MPI_Count N) {
  MPI_Count I = 0;
  while (Ts && I < N && !object(Ts[I]))
    ++I;
  if (!Ts || I == N)
    return Ts;
  auto *R = static_cast<MPI_Datatype *>(scratch(N * sizeof(MPI_Datatype)));
  for (MPI_Count I = 0; I < N; ++I)
    R[I] = realType(Ts[I]);
  return R;
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

namespace {
template <typename H> uint64_t bits(H Handle) { return handleBits(Handle); }
} // namespace

extern "C" {

int MPI_Comm_dup(MPI_Comm C, MPI_Comm *Out) {
  if (Bypass)
    return PMPI_Comm_dup(C, Out);
  if (NonBlocking)
    nbCommCreation(C);
  uint64_t H[] = {bits(C)};
  int R =
      create(ObjKind::Comm, Recipe::CommDup, Out, 0, nullptr, 0, nullptr, 1, H);
  if (R == MPI_SUCCESS)
    recordCopiedAttributes(bits(*Out), false);
  return R;
}

int MPI_Comm_split(MPI_Comm C, int Color, int Key, MPI_Comm *Out) {
  if (Bypass)
    return PMPI_Comm_split(C, Color, Key, Out);
  if (NonBlocking)
    nbCommCreation(C);
  int I[] = {Color, Key};
  uint64_t H[] = {bits(C)};
  return create(ObjKind::Comm, Recipe::CommSplit, Out, 2, I, 0, nullptr, 1, H);
}

int MPI_Comm_create(MPI_Comm C, MPI_Group G, MPI_Comm *Out) {
  if (Bypass)
    return PMPI_Comm_create(C, G, Out);
  if (NonBlocking)
    nbCommCreation(C);
  uint64_t H[] = {bits(C), bits(G)};
  return create(ObjKind::Comm, Recipe::CommCreate, Out, 0, nullptr, 0, nullptr,
                2, H);
}

int MPI_Comm_free(MPI_Comm *C) {
  if (Bypass)
    return PMPI_Comm_free(C);
  return release(C, ObjKind::Comm);
}

int MPI_Comm_group(MPI_Comm C, MPI_Group *Out) {
  if (Bypass)
    return PMPI_Comm_group(C, Out);
  uint64_t H[] = {bits(C)};
  return create(ObjKind::Group, Recipe::GroupOfComm, Out, 0, nullptr, 0,
                nullptr, 1, H);
}

static int groupRanks(MPI_Group G, int N, const int *Ranks, MPI_Group *Out,
                      Recipe How) {
  int *I = static_cast<int *>(scratch((N + 1) * sizeof(int)));
  I[0] = N;
  memcpy(I + 1, Ranks, N * sizeof(int));
  uint64_t H[] = {bits(G)};
  int R = create(ObjKind::Group, How, Out, N + 1, I, 0, nullptr, 1, H);
  scratchFree(I);
  return R;
}

int MPI_Group_incl(MPI_Group G, int N, const int Ranks[], MPI_Group *Out) {
  if (Bypass)
    return PMPI_Group_incl(G, N, Ranks, Out);
  return groupRanks(G, N, Ranks, Out, Recipe::GroupIncl);
}
int MPI_Group_excl(MPI_Group G, int N, const int Ranks[], MPI_Group *Out) {
  if (Bypass)
    return PMPI_Group_excl(G, N, Ranks, Out);
  return groupRanks(G, N, Ranks, Out, Recipe::GroupExcl);
}
// The recipe holds N, then the N triplets (the replay passes N to MPI).
static int groupRanges(MPI_Group G, int N, int Ranges[][3], MPI_Group *Out,
                       Recipe How) {
  int *I = static_cast<int *>(scratch((3 * N + 1) * sizeof(int)));
  I[0] = N;
  if (N > 0)
    memcpy(I + 1, &Ranges[0][0], 3 * N * sizeof(int));
  uint64_t H[] = {bits(G)};
  int R = create(ObjKind::Group, How, Out, 3 * N + 1, I, 0, nullptr, 1, H);
  scratchFree(I);
  return R;
}
int MPI_Group_range_incl(MPI_Group G, int N, int Ranges[][3], MPI_Group *Out) {
  if (Bypass)
    return PMPI_Group_range_incl(G, N, Ranges, Out);
  return groupRanges(G, N, Ranges, Out, Recipe::GroupRangeIncl);
}
int MPI_Group_range_excl(MPI_Group G, int N, int Ranges[][3], MPI_Group *Out) {
  if (Bypass)
    return PMPI_Group_range_excl(G, N, Ranges, Out);
  return groupRanges(G, N, Ranges, Out, Recipe::GroupRangeExcl);
}

static int groupPair(MPI_Group A, MPI_Group B, MPI_Group *Out, Recipe How) {
  uint64_t H[] = {bits(A), bits(B)};
  return create(ObjKind::Group, How, Out, 0, nullptr, 0, nullptr, 2, H);
}
int MPI_Group_union(MPI_Group A, MPI_Group B, MPI_Group *Out) {
  if (Bypass)
    return PMPI_Group_union(A, B, Out);
  return groupPair(A, B, Out, Recipe::GroupUnion);
}
int MPI_Group_intersection(MPI_Group A, MPI_Group B, MPI_Group *Out) {
  if (Bypass)
    return PMPI_Group_intersection(A, B, Out);
  return groupPair(A, B, Out, Recipe::GroupIntersection);
}
int MPI_Group_difference(MPI_Group A, MPI_Group B, MPI_Group *Out) {
  if (Bypass)
    return PMPI_Group_difference(A, B, Out);
  return groupPair(A, B, Out, Recipe::GroupDifference);
}
int MPI_Group_free(MPI_Group *G) {
  if (Bypass)
    return PMPI_Group_free(G);
  return release(G, ObjKind::Group);
}

int MPI_Type_contiguous(int Count, MPI_Datatype Old, MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_contiguous(Count, Old, Out);
  int I[] = {Count};
  uint64_t H[] = {bits(Old)};
  return create(ObjKind::Type, Recipe::TypeContiguous, Out, 1, I, 0, nullptr, 1,
                H);
}

int MPI_Type_vector(int Count, int Block, int Stride, MPI_Datatype Old,
                    MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_vector(Count, Block, Stride, Old, Out);
  int I[] = {Count, Block, Stride};
  uint64_t H[] = {bits(Old)};
  return create(ObjKind::Type, Recipe::TypeVector, Out, 3, I, 0, nullptr, 1, H);
}

int MPI_Type_create_hvector(int Count, int Block, MPI_Aint Stride,
                            MPI_Datatype Old, MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_create_hvector(Count, Block, Stride, Old, Out);
  int I[] = {Count, Block};
  MPI_Aint A[] = {Stride};
  uint64_t H[] = {bits(Old)};
  return create(ObjKind::Type, Recipe::TypeHvector, Out, 2, I, 1, A, 1, H);
}

int MPI_Type_indexed(int Count, const int Blocks[], const int Displs[],
                     MPI_Datatype Old, MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_indexed(Count, Blocks, Displs, Old, Out);
  int *I = static_cast<int *>(scratch((1 + 2 * Count) * sizeof(int)));
  I[0] = Count;
  memcpy(I + 1, Blocks, Count * sizeof(int));
  memcpy(I + 1 + Count, Displs, Count * sizeof(int));
  uint64_t H[] = {bits(Old)};
  int R = create(ObjKind::Type, Recipe::TypeIndexed, Out, 1 + 2 * Count, I, 0,
                 nullptr, 1, H);
  scratchFree(I);
  return R;
}

int MPI_Type_create_hindexed(int Count, const int Blocks[],
                             const MPI_Aint Displs[], MPI_Datatype Old,
                             MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_create_hindexed(Count, Blocks, Displs, Old, Out);
  int *I = static_cast<int *>(scratch((1 + Count) * sizeof(int)));
  I[0] = Count;
  memcpy(I + 1, Blocks, Count * sizeof(int));
  uint64_t H[] = {bits(Old)};
  int R = create(ObjKind::Type, Recipe::TypeHindexed, Out, 1 + Count, I, Count,
                 Displs, 1, H);
  scratchFree(I);
  return R;
}

int MPI_Type_create_indexed_block(int Count, int Block, const int Displs[],
                                  MPI_Datatype Old, MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_create_indexed_block(Count, Block, Displs, Old, Out);
  int *I = static_cast<int *>(scratch((2 + Count) * sizeof(int)));
  I[0] = Count;
  I[1] = Block;
  memcpy(I + 2, Displs, Count * sizeof(int));
  uint64_t H[] = {bits(Old)};
  int R = create(ObjKind::Type, Recipe::TypeIndexedBlock, Out, 2 + Count, I, 0,
                 nullptr, 1, H);
  scratchFree(I);
  return R;
}

int MPI_Type_create_struct(int Count, const int Blocks[],
                           const MPI_Aint Displs[], const MPI_Datatype Types[],
                           MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_create_struct(Count, Blocks, Displs, Types, Out);
  int *I = static_cast<int *>(scratch((1 + Count) * sizeof(int)));
  auto *H = static_cast<uint64_t *>(scratch(Count * sizeof(uint64_t)));
  I[0] = Count;
  memcpy(I + 1, Blocks, Count * sizeof(int));
  for (int K = 0; K < Count; ++K)
    H[K] = bits(Types[K]);
  int R = create(ObjKind::Type, Recipe::TypeStruct, Out, 1 + Count, I, Count,
                 Displs, Count, H);
  scratchFree(I);
  scratchFree(H);
  return R;
}

int MPI_Type_create_resized(MPI_Datatype Old, MPI_Aint Lb, MPI_Aint Extent,
                            MPI_Datatype *Out) {
  if (Bypass || calledByMpi(__builtin_return_address(0)))
    return PMPI_Type_create_resized(Old, Lb, Extent, Out);
  MPI_Aint A[] = {Lb, Extent};
  uint64_t H[] = {bits(Old)};
  return create(ObjKind::Type, Recipe::TypeResized, Out, 0, nullptr, 2, A, 1,
                H);
}

int MPI_Type_create_subarray(int NDims, const int Sizes[], const int Subsizes[],
                             const int Starts[], int Order, MPI_Datatype Old,
                             MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_create_subarray(NDims, Sizes, Subsizes, Starts, Order, Old,
                                     Out);
  int N = 2 + 3 * NDims;
  int *I = static_cast<int *>(scratch(N * sizeof(int)));
  I[0] = NDims;
  I[1] = Order;
  memcpy(I + 2, Sizes, NDims * sizeof(int));
  memcpy(I + 2 + NDims, Subsizes, NDims * sizeof(int));
  memcpy(I + 2 + 2 * NDims, Starts, NDims * sizeof(int));
  uint64_t H[] = {bits(Old)};
  int R =
      create(ObjKind::Type, Recipe::TypeSubarray, Out, N, I, 0, nullptr, 1, H);
  scratchFree(I);
  return R;
}

int MPI_Type_dup(MPI_Datatype Old, MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_dup(Old, Out);
  uint64_t H[] = {bits(Old)};
  int R =
      create(ObjKind::Type, Recipe::TypeDup, Out, 0, nullptr, 0, nullptr, 1, H);
  if (R == MPI_SUCCESS)
    recordCopiedAttributes(bits(*Out), true);
  return R;
}

int MPI_Type_commit(MPI_Datatype *T) {
  if (Bypass)
    return PMPI_Type_commit(T);
  Object *O = object(*T);
  if (!O)
    return PMPI_Type_commit(T); // predefined: nothing to remember
  O->Committed = true;
  return PMPI_Type_commit(&O->Real.Type);
}

int MPI_Type_free(MPI_Datatype *T) {
  if (Bypass)
    return PMPI_Type_free(T);
  return release(T, ObjKind::Type);
}

int MPI_Op_create(MPI_User_function *Fn, int Commute, MPI_Op *Out) {
  if (Bypass)
    return PMPI_Op_create(Fn, Commute, Out);
  int I[] = {Commute};
  return create(ObjKind::Op, Recipe::OpCreate, Out, 1, I, 0, nullptr, 0,
                nullptr, Fn);
}

int MPI_Op_free(MPI_Op *Op) {
  if (Bypass)
    return PMPI_Op_free(Op);
  return release(Op, ObjKind::Op);
}
}

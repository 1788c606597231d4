//===- Communicators.cpp - the other communicator constructors ------------===//
//
// MPI_Comm_split_type, MPI_Comm_create_group, MPI_Comm_dup_with_info, the
// inter-communicators (MPI_Intercomm_create, MPI_Intercomm_merge,
// MPI_Comm_remote_group) and the making of info objects and user error
// handlers after a restart. Each constructor is recorded like MPI_Comm_split
// (Objects.cpp) and made again in creation order, so the replay makes the
// same collective calls as the original run:
//   - Comm_split_type keeps its split type and key (the key orders the new
//     ranks; on the same hosts MPI_COMM_TYPE_SHARED gives the same members);
//   - Comm_create_group is collective over the group only: the entry exists
//     on the group's members, who alone replay it, with the group handle
//     (an object of the table, replayable once freed) and the tag;
//   - Intercomm_create keeps the local communicator, the peer (bridge)
//     communicator, both leaders and the tag; Intercomm_merge its high flag.
// An inter-communicator's recorded members are the remote group (Objects.cpp
// recordMembers): its point-to-point ranks name remote processes, and the
// non-blocking protocol's per-peer counters are indexed by their world rank.
//
//===----------------------------------------------------------------------===//
#include "CommunicatorCalls.h"
#include "mpi-layer/Layer.h"

#include <climits>
#include <cstring>

namespace ccc {
namespace mpi {

namespace {

MPI_Comm commArg(const Object &O, int I) {
  return realComm(handleFromBits<MPI_Comm>(O.Handles[I]));
}

// Non-blocking protocol: a line crossed by the creation is not committed
// (nbCommCreation). Checked on the new communicator once made, since the
// parent of Comm_create_group is not collective and an inter-communicator's
// two groups only meet in it; an inter-communicator is merged for the check
// (creation is rare, its cost does not matter).
void checkLine(MPI_Comm Made) {
  if (!NonBlocking || Made == MPI_COMM_NULL)
    return;
  MPI_Comm R = realComm(Made);
  int Inter = 0;
  PMPI_Comm_test_inter(R, &Inter);
  if (!Inter) {
    nbCommCreation(R);
    return;
  }
  MPI_Comm Merged;
  PMPI_Intercomm_merge(R, 0, &Merged);
  nbCommCreation(Merged);
  PMPI_Comm_free(&Merged);
}

template <typename H> uint64_t bits(H Handle) { return handleBits(Handle); }

} // namespace

int agreeCollTag(MPI_Comm Real, int Next) {
  int Inter = 0, Tag = Next;
  PMPI_Comm_test_inter(Real, &Inter);
  if (!Inter) {
    PMPI_Allreduce(&Next, &Tag, 1, MPI_INT, MPI_MAX, Real);
    return Tag;
  }
  // On an inter-communicator a reduction gives each group the other's
  // result: the second round gives both max(own max, other max).
  int Remote, Both;
  PMPI_Allreduce(&Next, &Remote, 1, MPI_INT, MPI_MAX, Real);
  int Mine = Remote > Next ? Remote : Next;
  PMPI_Allreduce(&Mine, &Both, 1, MPI_INT, MPI_MAX, Real);
  return Both > Mine ? Both : Mine;
}

uint64_t interCommKey(MPI_Comm Real, int Tag, const int *RemoteWorld,
                      int RemoteSize) {
  MPI_Group G, World;
  int N;
  PMPI_Comm_group(Real, &G);
  PMPI_Comm_group(MPI_COMM_WORLD, &World);
  PMPI_Group_size(G, &N);
  int *Ranks = static_cast<int *>(scratch(2 * N * sizeof(int)));
  for (int I = 0; I < N; ++I)
    Ranks[I] = I;
  PMPI_Group_translate_ranks(G, N, Ranks, World, Ranks + N);
  int Low = INT_MAX;
  for (int I = 0; I < N; ++I)
    Low = Ranks[N + I] < Low ? Ranks[N + I] : Low;
  for (int I = 0; I < RemoteSize; ++I)
    Low = RemoteWorld[I] < Low ? RemoteWorld[I] : Low;
  scratchFree(Ranks);
  PMPI_Group_free(&G);
  PMPI_Group_free(&World);
  return (uint64_t)(uint32_t)Tag << 32 | (uint32_t)Low;
}

void refuseInterIdup(MPI_Comm C) {
  // Inter-communicators come from MPI_Intercomm_create only (spawn, connect
  // and join are refused).
  Object *O = object(C);
  if (O && O->Kind == ObjKind::Comm && O->How == Recipe::IntercommCreate)
    refuse("MPI_Comm_idup of an inter-communicator",
           "CCC_PROTOCOL=nonblocking numbers an idup with its parent's "
           "collectives over one group; CCC_PROTOCOL=blocking passes it to "
           "MPI, and MPI_Comm_dup works under both");
}

MPI_Comm programComm(MPI_Comm Real) {
  if (Real == MPI_COMM_WORLD || Real == MPI_COMM_SELF || !L)
    return Real;
  // Newest first: MPI may reuse the handle of a freed communicator.
  for (uint32_t I = L->NObjs; I-- > 0;) {
    const Object &O = L->Objs[I];
    if (O.Kind == ObjKind::Comm && O.Real.Comm == Real)
      return objectHandle<MPI_Comm>(I);
  }
  return Real;
}

int makeCommunicator(Object &O) {
  const int *I = O.Ints;
  switch (O.How) {
  case Recipe::CommSplitType:
    return PMPI_Comm_split_type(
        commArg(O, 0), I[0], I[1],
        realInfo(handleFromBits<MPI_Info>(O.Handles[1])), &O.Real.Comm);
  case Recipe::CommCreateGroup:
    return PMPI_Comm_create_group(
        commArg(O, 0), realGroup(handleFromBits<MPI_Group>(O.Handles[1])), I[0],
        &O.Real.Comm);
  case Recipe::CommDupWithInfo:
    return PMPI_Comm_dup_with_info(
        commArg(O, 0), realInfo(handleFromBits<MPI_Info>(O.Handles[1])),
        &O.Real.Comm);
  case Recipe::IntercommCreate:
    return PMPI_Intercomm_create(commArg(O, 0), I[0], commArg(O, 1), I[1], I[2],
                                 &O.Real.Comm);
  case Recipe::IntercommMerge:
    return PMPI_Intercomm_merge(commArg(O, 0), I[0], &O.Real.Comm);
  case Recipe::GroupRemote:
    return PMPI_Comm_remote_group(commArg(O, 0), &O.Real.Group);
  case Recipe::InfoCreate: {
    // The contents the info had when the image was written.
    int R = PMPI_Info_create(&O.Real.Info);
    for (uint32_t P = 0; R == MPI_SUCCESS && P < O.StringsLen;) {
      const char *Key = O.Strings + P;
      const char *Val = Key + strlen(Key) + 1;
      R = PMPI_Info_set(O.Real.Info, Key, Val);
      P = (uint32_t)(Val + strlen(Val) + 1 - O.Strings);
    }
    return R;
  }
  case Recipe::ErrhCreate:
  case Recipe::WinErrhCreate:
  case Recipe::FileErrhCreate:
    return makeErrhandler(O);
  default:
    return MPI_ERR_INTERN;
  }
}

void freeOther(Object &O) {
  // While a restart replays the table, a freed info or error handler stays
  // alive: a later communicator's recipe or error handler setting may still
  // name it (MPI kept it alive for them in the original run).
  if (Restoring)
    return;
  if (O.Kind == ObjKind::Info) {
    PMPI_Info_free(&O.Real.Info);
    return;
  }
  // A communicator may still hold the handler: its calls must find the
  // program's function by MPI's handle, so the record keeps it.
  MPI_Errhandler E = O.Real.Errh;
  PMPI_Errhandler_free(&E);
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_Comm_split_type(MPI_Comm C, int Type, int Key, MPI_Info Info,
                        MPI_Comm *Out) {
  if (Bypass)
    return PMPI_Comm_split_type(C, Type, Key, Info, Out);
  int I[] = {Type, Key};
  uint64_t H[] = {bits(C), bits(Info)};
  int R = createCommFrom(Recipe::CommSplitType, 2, H, 2, I, Out);
  if (R == MPI_SUCCESS)
    checkLine(*Out);
  return R;
}

int MPI_Comm_create_group(MPI_Comm C, MPI_Group G, int Tag, MPI_Comm *Out) {
  if (Bypass)
    return PMPI_Comm_create_group(C, G, Tag, Out);
  int I[] = {Tag};
  uint64_t H[] = {bits(C), bits(G)};
  int R = createCommFrom(Recipe::CommCreateGroup, 2, H, 1, I, Out);
  if (R == MPI_SUCCESS)
    checkLine(*Out);
  return R;
}

int MPI_Comm_dup_with_info(MPI_Comm C, MPI_Info Info, MPI_Comm *Out) {
  if (Bypass)
    return PMPI_Comm_dup_with_info(C, Info, Out);
  uint64_t H[] = {bits(C), bits(Info)};
  int R = createCommFrom(Recipe::CommDupWithInfo, 2, H, 0, nullptr, Out);
  if (R == MPI_SUCCESS) {
    recordCopiedAttributes(bits(*Out), false);
    checkLine(*Out);
  }
  return R;
}

int MPI_Intercomm_create(MPI_Comm Local, int LocalLeader, MPI_Comm Peer,
                         int RemoteLeader, int Tag, MPI_Comm *Out) {
  if (Bypass)
    return PMPI_Intercomm_create(Local, LocalLeader, Peer, RemoteLeader, Tag,
                                 Out);
  int I[] = {LocalLeader, RemoteLeader, Tag};
  uint64_t H[] = {bits(Local), bits(Peer)};
  int R = createCommFrom(Recipe::IntercommCreate, 2, H, 3, I, Out);
  if (R == MPI_SUCCESS)
    checkLine(*Out);
  return R;
}

int MPI_Intercomm_merge(MPI_Comm Inter, int High, MPI_Comm *Out) {
  if (Bypass)
    return PMPI_Intercomm_merge(Inter, High, Out);
  int I[] = {High};
  uint64_t H[] = {bits(Inter)};
  int R = createCommFrom(Recipe::IntercommMerge, 1, H, 1, I, Out);
  if (R == MPI_SUCCESS)
    checkLine(*Out);
  return R;
}

int MPI_Comm_remote_group(MPI_Comm C, MPI_Group *Out) {
  if (Bypass)
    return PMPI_Comm_remote_group(C, Out);
  uint64_t H[] = {bits(C)};
  return createGroupFrom(Recipe::GroupRemote, 1, H, Out);
}
}

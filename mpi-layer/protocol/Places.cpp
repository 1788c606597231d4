//===- Places.cpp - C3: each message's place on its channel ---------------===//
//
// Part of the non-blocking protocol (Protocol.cpp), issue 43's first step.
// A channel is (communicator, sender, receiver, tag). MPI's non-overtaking
// rule matches a channel's messages in the order they were sent, so a
// message's place on its channel (0, 1, 2, ... since MPI_Init) can be
// counted on both sides without carrying it: the sender when it posts the
// send, the receiver when the message is matched. This file keeps those
// counts, in a table saved in the image (a restart goes on counting from
// the checkpoint). Nothing uses them yet but the check: with
// CCC_CHECK_PLACES=1 every header also carries the sender's place and the
// receiver stops with a ccc: error if the place it counted differs.
//
// The receiver's side. A receive's place is settled in posting order: if
// two postings can take a channel's messages, the earlier one gets the
// earlier message (MPI-4.1, 3.5: the earlier posting was either still open
// when the later one's message came, and would have taken it, or had
// already matched; and a channel's messages are matched in send order). So
// a message the layer sees arrive is settled once no earlier posting that
// could take its channel is still open (a wildcard's channel is known only
// when it completes); until then it waits in L->Waiting.
//
//===----------------------------------------------------------------------===//
#include "ProtocolInternal.h"
#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"

#include <cstdlib>
#include <cstring>

namespace ccc {
namespace mpi {
namespace nb {

bool CheckPlaces;
int HeaderBytes = kBaseHeaderBytes;

namespace {
// The places this process compared, and whether it began from an image:
// the trace shows that a restarted run goes on counting right.
uint64_t CheckedHere;
bool Restarted;
// The channel used last, by the program's communicator handle (an exchange
// sends and receives on one channel): its slot, until the table grows.
// Handles of the layer's objects are never reused.
struct {
  uint64_t Handle;
  int W, Tag;
  uint32_t Slot;
  bool Valid;
} Last;
} // namespace

void placesInit() {
  Last.Valid = false;
  CheckedHere = 0;
  Restarted = L->SentEp != nullptr; // nbInit of a restored state
  const char *V = getenv("CCC_CHECK_PLACES");
  CheckPlaces = V && *V && strcmp(V, "0") != 0;
  HeaderBytes = CheckPlaces ? kMaxHeaderBytes : kBaseHeaderBytes;
}

namespace {

constexpr uint64_t kNoClaim = ~0ULL;

// The key that names communicator C on every rank: the one the cuts of the
// control messages use (CollTag and lowest world rank, or Object::Key), so
// that the next step can exchange counts. Cached in Object::Key (keyOf
// returns it when set): the lowest member is a walk over the members.
uint64_t channelComm(MPI_Comm C) {
  if (C == MPI_COMM_WORLD)
    return kWorldKey;
  if (C == MPI_COMM_SELF)
    return 2ULL << 32 | (uint32_t)L->Rank; // tag 2 is no communicator's
  Object *O = object(C);
  if (!O || O->Kind != ObjKind::Comm || !O->WorldRanks)
    return handleBits(C) | 1ULL << 63; // unknown to the layer: local only
  // MPI_Comm_idup of a communicator of one member has neither a tag nor a
  // derived key (nothing to agree on): its messages go to this rank only,
  // so its handle (an object index, the same after a restart) names it.
  if (!O->Key && !O->CollTag)
    return handleBits(C) | 1ULL << 62;
  if (!O->Key)
    O->Key = keyOf(*O);
  return O->Key;
}

uint64_t hashOf(uint64_t Comm, int Peer, int Tag) {
  uint64_t H = Comm * 0x9e3779b97f4a7c15ULL;
  H ^= ((uint64_t)(uint32_t)Peer << 32 | (uint32_t)Tag) * 0xc2b2ae3d27d4eb4fULL;
  return H ^ H >> 29;
}

// Open addressing, linear probing, at most half full; grown (rehashed)
// into a new saved block.
Channel &slotFor(uint64_t Comm, int Peer, int Tag) {
  if (2 * (L->NChans + 1) > L->CapChans) {
    uint32_t Cap = L->CapChans ? 2 * L->CapChans : 64;
    auto *N = static_cast<Channel *>(saved(Cap * sizeof(Channel)));
    for (uint32_t I = 0; I < L->CapChans; ++I) {
      const Channel &E = L->Chans[I];
      if (!E.Used)
        continue;
      uint32_t J = (uint32_t)hashOf(E.Comm, E.Peer, E.Tag) & (Cap - 1);
      while (N[J].Used)
        J = (J + 1) & (Cap - 1);
      N[J] = E;
    }
    __ccc_free(L->Chans);
    L->Chans = N;
    L->CapChans = Cap;
    Last.Valid = false;
  }
  uint32_t Mask = L->CapChans - 1;
  for (uint32_t J = (uint32_t)hashOf(Comm, Peer, Tag) & Mask;;
       J = (J + 1) & Mask) {
    Channel &E = L->Chans[J];
    if (E.Used && E.Comm == Comm && E.Peer == Peer && E.Tag == Tag)
      return E;
    if (!E.Used) {
      E.Used = true;
      E.Comm = Comm;
      E.Peer = Peer;
      E.Tag = Tag;
      L->NChans++;
      return E;
    }
  }
}

// Channel (C, world rank W, Tag).
Channel &channelOf(MPI_Comm C, int W, int Tag) {
  uint64_t H = handleBits(C);
  if (Last.Valid && Last.Handle == H && Last.W == W && Last.Tag == Tag)
    return L->Chans[Last.Slot];
  Channel &E = slotFor(channelComm(C), W, Tag);
  Last = {H, W, Tag, (uint32_t)(&E - L->Chans), true};
  return E;
}

// Whether a receive posted before Posted and still open (as far as the
// layer knows) could take a message from Src with Tag on C.
bool openBefore(uint64_t Posted, MPI_Comm C, int Src, int Tag) {
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    const Request &R = L->Reqs[I];
    if (R.InUse && R.Kind == ReqKind::Recv && !R.Done && R.Posted &&
        R.Posted < Posted && R.Comm == C &&
        (R.Peer == MPI_ANY_SOURCE || R.Peer == Src) &&
        (R.Tag == MPI_ANY_TAG || R.Tag == Tag))
      return true;
  }
  return false;
}

void settle(const Unsettled &U) {
  Channel &E = channelOf(U.Comm, U.W, U.Tag);
  uint64_t Place = E.Got++;
  if (U.Claimed != kNoClaim && U.Claimed != Place)
    fatal("place check (CCC_CHECK_PLACES): the message from rank %d (world "
          "rank %d, tag %d) that receive posting %llu got is number %llu on "
          "its channel by the sender's count, %llu by this rank's (rank %d, "
          "epoch %u, communicator key %#llx)",
          U.Src, U.W, U.Tag, (unsigned long long)U.Posted,
          (unsigned long long)U.Claimed, (unsigned long long)Place, L->Rank,
          L->Epoch, (unsigned long long)E.Comm);
  if (U.Claimed != kNoClaim)
    L->PlacesChecked++, CheckedHere++;
}

// Settles, in posting order, every waiting message whose earlier postings
// are all settled.
void settleWaiting() {
  uint32_t Keep = 0;
  for (uint32_t I = 0; I < L->NWaiting; ++I) {
    const Unsettled &U = L->Waiting[I];
    bool Blocked = openBefore(U.Posted, U.Comm, U.Src, U.Tag);
    // An earlier message of the same channel still waiting comes first.
    for (uint32_t K = 0; K < Keep && !Blocked; ++K) {
      const Unsettled &P = L->Waiting[K];
      Blocked = P.Comm == U.Comm && P.W == U.W && P.Tag == U.Tag;
    }
    if (Blocked)
      L->Waiting[Keep++] = U;
    else
      settle(U);
  }
  L->NWaiting = Keep;
}

} // namespace

uint64_t &sentOn(MPI_Comm C, int W, int Tag) {
  return channelOf(C, W, Tag).Sent;
}

void placeReceived(MPI_Comm C, int Src, int Tag, uint64_t Posted,
                   const uint32_t *Hdr) {
  Unsettled U;
  U.Posted = Posted;
  U.Claimed = CheckPlaces && Hdr ? (uint64_t)Hdr[3] << 32 | Hdr[2] : kNoClaim;
  U.Comm = C;
  U.Src = Src;
  U.Tag = Tag;
  U.W = worldRank(C, Src);
  // The common case: nothing waits and no earlier posting is open.
  if (!L->NWaiting && !openBefore(Posted, C, Src, Tag)) {
    settle(U);
    return;
  }
  if (L->NWaiting == L->CapWaiting) {
    uint32_t Cap = L->CapWaiting ? 2 * L->CapWaiting : 16;
    auto *N = static_cast<Unsettled *>(saved(Cap * sizeof(Unsettled)));
    if (L->NWaiting)
      memcpy(N, L->Waiting, L->NWaiting * sizeof(Unsettled));
    __ccc_free(L->Waiting);
    L->Waiting = N;
    L->CapWaiting = Cap;
  }
  // Kept in posting order (a message usually arrives after those posted
  // before it).
  uint32_t I = L->NWaiting++;
  for (; I > 0 && L->Waiting[I - 1].Posted > Posted; --I)
    L->Waiting[I] = L->Waiting[I - 1];
  L->Waiting[I] = U;
  settleWaiting();
}

void postingEnded() {
  if (L->NWaiting)
    settleWaiting();
}

void reportPlaces() {
  if (CheckPlaces)
    TRACE("%d epoch %u: places checked: %llu messages (%llu by this "
          "process%s), %u channels, %u waiting",
          L->Rank, L->Epoch, (unsigned long long)L->PlacesChecked,
          (unsigned long long)CheckedHere, Restarted ? " after a restart" : "",
          L->NChans, L->NWaiting);
}

} // namespace nb
} // namespace mpi
} // namespace ccc

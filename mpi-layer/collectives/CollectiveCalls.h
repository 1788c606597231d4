//===- CollectiveCalls.h - how the collective wrappers run -----*- C++ -*-===//
//
// What Collectives.cpp (blocking), NonblockingCollectives.cpp and
// NeighbourCollectives.cpp share: every collective is MPI's own call on
// the program's arguments (handles translated); under the non-blocking
// protocol the call is numbered and, while the protocol needs it, its
// outputs are logged (ProtocolCollectives.cpp). Internal to the layer.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_MPI_COLLECTIVECALLS_H
#define CCC_MPI_COLLECTIVECALLS_H

#include "mpi-layer/Layer.h"

#include <cstring>
#include <new>

namespace ccc {
namespace mpi {

inline CollOutputs noOutputs() { return CollOutputs(); }
inline CollOutputs oneOutput(void *Buf, int Count, MPI_Datatype T) {
  CollOutputs O;
  O.S = CollOutputs::One;
  O.Buf = Buf;
  O.Count = Count;
  O.Type = T;
  return O;
}
// N blocks of Counts[i] elements of T at Buf + Displs[i] extents.
inline CollOutputs blockOutputs(void *Buf, int N, const int *Counts,
                                const int *Displs, MPI_Datatype T) {
  CollOutputs O;
  O.S = CollOutputs::Blocks;
  O.Buf = Buf;
  O.N = N;
  O.Counts = Counts;
  O.Displs = Displs;
  O.Type = T;
  return O;
}
// N blocks of Counts[i] elements of Types[i] at Buf + Displs[i] bytes.
inline CollOutputs typedOutputs(void *Buf, int N, const int *Counts,
                                const void *Displs, bool AintDispls,
                                const MPI_Datatype *Types) {
  CollOutputs O;
  O.S = AintDispls ? CollOutputs::BlocksWA : CollOutputs::BlocksW;
  O.Buf = Buf;
  O.N = N;
  O.Counts = Counts;
  O.Displs = Displs;
  O.Types = Types;
  return O;
}

// (MPI_COMM_WORLD's answers are known, and another communicator's are
// asked of MPI once: a non-blocking collective's outputs are described at
// every call, so its common case asks MPI nothing.)
inline int commRank(MPI_Comm C) {
  if (C == MPI_COMM_WORLD)
    return L->Rank;
  Object::CommFacts Scratch;
  return commFacts(C, Scratch).Rank;
}
inline bool isInterComm(MPI_Comm C) {
  if (C == MPI_COMM_WORLD)
    return false;
  Object::CommFacts Scratch;
  return commFacts(C, Scratch).Inter;
}
// How many blocks a rank receives in a gather or all-to-all pattern: one
// from each process of the group that sends, C's own or, on an
// inter-communicator, the remote group.
inline int peerCount(MPI_Comm C) {
  return C == MPI_COMM_WORLD ? L->Size : commPeers(C);
}
// Whether this rank is a rooted collective's root: Root is its rank, or
// MPI_ROOT on an inter-communicator.
inline bool isRoot(MPI_Comm C, int Root) {
  return isInterComm(C) ? Root == MPI_ROOT : commRank(C) == Root;
}
// Whether this rank receives the root's data (Bcast, Scatter): on an
// inter-communicator only the group opposite the root's, which names the
// root by its rank; the root's own group passes MPI_ROOT or MPI_PROC_NULL.
inline bool fromRoot(MPI_Comm C, int Root) {
  return isInterComm(C) ? Root >= 0 : true;
}

// runCollective when the protocol needs more than the call's number: out
// of line, so that the common path keeps a small frame.
template <typename O, typename F>
[[gnu::noinline]] int runCollectiveWatched(MPI_Comm C, O Outputs, F Native) {
  OutputsFn Make = [](void *A) { return (*static_cast<O *>(A))(); };
  uint64_t Seq;
  bool Log;
  if (nbCollStart(C, Make, &Outputs, &Seq, &Log))
    return MPI_SUCCESS;
  int E = Native();
  if (E == MPI_SUCCESS && Log)
    nbCollLog(C, Seq, Outputs(), false);
  return E;
}

// A blocking collective: Native() calls MPI's. Outputs() describes where
// it leaves its results here; it is only asked when a restart completes
// the collective from the log or its outputs are to be logged.
template <typename O, typename F>
inline int runCollective(MPI_Comm C, O Outputs, F Native) {
  if (!NonBlocking)
    return Native();
  if (__builtin_expect(collCountOnly(), 1)) {
    if (CollCount *K = collCounter(C))
      K->N++;
    return Native();
  }
  return runCollectiveWatched(C, Outputs, Native);
}

// Keeps O with request R, its arrays copied to the saved heap (the
// program may keep them only until the call completes; Fortran's are
// temporaries).
void keepOutputs(Request &R, const CollOutputs &O);
// The same for the outputs already in R.Outs (their arrays, if any).
void keepOutputArrays(Request &R);

// A non-blocking collective: a request of the layer's table, whose real
// request Native(MPI_Request *) starts. Types, if not null, are NTypes real
// datatypes MPI reads until the collective completes (kept with the
// request; Native gets them as its second argument).
template <typename O, typename F>
int startCollective(MPI_Comm C, O Outputs, MPI_Request *Out, F Native,
                    MPI_Datatype *Types = nullptr) {
  Request *R;
  MPI_Request H = newRequest(ReqKind::Coll, &R);
  R->Comm = C;
  R->RealTypes = Types;
  if (NonBlocking && __builtin_expect(collCountOnly(), 1)) {
    // Between checkpoints, as runCollective: the call's number, and its
    // outputs kept in case this rank's checkpoint comes while it is open
    // (then they are logged when it completes).
    CollCount *K = collCounter(C);
    R->CollSeq = K ? K->N++ : 0;
    // Made in place: a copy read back whole after the narrower stores that
    // made it stalls (store forwarding), a tenth of a small collective.
    ::new (&R->Outs) CollOutputs(Outputs());
    R->HasOuts = true;
    if (R->Outs.S > CollOutputs::One)
      keepOutputArrays(*R);
  } else if (NonBlocking) {
    CollOutputs Outs = Outputs();
    uint64_t Seq = 0;
    bool Log;
    OutputsFn Same = [](void *A) { return *static_cast<CollOutputs *>(A); };
    bool FromLog = nbCollStart(C, Same, &Outs, &Seq, &Log);
    R = request(H); // the table may have moved
    R->CollSeq = Seq;
    if (FromLog) {
      completeEmpty(*R);
      *Out = H;
      return MPI_SUCCESS;
    }
    keepOutputs(*R, Outs);
    R->LogIt = Log;
    if (Log)
      nbCollPending(1);
  }
  int E = Native(&R->Real);
  if (E != MPI_SUCCESS) {
    if (R->LogIt)
      nbCollPending(-1); // nothing was started: nothing to log
    releaseRequest(H);
    return E;
  }
  *Out = H;
  return MPI_SUCCESS;
}

// The real datatypes of an Alltoallw-like call, NS to send (none in place)
// then NR to receive, in the saved heap (kept with the request).
MPI_Datatype *keepRealTypes(int NS, const MPI_Datatype *Send, int NR,
                            const MPI_Datatype *Recv);

} // namespace mpi
} // namespace ccc
#endif

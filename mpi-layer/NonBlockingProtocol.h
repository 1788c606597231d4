//===- NonBlockingProtocol.h - C3 for the wrappers -----------*- C++ -*-===//
//
// What the wrappers (point-to-point, completion, collectives, probes,
// communicator creation) call of the non-blocking protocol (Protocol.cpp,
// ProtocolMessages.cpp, ProtocolCollectives.cpp, ProtocolControl.cpp), and
// the inline tests they make on every call between checkpoints. Included
// at the end of Layer.h, whose state (L, Request, Object) it uses.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_MPI_NONBLOCKINGPROTOCOL_H
#define CCC_MPI_NONBLOCKINGPROTOCOL_H

#include "Layer.h"

namespace ccc {
namespace mpi {

// Non-blocking protocol (Protocol.cpp).
void nbInit();
int siteNonBlocking(int Kind, int (*Take)());
void nbAfterRestore();
void nbFinalize();
bool nbCheckVersion(uint64_t Version, char *Why, size_t Cap);
// How a send completes (MPI_Send, _Ssend, _Bsend, _Rsend and their I forms).
enum SendMode : int { kStandard, kSynchronous, kBuffered, kReady };
int nbSend(const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
           MPI_Comm C, int Kind);
int nbIsend(const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
            MPI_Comm C, int Kind, MPI_Request *Out);
int nbRecv(void *Buf, int Count, MPI_Datatype Type, int Src, int Tag,
           MPI_Comm C, MPI_Status *Status);
int nbIrecv(void *Buf, int Count, MPI_Datatype Type, int Src, int Tag,
            MPI_Comm C, MPI_Request *Out);
// Completion of a request's real MPI part: strip the header, classify.
void nbCompleted(Request &R, MPI_Status &S);
// Nondeterministic outcomes: logged in NonDet-Log mode, replayed in Restore.
enum class Event : uint8_t {
  Test,
  Testany,
  Testsome,
  Testall,
  Waitany,
  Waitsome,
  Iprobe,
  Probe
};
bool replayEvent(Event E, int64_t *Vals, int MaxVals, int *NVals);
void logEvent(Event E, const int64_t *Vals, int NVals);
// How many datatypes an Alltoallw-like call on C reads (Objects.cpp):
// members, or in- (Recv) or out-neighbours.
int typeArrayLength(MPI_Comm C, bool Neighbour, bool Recv);
// C's rank, group sizes and degrees (Object::CommFacts); Scratch holds
// them for a communicator without an object.
const Object::CommFacts &commFacts(MPI_Comm C, Object::CommFacts &Scratch);
// The size of the group that sends to C's members: C's own, or an
// inter-communicator's remote one (the members recorded when it was made).
int commPeers(MPI_Comm C);
// Collectives under the non-blocking protocol (ProtocolCollectives.cpp).
// Before a collective on C: its number on C (Seq) and whether its outputs
// go to the message log once it completes (Log); true if a restart
// completed it from the log instead (the outputs Outputs(Arg) describes
// written; the caller calls no MPI). Outputs is called only then: between
// checkpoints a collective costs a counter increment.
typedef CollOutputs (*OutputsFn)(void *Arg);
bool nbCollStart(MPI_Comm C, OutputsFn Outputs, void *Arg, uint64_t *Seq,
                 bool *Log);
// Whether communicator O's collectives are counted: not with one member
// (nothing to agree on). An inter-communicator's members are its two
// groups (Size counts the remote one): it always has two or more.
inline bool collCounted(const Object &O) {
  return O.Size > 1 || O.How == Recipe::IntercommCreate;
}
// The counter of C's collectives, or null if they are not counted or C is
// an unknown handle.
inline CollCount *collCounter(MPI_Comm C) {
  if (C == MPI_COMM_WORLD)
    return L->Size > 1 ? &L->WorldColl : nullptr;
  Object *O = object(C);
  if (!O || O->Kind != ObjKind::Comm || !collCounted(*O))
    return nullptr;
  return &O->Coll;
}
namespace nb {
extern bool LogAll;             // ProtocolCollectives.cpp
extern uint32_t Debts;          // ProtocolCollectives.cpp
extern uint32_t ForwardedEpoch; // ProtocolControl.cpp
extern uint32_t StopEpoch;      // ProtocolControl.cpp
extern int HeaderBytes;         // Places.cpp: a message's header
} // namespace nb
// Whether a collective needs nothing of the protocol but its number: no
// checkpoint open (in this rank's view), no restart replaying, nothing to
// log and no collective that crossed the line still to catch up on. Then
// nbCollStart would only count it; the wrappers do that inline, so that
// between checkpoints a collective costs a few loads and an increment
// beyond MPI's own call (issue 20's cost rule, bench/mpi). LogAll and
// Debts are set only while this rank's part in a commit is open (the
// Epoch test) today; tested too, so that the path stays safe if that ends.
inline bool collCountOnly() {
  return L->M == Mode::Run && nb::ForwardedEpoch >= L->Epoch && !nb::LogAll &&
         nb::Debts == 0;
}
// Logs the outputs of collective Seq on C (OpenAtLine: a non-blocking one
// open at this rank's checkpoint).
void nbCollLog(MPI_Comm C, uint64_t Seq, const CollOutputs &O, bool OpenAtLine);
// A non-blocking collective request completed (logs it if it must); the
// number of such requests whose outputs are still to be logged changes.
void nbCollCompleted(Request &R);
void nbCollPending(int Delta);
// The size of one element of RealType if its bytes are contiguous, else -1.
int elementBytesIfContiguous(MPI_Datatype RealType);
// Called when a datatype is freed (its handle may be reused).
void forgetTypeShapes();
// Before a communicator is made from Parent: a line it crosses is not
// committed (Protocol.cpp).
void nbCommCreation(MPI_Comm Parent);
// CommCollectives.cpp: an MPI_Comm_idup request completed (its communicator's
// object gets the real handle), or was open at the checkpoint a restart
// restored (the communicator was made again with the other objects).
void idupCompleted(Request &R);
void idupRestored(Request &R);
// MPI_Comm_idup on Parent is starting: numbered with Parent's collectives,
// it must not cross the recovery line (a restart could not make it
// again). Returns the key of the new communicator (Object::Key).
uint64_t nbIdupStarted(MPI_Comm Parent);
// The same check for any collective whose crossing the line a restart
// could not replay, on the real communicator Real; What names it.
void nbLineCheck(MPI_Comm Real, const char *What);
bool nbProbe(int Src, int Tag, MPI_Comm C, bool Block, MPI_Status *Status);
void nbProgress();
// Whether this rank takes part in a checkpoint still open, or the job is
// stopping (STOP must reach a rank blocked in a receive). Inline: every
// wait and blocking send asks it.
inline bool nbCheckpointOpen() {
  return L->M != Mode::Run || nb::ForwardedEpoch < L->Epoch ||
         nb::StopEpoch != 0;
}
// One round of answering control messages while a rank waits for a request
// (Spin: rounds so far).
void nbWhileWaiting(int Spin);
// While a checkpoint is open (non-blocking protocol), calls Ready() until
// it is true, answering control messages in between: a rank blocked in MPI
// would hold up the other ranks' periods and the commit, and what it waits
// for may come only after the commit. False once no checkpoint is open (or
// none was): the caller blocks in MPI.
template <typename F> bool pollWhileCheckpointOpen(F Ready) {
  for (int Spin = 0; NonBlocking && nbCheckpointOpen(); ++Spin) {
    if (Ready())
      return true;
    nbWhileWaiting(Spin);
  }
  return false;
}
// One probe of the control communicator: MPI's progress engine runs (sends
// in flight move on) and nothing of the program's is matched or received.
void nbLetMpiProgress();
void drainForCheckpoint();
void afterRestoreRequests();
} // namespace mpi
} // namespace ccc
#endif

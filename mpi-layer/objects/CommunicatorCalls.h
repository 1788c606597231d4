//===- CommunicatorCalls.h - communicators, info, attributes -*- C++ -*-===//
//
// What Communicators.cpp, Attributes.cpp, Errhandlers.cpp and Info.cpp
// offer the other wrappers (issue 19): communicators and groups made by
// recipe, info objects, error handlers, keyvals and attributes, and their
// replay after a restart. Split out of Layer.h.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_MPI_COMMUNICATORCALLS_H
#define CCC_MPI_COMMUNICATORCALLS_H

#include "mpi-layer/Layer.h"

namespace ccc {
namespace mpi {

// Makes a communicator (or group) by recipe How from handle arguments H
// (program handles; H[0] the parent communicator) and Ints, recorded for
// restart (Objects.cpp); the caller checks the non-blocking protocol's line
// (nbCommCreation) itself, on the members taking part.
int createCommFrom(Recipe How, int NH, const uint64_t *H, int NInts,
                   const int *Ints, MPI_Comm *Out);
int createGroupFrom(Recipe How, int NH, const uint64_t *H, MPI_Group *Out);
// The MPI object of the recipes above, of an info object or an error
// handler; frees one of the latter two.
int makeCommunicator(Object &O);
int makeErrhandler(Object &O); // Errhandlers.cpp
// A ccc error handler calling Fn (Fortran: handles as MPI_Fint).
int createErrhandler(void *Fn, bool Fortran, MPI_Errhandler *Out,
                     Recipe How = Recipe::ErrhCreate);
void freeOther(Object &O);
// The tag of the layer's collectives on a new communicator, agreed by all
// its members (both groups of an inter-communicator).
int agreeCollTag(MPI_Comm Real, int Next);
// The key of inter-communicator Real (Object::Key): Tag and the lowest
// world rank of its two groups, the same at every member.
uint64_t interCommKey(MPI_Comm Real, int Tag, const int *RemoteWorld,
                      int RemoteSize);
// A new info object MPI made (a get_info call); hands the program its
// handle (Info.cpp).
void adoptInfo(MPI_Info Real, MPI_Info *Out);
// The program's handle of a real communicator (the newest object made it).
MPI_Comm programComm(MPI_Comm Real);
// After MPI_Comm_dup/Type_dup: records the attributes MPI's copy callbacks
// put on the new object (handle Obj).
void recordCopiedAttributes(uint64_t Obj, bool IsType);
// After a restart: keyvals and error classes first (Objects == 0), then the
// attributes of object Objects - 1 once it was re-created, and, after the
// last, those of MPI_COMM_WORLD and MPI_COMM_SELF.
void replayAttributes(uint32_t Objects);
// Windows.cpp, after re-creating window Win (program handle bits; 0: none):
// its recorded attributes; Last: the windows' freed keyvals are freed then.
void replayWindowAttributes(uint64_t Win, bool Last);
// Keyvals (Kind 0 communicator, 1 datatype) and attribute values, for the
// C and Fortran entry points (Attributes.cpp, Fortran.cpp).
int createKeyval(uint8_t Kind, void *Copy, void *Delete, void *Extra,
                 bool Fortran, int *Out);
int setAttr(uint8_t Kind, uint64_t Obj, int K, void *Val);
int deleteAttr(uint8_t Kind, uint64_t Obj, int K);
int freeKeyval(uint8_t Kind, int *K);
int realKeyvalOf(int K, uint8_t Kind);
void replayErrorClasses();
// Non-blocking protocol: its collectives assume one group; one on an
// inter-communicator stops the job (Communicators.cpp).
void refuseInterIdup(MPI_Comm C);

} // namespace mpi
} // namespace ccc
#endif

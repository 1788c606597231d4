// pmpi_bytes.h - what the layer hands MPI for each point-to-point
// operation, recorded below it (pmpi_bytes.c) for no_byte_added.c.
#ifndef CCC_TEST_PMPI_BYTES_H
#define CCC_TEST_PMPI_BYTES_H

#include <mpi.h>

enum { kPmpiSend = 1, kPmpiRecv = 2 };

// One PMPI call on a communicator of the world group (the program's; the
// layer's control communicator is another). A persistent operation is
// recorded at its PMPI_*_init.
typedef struct {
  int Kind;         // kPmpiSend or kPmpiRecv
  const char *Name; // the PMPI function
  const void *Buf;
  int Count;
  int TypeSize;    // bytes of one element of the datatype MPI got
  MPI_Aint Extent; // and its extent
  int Packed;      // the datatype is MPI_PACKED
  int Peer;
  int Tag;
} PmpiCall;

// The calls recorded so far, in order; their number.
int pmpiBytesCalls(const PmpiCall **Calls);

#endif

// out_of_order_waits.c - receives that MPI matches in one order and the
// program completes in another: each rank posts three receives that can
// all take its peer's tag-1 messages (by source, MPI_ANY_SOURCE, by source
// again), its peer sends three, and the program waits for the last posted
// first. MPI gives the channel's messages to the receives in posting order
// whatever order they are waited for in, so the layer must settle their
// places in posting order too (issue 43: CCC_CHECK_PLACES compares them
// with the sender's). Rank 0 checkpoints with its receives open (they
// cross its line) in even iterations, in odd ones once the last posted
// completed (its place, not settled, is in the image); rank 1 at the end
// of an iteration.
//   usage: out_of_order_waits ITERATIONS   (2 ranks)
// Rank 0 prints both ranks' hashes of what each receive got.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  if (Size != 2) {
    fprintf(stderr, "out_of_order_waits: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int Peer = 1 - Rank;
  uint64_t Hash = mix64((uint64_t)Rank + 1);
  for (long It = 0; It < Iters; ++It) {
    uint64_t In[3], Out[3];
    MPI_Request R[3], S[3];
    int Srcs[3] = {Peer, MPI_ANY_SOURCE, Peer};
    for (int K = 0; K < 3; ++K)
      MPI_Irecv(&In[K], 1, MPI_UINT64_T, Srcs[K], 1, MPI_COMM_WORLD, &R[K]);
    for (int K = 0; K < 3; ++K) {
      Out[K] = mix64(Hash ^ (uint64_t)(It * 3 + K));
      MPI_Isend(&Out[K], 1, MPI_UINT64_T, Peer, 1, MPI_COMM_WORLD, &S[K]);
    }
    if (Rank == 0 && It % 2 == 0)
      ccc_checkpoint(); // with the three receives open
    MPI_Status St;
    for (int K = 2; K >= 0; --K) {
      MPI_Wait(&R[K], &St);
      Hash = mix64(Hash ^ In[K] * (uint64_t)(2 * K + 1));
      if (Rank == 0 && It % 2 == 1 && K == 2)
        ccc_checkpoint(); // the last one's place waits for the two open
    }
    MPI_Waitall(3, S, MPI_STATUSES_IGNORE);
    // The peer's next message depends on what we got: exchange hashes.
    uint64_t Other;
    MPI_Sendrecv(&Hash, 1, MPI_UINT64_T, Peer, 2, &Other, 1, MPI_UINT64_T, Peer,
                 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    Hash = mix64(Hash + Other);
    if (Rank == 1)
      ccc_checkpoint();
  }
  uint64_t All[2];
  MPI_Gather(&Hash, 1, MPI_UINT64_T, All, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("%016llx %016llx\n", (unsigned long long)All[0],
           (unsigned long long)All[1]);
  MPI_Finalize();
  return 0;
}

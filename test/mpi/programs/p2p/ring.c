// ring.c - proves point-to-point messages that cross a checkpoint are
// delivered exactly once after a restart, with blocking MPI_Send/MPI_Recv
// (several tags; a 4-word eager-sized token and a 128 KiB rendezvous-sized
// payload) clockwise and MPI_Sendrecv counter-clockwise. Even ranks
// checkpoint after their sends and before their receives, odd ranks at the
// end of the iteration, so odd->even ring messages are late (sent before the
// sender's checkpoint, received after the receiver's) and even->odd
// MPI_Sendrecv messages are early (sent after the sender's checkpoint,
// received before the receiver's); with 3 ranks 2->0 messages are late too.
//   usage: ring ITERATIONS   (at least 2 ranks)
// Rank 0 prints one hash per rank and their combination, in hex.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum {
  TAG_TOKEN = 1,   // the small token, clockwise
  TAG_PAYLOAD = 2, // the large payload, clockwise
  TAG_BACK = 3,    // MPI_Sendrecv, counter-clockwise
  NTOK = 4,        // words in the token
  NPAY = 16384     // words in the payload: 128 KiB
};

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

// Receive the token and the payload from Prev (in sending order).
static void recvBoth(uint64_t *Tok, uint64_t *Pay, int Prev) {
  MPI_Recv(Tok, NTOK, MPI_UINT64_T, Prev, TAG_TOKEN, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  MPI_Recv(Pay, NPAY, MPI_UINT64_T, Prev, TAG_PAYLOAD, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
}

static void sendBoth(const uint64_t *Tok, const uint64_t *Pay, int Next) {
  MPI_Send(Tok, NTOK, MPI_UINT64_T, Next, TAG_TOKEN, MPI_COMM_WORLD);
  MPI_Send(Pay, NPAY, MPI_UINT64_T, Next, TAG_PAYLOAD, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  if (Size < 2) {
    fprintf(stderr, "ring: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int Next = (Rank + 1) % Size, Prev = (Rank + Size - 1) % Size;

  uint64_t Tok[NTOK], InTok[NTOK], Back[NTOK], InBack[NTOK];
  uint64_t *Pay = malloc(NPAY * sizeof *Pay);
  uint64_t *InPay = malloc(NPAY * sizeof *InPay);
  for (int K = 0; K < NTOK; ++K)
    Tok[K] = mix64((uint64_t)Rank * NTOK + K);
  for (int J = 0; J < NPAY; ++J)
    Pay[J] = mix64(((uint64_t)Rank << 32) | (uint64_t)J);

  for (long It = 0; It < Iters; ++It) {
    // Clockwise: even ranks send first, odd ranks receive first, so the
    // blocking rendezvous-sized sends cannot deadlock for any ring size.
    if (Rank % 2 == 0) {
      sendBoth(Tok, Pay, Next);
      ccc_checkpoint(); // ours may be in flight, the odd ones will be late
      recvBoth(InTok, InPay, Prev);
    } else {
      recvBoth(InTok, InPay, Prev);
      sendBoth(Tok, Pay, Next);
    }
    for (int K = 0; K < NTOK; ++K)
      Tok[K] = mix64(InTok[K] ^ (Tok[K] + (uint64_t)It));
    for (int J = 0; J < NPAY; ++J)
      Pay[J] = mix64(InPay[J] + Tok[J % NTOK]);

    // Counter-clockwise with a combined send and receive.
    for (int K = 0; K < NTOK; ++K)
      Back[K] = Tok[K] ^ Pay[(It * NTOK + K) % NPAY];
    MPI_Sendrecv(Back, NTOK, MPI_UINT64_T, Prev, TAG_BACK, InBack, NTOK,
                 MPI_UINT64_T, Next, TAG_BACK, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int K = 0; K < NTOK; ++K)
      Tok[K] ^= mix64(InBack[K] + (uint64_t)K);

    if (Rank % 2 == 1)
      ccc_checkpoint(); // after an even rank's early MPI_Sendrecv message
  }

  uint64_t Hash = 0;
  for (int K = 0; K < NTOK; ++K)
    Hash = mix64(Hash ^ Tok[K]);
  for (int J = 0; J < NPAY; ++J)
    Hash = mix64(Hash ^ Pay[J]);
  uint64_t *All = Rank == 0 ? malloc(Size * sizeof *All) : NULL;
  MPI_Gather(&Hash, 1, MPI_UINT64_T, All, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    uint64_t Total = 0;
    printf("ring: ranks=%d iterations=%ld\n", Size, Iters);
    for (int R = 0; R < Size; ++R) {
      printf("rank %d hash %016llx\n", R, (unsigned long long)All[R]);
      Total = mix64(Total ^ All[R]);
    }
    printf("total %016llx\n", (unsigned long long)Total);
    free(All);
  }
  free(Pay);
  free(InPay);
  MPI_Finalize();
  return 0;
}

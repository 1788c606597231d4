// type_churn.c - a code that makes its datatypes and groups where it uses
// them and frees them at once, every step: a strided vector, a contiguous
// type of it and a struct of that and two ints carry each step's message
// round the ring of ranks (MPI_Sendrecv); a group of the ranks but this one
// is made and freed too. The layer's table keeps every one of them; after
// a restart none of them needs making again, and whatever the layer makes
// it must free (MPICH's datatype library reports leaked objects at
// MPI_Finalize otherwise).
//   usage: type_churn STEPS
// Rank 0 prints a checksum of what arrived.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double Src[64], Dst[64];
static uint64_t Hash;

int main(int argc, char **argv) {
  int Steps = argc > 1 ? atoi(argv[1]) : 1000;
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int Next = (Rank + 1) % Size, Prev = (Rank + Size - 1) % Size;
  for (int Step = 0; Step < Steps; ++Step) {
    ccc_checkpoint();
    for (int I = 0; I < 64; ++I)
      Src[I] = Step * 0.5 + I + Rank * 100;
    MPI_Datatype Vec, Pairs, Rec;
    MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &Vec);
    MPI_Type_contiguous(2, Vec, &Pairs);
    int Blocks[2] = {1, 2};
    MPI_Aint Displs[2] = {0, 40 * sizeof(double)};
    MPI_Datatype Types[2] = {Pairs, MPI_INT};
    MPI_Type_create_struct(2, Blocks, Displs, Types, &Rec);
    MPI_Type_commit(&Rec);
    MPI_Type_free(&Vec);
    MPI_Type_free(&Pairs);
    memset(Dst, 0, sizeof(Dst));
    MPI_Sendrecv(Src, 1, Rec, Next, 0, Dst, 1, Rec, Prev, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Type_free(&Rec);
    MPI_Group World, Others;
    MPI_Comm_group(MPI_COMM_WORLD, &World);
    MPI_Group_excl(World, 1, &Rank, &Others);
    int N;
    MPI_Group_size(Others, &N);
    MPI_Group_free(&World);
    MPI_Group_free(&Others);
    for (int I = 0; I < 64; ++I) {
      uint64_t B;
      memcpy(&B, &Dst[I], sizeof(B));
      Hash = (Hash ^ B ^ (uint64_t)N) * 0x100000001b3ULL;
      Hash ^= Hash >> 29;
    }
  }
  uint64_t All = 0;
  MPI_Reduce(&Hash, &All, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("hash %016llx after %d steps\n", (unsigned long long)All, Steps);
  MPI_Finalize();
  return 0;
}

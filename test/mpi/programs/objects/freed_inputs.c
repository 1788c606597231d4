// freed_inputs.c - proves objects made from inputs the program freed
// afterwards (the usual MPI idiom) are re-created on restart. At start,
// as a code sets up its communication: groups from MPI_Comm_group and
// every group constructor (range_incl with one range, range_excl, incl,
// excl, union, intersection, difference), each from groups freed at once,
// give communicators by MPI_Comm_create (the groups all freed); a
// communicator split from a dup that is freed; and a datatype from every
// constructor (contiguous, vector, hvector, indexed, hindexed,
// indexed_block, hindexed_block, struct, resized, subarray, darray, dup)
// built on a "pair of doubles" type that is freed once they are made, one
// two levels deep (contiguous of a freed dup of the freed pair), Fortran 90
// real and MPI_Type_match_size types, and a type MPI_Type_get_contents
// returned for the freed pair. Every step, after the site, each type
// carries a message round the ring of ranks (MPI_Sendrecv) and the
// communicators reduce a checksum of what arrived.
//   usage: freed_inputs STEPS
// Rank 0 prints the group sizes and ranks, each type's combiner (as
// MPI_Type_get_envelope reports it) and size, and the checksum.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NBUF = 4096, NTYPES = 16 };

static MPI_Comm Rev, Last, Split;
static MPI_Datatype Types[NTYPES];
static const char *Names[NTYPES];
static int NTypes;
static double Src[NBUF], Dst[NBUF];
static uint64_t Hash;
static int Rank, Size;
static int GroupFacts[8];

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

static void add(const char *Name, MPI_Datatype T) {
  MPI_Type_commit(&T);
  Names[NTypes] = Name;
  Types[NTypes++] = T;
}

static void makeComms(void) {
  MPI_Group World, All, NotLast, Reversed, Excl, Union, Inter, Diff;
  MPI_Comm_group(MPI_COMM_WORLD, &World);
  int Everyone[1][3] = {{0, Size - 1, 1}};
  MPI_Group_range_incl(World, 1, Everyone, &All);
  MPI_Group_free(&World);
  int LastOne[1][3] = {{Size - 1, Size - 1, 1}};
  MPI_Group_range_excl(All, 1, LastOne, &NotLast);
  int *Order = malloc(Size * sizeof(int));
  for (int I = 0; I < Size; ++I)
    Order[I] = Size - 1 - I;
  MPI_Group_incl(All, Size, Order, &Reversed);
  free(Order);
  int World0 = Size - 1; // world rank 0's rank in Reversed
  MPI_Group_excl(Reversed, 1, &World0, &Excl); // all but world rank 0
  MPI_Group_union(NotLast, Excl, &Union);      // everyone, in NotLast's order
  MPI_Group_intersection(Reversed, Union, &Inter); // everyone, reversed
  MPI_Group_difference(All, NotLast, &Diff);       // the last rank
  MPI_Group_size(NotLast, &GroupFacts[0]);
  MPI_Group_size(Excl, &GroupFacts[1]);
  MPI_Group_size(Union, &GroupFacts[2]);
  MPI_Group_size(Diff, &GroupFacts[3]);
  MPI_Group_free(&All);
  MPI_Group_free(&NotLast);
  MPI_Group_free(&Reversed);
  MPI_Group_free(&Excl);
  MPI_Group_free(&Union);
  MPI_Comm_create(MPI_COMM_WORLD, Inter, &Rev);
  MPI_Comm_create(MPI_COMM_WORLD, Diff, &Last);
  MPI_Group_free(&Inter);
  MPI_Group_free(&Diff);
  MPI_Comm Dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &Dup);
  MPI_Comm_split(Dup, 0, -Rank, &Split);
  MPI_Comm_free(&Dup);
}

static void makeTypes(void) {
  MPI_Datatype Pair, T;
  MPI_Type_contiguous(2, MPI_DOUBLE, &Pair);
  MPI_Type_contiguous(3, Pair, &T);
  add("contiguous", T);
  MPI_Type_vector(5, 1, 3, Pair, &T);
  add("vector", T);
  MPI_Type_create_hvector(4, 2, 7 * 16, Pair, &T);
  add("hvector", T);
  int Blocks[3] = {2, 1, 3}, Displs[3] = {0, 5, 9};
  MPI_Type_indexed(3, Blocks, Displs, Pair, &T);
  add("indexed", T);
  MPI_Aint HDispls[3] = {0, 80, 160};
  MPI_Type_create_hindexed(3, Blocks, HDispls, Pair, &T);
  add("hindexed", T);
  MPI_Type_create_indexed_block(3, 2, Displs, Pair, &T);
  add("indexed_block", T);
  MPI_Type_create_hindexed_block(3, 2, HDispls, Pair, &T);
  add("hindexed_block", T);
  int SBlocks[3] = {2, 3, 1};
  MPI_Aint SDispls[3] = {0, 48, 96};
  MPI_Datatype STypes[3] = {Pair, MPI_INT, Types[1]};
  MPI_Type_create_struct(3, SBlocks, SDispls, STypes, &T);
  add("struct", T);
  MPI_Type_create_resized(Pair, 0, 40, &T);
  add("resized", T);
  int Sizes[2] = {16, 16}, Sub[2] = {6, 5}, Starts[2] = {3, 4};
  MPI_Type_create_subarray(2, Sizes, Sub, Starts, MPI_ORDER_C, Pair, &T);
  add("subarray", T);
  int GSize = 60, Distrib = MPI_DISTRIBUTE_BLOCK,
      DArg = MPI_DISTRIBUTE_DFLT_DARG, PSize = Size;
  MPI_Type_create_darray(Size, Rank, 1, &GSize, &Distrib, &DArg, &PSize,
                         MPI_ORDER_C, Pair, &T);
  add("darray", T);
  MPI_Datatype D;
  MPI_Type_dup(Pair, &D);
  add("dup", D);
  MPI_Datatype D2;
  MPI_Type_dup(Pair, &D2);
  MPI_Type_contiguous(2, D2, &T); // two levels of freed inputs
  MPI_Type_free(&D2);
  add("contiguous_of_freed_dup", T);
  // What the struct was made of: the freed pair comes back as a new handle.
  int NI, NA, ND, Comb;
  MPI_Type_get_envelope(Types[7], &NI, &NA, &ND, &Comb);
  int Ints[8];
  MPI_Aint Addrs[8];
  MPI_Datatype Inner[8];
  // The counts the envelope gave: Open MPI 4.1.4 crashes on larger ones.
  MPI_Type_get_contents(Types[7], NI, NA, ND, Ints, Addrs, Inner);
  add("contents_of_struct", Inner[0]);
  MPI_Type_free(&Inner[2]); // the vector's: the program's to free
  MPI_Type_free(&Pair);
  MPI_Type_create_f90_real(15, 300, &T);
  add("f90_real", T);
  MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &T);
  Names[NTypes] = "match_size";
  Types[NTypes++] = T;
}

int main(int argc, char **argv) {
  int Steps = argc > 1 ? atoi(argv[1]) : 1000;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  makeComms();
  makeTypes();
  int Next = (Rank + 1) % Size, Prev = (Rank + Size - 1) % Size;
  for (int Step = 0; Step < Steps; ++Step) {
    ccc_checkpoint();
    for (int I = 0; I < NBUF; ++I)
      Src[I] = (double)((Step * 31 + I * 7 + Rank * 13) % 1000) / 8.0;
    uint64_t Mine = 0;
    for (int K = 0; K < NTypes; ++K) {
      memset(Dst, 0, sizeof(Dst));
      MPI_Sendrecv(Src, 1, Types[K], Next, K, Dst, 1, Types[K], Prev, K,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int I = 0; I < NBUF; I += 3) {
        uint64_t B;
        memcpy(&B, &Dst[I], sizeof(B));
        Mine = mix64(Mine ^ B ^ (uint64_t)K << 56);
      }
    }
    uint64_t Sum[3] = {0, 0, 0};
    MPI_Allreduce(&Mine, &Sum[0], 1, MPI_UINT64_T, MPI_BXOR, Rev);
    MPI_Allreduce(&Mine, &Sum[1], 1, MPI_UINT64_T, MPI_BXOR, Split);
    if (Last != MPI_COMM_NULL)
      MPI_Allreduce(&Mine, &Sum[2], 1, MPI_UINT64_T, MPI_BXOR, Last);
    MPI_Bcast(&Sum[2], 1, MPI_UINT64_T, Size - 1, MPI_COMM_WORLD);
    Hash = mix64(Hash ^ Sum[0]) ^ mix64(Sum[1] + Step) ^ Sum[2];
  }
  int RevRank, SplitRank, LastSize = 0;
  MPI_Comm_rank(Rev, &RevRank);
  MPI_Comm_rank(Split, &SplitRank);
  if (Last != MPI_COMM_NULL)
    MPI_Comm_size(Last, &LastSize);
  int Facts[3] = {RevRank, SplitRank, LastSize};
  int *All = malloc(3 * Size * sizeof(int));
  MPI_Gather(Facts, 3, MPI_INT, All, 3, MPI_INT, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    printf("groups: not last %d, all but 0 %d, union %d, difference %d\n",
           GroupFacts[0], GroupFacts[1], GroupFacts[2], GroupFacts[3]);
    for (int R = 0; R < Size; ++R)
      printf("rank %d: reversed rank %d, split rank %d, last size %d\n", R,
             All[3 * R], All[3 * R + 1], All[3 * R + 2]);
    for (int K = 0; K < NTypes; ++K) {
      int NI, NA, ND, Comb, Bytes;
      MPI_Type_get_envelope(Types[K], &NI, &NA, &ND, &Comb);
      MPI_Type_size(Types[K], &Bytes);
      printf("%s: combiner %d (%d ints, %d addresses, %d types), %d bytes\n",
             Names[K], Comb, NI, NA, ND, Bytes);
    }
    printf("hash %016llx after %d steps\n", (unsigned long long)Hash, Steps);
  }
  free(All);
  for (int K = 0; K < NTypes - 2; ++K) // not the f90 and match_size ones
    MPI_Type_free(&Types[K]);
  MPI_Comm_free(&Rev);
  MPI_Comm_free(&Split);
  if (Last != MPI_COMM_NULL)
    MPI_Comm_free(&Last);
  MPI_Finalize();
  return 0;
}

// freed_blocks_churn.c - freed heap blocks are not saved: 512 blocks of
// 32 KiB of incompressible bytes, 7 of 8 freed after the set-up; every
// step frees one live block and allocates another, adds or frees one more
// (up to 24 more live blocks, taken from the freed ones), refills what
// it allocated and folds the live blocks and their addresses into a
// checksum: ccc's heap is at a fixed address, so a restart must give the
// uninterrupted run's addresses, which it does only if the allocator's
// lists (threaded through the free blocks) come back intact. The images
// hold the 2 to 3 MiB of live blocks, not the 13 MiB freed.
// usage: freed_blocks_churn [steps]
#include <ccc.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { NBlocks = 512, BlockBytes = 32768, Words = BlockBytes / 8 };

static uint64_t mix(uint64_t X) {
  X ^= X >> 31;
  X *= 0x94d049bb133111ebull;
  X ^= X >> 29;
  return X;
}

static void fill(uint64_t *B, uint64_t Seed) {
  for (int I = 0; I < Words; ++I)
    B[I] = mix(Seed * 0x9e3779b97f4a7c15ull + (uint64_t)I);
}

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  uint64_t *Blocks[NBlocks];
  for (int I = 0; I < NBlocks; ++I) {
    Blocks[I] = malloc(BlockBytes);
    if (!Blocks[I])
      return 1;
    fill(Blocks[I], (uint64_t)I);
  }
  for (int I = 0; I < NBlocks; ++I)
    if (I % 8) {
      free(Blocks[I]);
      Blocks[I] = NULL;
    }
  // Extra live blocks, in the slots the set-up freed: 24 steps adding one
  // a step (taken from the allocator's free list, deeper each step), 24
  // steps freeing them again, and so on.
  int Extra = 0;
  uint64_t Sum = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    int Slot = Extra + Extra / 7 + 1; // the Extra-th slot not a multiple of 8
    if ((S / 24) % 2 == 0) {
      Blocks[Slot] = malloc(BlockBytes);
      if (!Blocks[Slot])
        return 1;
      fill(Blocks[Slot], (uint64_t)S);
      Sum = mix(Sum + (uint64_t)(uintptr_t)Blocks[Slot]);
      ++Extra;
    } else {
      --Extra;
      Slot = Extra + Extra / 7 + 1;
      free(Blocks[Slot]);
      Blocks[Slot] = NULL;
    }
    int Out = (int)(S % (NBlocks / 8)) * 8;
    free(Blocks[Out]);
    Blocks[Out] = malloc(BlockBytes);
    if (!Blocks[Out])
      return 1;
    fill(Blocks[Out], (uint64_t)S + NBlocks);
    Sum = mix(Sum + (uint64_t)(uintptr_t)Blocks[Out]);
    for (int I = 0; I < NBlocks; I += 8)
      for (int W = 0; W < Words; W += 64)
        Sum = mix(Sum + Blocks[I][W]);
  }
  printf("steps %ld checksum %016llx\n", Steps, (unsigned long long)Sum);
  return 0;
}

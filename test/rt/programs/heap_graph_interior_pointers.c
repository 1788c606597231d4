// heap_graph_interior_pointers.c - proves a heap graph survives restart:
// nodes pointing at nodes, interior pointers into arrays held by other
// nodes, a doubly linked list, a chained hash table, and a realloc-grown
// array of node pointers, all mutated (with frees) between checkpoints.
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct Node {
  uint64_t Key;
  double *Vals;        // owned array of 16
  double *Peer;        // interior pointer into another node's Vals
  struct Node *Prev, *Next, *Chain;
} Node;

static uint64_t Rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void) {
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return Rng;
}

#define BUCKETS 1024
static Node *Table[BUCKETS];
static Node *Head;
static Node **All;
static size_t Count, Cap;

static Node *make(uint64_t Key) {
  Node *N = calloc(1, sizeof(Node));
  N->Key = Key;
  N->Vals = malloc(16 * sizeof(double));
  for (int I = 0; I < 16; ++I)
    N->Vals[I] = (double)(Key % 1000) + I * 0.25;
  N->Peer = Count ? &All[next() % Count]->Vals[next() % 16] : &N->Vals[3];
  N->Next = Head;
  if (Head)
    Head->Prev = N;
  Head = N;
  N->Chain = Table[Key % BUCKETS];
  Table[Key % BUCKETS] = N;
  if (Count == Cap) {
    Cap = Cap ? Cap * 2 : 4;
    All = realloc(All, Cap * sizeof(Node *));
  }
  All[Count++] = N;
  return N;
}

static void drop(size_t Idx) {
  Node *N = All[Idx];
  // Nobody may keep an interior pointer into the freed array.
  for (size_t I = 0; I < Count; ++I)
    if (All[I]->Peer >= N->Vals && All[I]->Peer < N->Vals + 16)
      All[I]->Peer = &All[I]->Vals[5];
  if (N->Prev)
    N->Prev->Next = N->Next;
  else
    Head = N->Next;
  if (N->Next)
    N->Next->Prev = N->Prev;
  Node **L = &Table[N->Key % BUCKETS];
  while (*L != N)
    L = &(*L)->Chain;
  *L = N->Chain;
  All[Idx] = All[--Count];
  free(N->Vals);
  free(N);
}

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 4000;
  for (int I = 0; I < 200; ++I)
    make(next());
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (int K = 0; K < 20; ++K)
      make(next());
    for (int K = 0; K < 18 && Count > 10; ++K)
      drop(next() % Count);
    for (size_t I = 0; I < Count; ++I) {
      Node *N = All[I];
      *N->Peer += 0.5;
      N->Vals[S % 16] = N->Vals[(S + 1) % 16] * 0.5 + *N->Peer * 1e-3;
    }
  }
  double Sum = 0;
  uint64_t H = 1469598103934665603ULL;
  size_t Walked = 0;
  for (Node *N = Head; N; N = N->Next, ++Walked) {
    for (int I = 0; I < 16; ++I)
      Sum += N->Vals[I];
    H = (H ^ N->Key) * 1099511628211ULL;
  }
  size_t Chained = 0;
  for (int B = 0; B < BUCKETS; ++B)
    for (Node *N = Table[B]; N; N = N->Chain)
      ++Chained;
  printf("nodes %zu walked %zu chained %zu hash %016llx sum %a rng %016llx\n",
         Count, Walked, Chained, (unsigned long long)H, Sum,
         (unsigned long long)Rng);
  return 0;
}

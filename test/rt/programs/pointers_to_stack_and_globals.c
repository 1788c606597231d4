// pointers_to_stack_and_globals.c - proves pointers between all kinds of
// memory survive restart: heap structs pointing to main's locals and to
// globals, globals pointing to the heap and into main's stack, function
// pointers in a global table and in heap structs, and static locals.
#include "ccc.h"

#include <stdio.h>
#include <stdlib.h>

typedef double (*Op)(double, double);
static double add(double A, double B) { return A + B; }
static double mul(double A, double B) { return A * B * 0.5 + 1; }
static double sub(double A, double B) { return A - B * 0.25; }
static double mix(double A, double B) { return (A + 3 * B) / 4; }

static Op Ops[4] = {add, mul, sub, mix};
static double G1 = 1.5, G2 = -2.25;
static double *StackArrayPtr; // points into main's frame
static struct Cell *HeapHead; // global -> heap

struct Cell {
  double *Target; // into main's stack, a global, or another cell
  Op Fn;
  double Value;
  struct Cell *Next;
};

static double counter(double X) {
  static long Calls;     // static local
  static double Running; // static local
  ++Calls;
  Running = Running * 0.999 + X;
  return Running + Calls * 1e-6;
}

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 2000000;
  double Local[64];
  for (int I = 0; I < 64; ++I)
    Local[I] = I;
  StackArrayPtr = Local;
  double Scalar = 0.125;
  for (int I = 0; I < 32; ++I) {
    struct Cell *C = malloc(sizeof *C);
    C->Target = I % 4 == 0 ? &Local[I] : I % 4 == 1 ? &G1 : I % 4 == 2 ? &Scalar : &G2;
    C->Fn = Ops[I % 4];
    C->Value = I;
    C->Next = HeapHead;
    HeapHead = C;
  }
  long S = 0;
  for (; S < Steps; ++S) {
    ccc_checkpoint();
    struct Cell *C = HeapHead;
    for (long K = S % 32; K > 0; --K)
      C = C->Next;
    C->Value = C->Fn(C->Value, *C->Target) * 0.5;
    *C->Target = *C->Target * 0.999 + C->Value * 1e-3;
    StackArrayPtr[S % 64] += counter(C->Value) * 1e-9;
    if (S % 1000 == 0) { // rotate the function tables
      Op T = Ops[0];
      Ops[0] = Ops[1], Ops[1] = Ops[2], Ops[2] = Ops[3], Ops[3] = T;
      C->Fn = Ops[S % 4];
    }
  }
  double Sum = G1 + G2 + Scalar + counter(0);
  for (int I = 0; I < 64; ++I)
    Sum += Local[I];
  for (struct Cell *C = HeapHead; C; C = C->Next)
    Sum += C->Value;
  printf("steps %ld sum %a g1 %a g2 %a\n", S, Sum, G1, G2);
  return 0;
}

// heat.c - the ccc demo: a 2-D heat equation (explicit finite differences)
// with the state kinds real codes have: two heap grids swapped through
// pointers each step, a global parameter struct, a linked list of probe
// points on the heap, and a struct of pointers to main's locals.
// Prints only the final result to stdout; progress goes to stderr.
//   usage: heat [steps]
#include <ccc.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct Params {
  int NX, NY;
  double Alpha, Dt;
  long Steps;
} P = {512, 512, 0.24, 1.0, 60000};

struct Probe { // where the solution is sampled every 50 steps
  int X, Y;
  double Sum;
  long Samples;
  struct Probe *Next;
};

struct Locals { // pointers into main's frame, saved with the stack
  long *Step;
  double *Energy;
};

static void step(const double *restrict U, double *restrict V) {
  int NX = P.NX, NY = P.NY;
  for (int Y = 1; Y < NY - 1; ++Y)
    for (int X = 1; X < NX - 1; ++X) {
      const double *C = &U[Y * NX + X];
      V[Y * NX + X] = *C + P.Alpha * (C[-1] + C[1] + C[-NX] + C[NX] - 4 * *C);
    }
}

int main(int argc, char **argv) {
  if (argc > 1)
    P.Steps = atol(argv[1]);
  size_t N = (size_t)P.NX * P.NY;
  double *U = calloc(N, sizeof(double)), *V = calloc(N, sizeof(double));
  for (int Y = 0; Y < P.NY; ++Y) // hot left edge, warm disc in the middle
    for (int X = 0; X < P.NX; ++X) {
      int DX = X - P.NX / 2, DY = Y - P.NY / 2;
      U[Y * P.NX + X] = X == 0 ? 100.0 : (DX * DX + DY * DY < 400 ? 50.0 : 0);
    }
  memcpy(V, U, N * sizeof(double));
  struct Probe *Probes = NULL;
  for (int I = 0; I < 8; ++I) {
    struct Probe *Pr = calloc(1, sizeof *Pr);
    Pr->X = 10 + I * 60;
    Pr->Y = 30 + I * 55;
    Pr->Next = Probes;
    Probes = Pr;
  }
  long S = 0;
  double Energy = 0;
  struct Locals L = {&S, &Energy};
  for (; *L.Step < P.Steps; ++*L.Step) {
    ccc_checkpoint();
    step(U, V);
    double *T = U; // swap grids
    U = V;
    V = T;
    if (S % 50 == 0)
      for (struct Probe *Pr = Probes; Pr; Pr = Pr->Next) {
        Pr->Sum += U[Pr->Y * P.NX + Pr->X];
        Pr->Samples++;
      }
    if ((S + 1) % (P.Steps / 10 ? P.Steps / 10 : 1) == 0)
      fprintf(stderr, "step %ld/%ld\n", S + 1, P.Steps);
  }
  uint64_t H = 1469598103934665603ULL;
  for (size_t I = 0; I < N; ++I) {
    uint64_t B;
    memcpy(&B, &U[I], 8);
    H = (H ^ B) * 1099511628211ULL;
    *L.Energy += U[I];
  }
  for (struct Probe *Pr = Probes; Pr; Pr = Pr->Next)
    *L.Energy += Pr->Sum / (Pr->Samples ? Pr->Samples : 1);
  printf("result: %016llx %.17g\n", (unsigned long long)H, Energy);
  return 0;
}

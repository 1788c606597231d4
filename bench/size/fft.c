// fft.c - two coupled complex Ginzburg-Landau equations on a periodic 2-D
// grid, pseudo-spectral split step: the linear part exactly in Fourier
// space (a multiply by a spectral filter computed once), the nonlinear part
// pointwise in physical space (bench/size). Rows are split over the ranks;
// a 2-D transform is radix-2 FFTs along the rows, a global transpose
// (MPI_Alltoall), FFTs along the columns, and the same path back.
//
// At the site: the fields a and b (physical space, by rows), the filter
// (written once, read every step) and the twiddle tables are live; the row
// transform w, the Alltoall buffers and the transposed spectrum t are
// overwritten before they are read: dead. usage: fft [MB per rank] [steps]
#include "moment.h"

#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  double Re, Im;
} Complex;

// The grid: NX x NY points, NYl rows per rank before the transpose, NXl
// columns per rank after it.
typedef struct {
  long NX, NY, NXl, NYl;
} Grid;

// Tw[K] = exp(-2 pi i K / N), K < N / 2.
static Complex *twiddles(long N) {
  Complex *Tw = malloc(N / 2 * sizeof(Complex));
  for (long K = 0; K < N / 2; ++K) {
    double Phi = -2 * M_PI * (double)K / (double)N;
    Tw[K].Re = cos(Phi);
    Tw[K].Im = sin(Phi);
  }
  return Tw;
}

// In-place iterative radix-2 FFT of X[0, N), N a power of two; Inverse:
// the conjugate twiddles (unnormalised).
static void fft(Complex *X, long N, const Complex *Tw, int Inverse) {
  for (long I = 1, J = 0; I < N; ++I) {
    long Bit = N >> 1;
    for (; J & Bit; Bit >>= 1)
      J ^= Bit;
    J |= Bit;
    if (I < J) {
      Complex T = X[I];
      X[I] = X[J];
      X[J] = T;
    }
  }
  for (long Len = 2; Len <= N; Len <<= 1) {
    long Half = Len / 2, Stride = N / Len;
    for (long I = 0; I < N; I += Len)
      for (long K = 0; K < Half; ++K) {
        double WRe = Tw[K * Stride].Re;
        double WIm = Inverse ? -Tw[K * Stride].Im : Tw[K * Stride].Im;
        Complex *P = X + I + K, *Q = P + Half;
        double Re = Q->Re * WRe - Q->Im * WIm;
        double Im = Q->Re * WIm + Q->Im * WRe;
        Q->Re = P->Re - Re;
        Q->Im = P->Im - Im;
        P->Re += Re;
        P->Im += Im;
      }
  }
}

// Rows (NYl x NX) to columns (NXl x NY): block D of Send goes to rank D.
static void transposeRows(const Grid *G, const Complex *Rows, Complex *Send,
                          Complex *Recv, Complex *Cols, int Size) {
  long Blk = G->NXl * G->NYl;
  for (int D = 0; D < Size; ++D)
    for (long I = 0; I < G->NYl; ++I)
      memcpy(Send + D * Blk + I * G->NXl, Rows + I * G->NX + D * G->NXl,
             G->NXl * sizeof(Complex));
  MPI_Alltoall(Send, (int)(2 * Blk), MPI_DOUBLE, Recv, (int)(2 * Blk),
               MPI_DOUBLE, MPI_COMM_WORLD);
  for (int S = 0; S < Size; ++S)
    for (long I = 0; I < G->NYl; ++I)
      for (long J = 0; J < G->NXl; ++J)
        Cols[J * G->NY + S * G->NYl + I] = Recv[S * Blk + I * G->NXl + J];
}

// Columns (NXl x NY) back to rows (NYl x NX).
static void transposeCols(const Grid *G, const Complex *Cols, Complex *Send,
                          Complex *Recv, Complex *Rows, int Size) {
  long Blk = G->NXl * G->NYl;
  for (int D = 0; D < Size; ++D)
    for (long J = 0; J < G->NXl; ++J)
      memcpy(Send + D * Blk + J * G->NYl, Cols + J * G->NY + D * G->NYl,
             G->NYl * sizeof(Complex));
  MPI_Alltoall(Send, (int)(2 * Blk), MPI_DOUBLE, Recv, (int)(2 * Blk),
               MPI_DOUBLE, MPI_COMM_WORLD);
  for (int S = 0; S < Size; ++S)
    for (long J = 0; J < G->NXl; ++J)
      for (long I = 0; I < G->NYl; ++I)
        Rows[I * G->NX + S * G->NXl + J] = Recv[S * Blk + J * G->NYl + I];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  double MB = argc > 1 ? atof(argv[1]) : 120;
  long Steps = argc > 2 ? atol(argv[2]) : 40;
  // 7 complex arrays of N points per rank (a, b, filter, w, 2 buffers, t);
  // N and the grid powers of two.
  long N = 1024;
  while (2 * N * 7 * (long)sizeof(Complex) <= (long)(MB * 1048576))
    N *= 2;
  Grid G;
  long Total = N * Size, Bits = 0;
  while ((1l << Bits) < Total)
    ++Bits;
  G.NX = 1l << (Bits + 1) / 2;
  G.NY = Total / G.NX;
  if ((1l << Bits) != Total || G.NX % Size || G.NY % Size) {
    if (Rank == 0)
      fprintf(stderr, "fft: the rank count must be a power of two\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  G.NXl = G.NX / Size;
  G.NYl = G.NY / Size;
  Complex *A = malloc(N * sizeof(Complex)), *B = malloc(N * sizeof(Complex));
  Complex *Filter = malloc(N * sizeof(Complex));
  Complex *W = malloc(N * sizeof(Complex)), *T = malloc(N * sizeof(Complex));
  Complex *Send = malloc(N * sizeof(Complex));
  Complex *Recv = malloc(N * sizeof(Complex));
  Complex *TwX = twiddles(G.NX), *TwY = twiddles(G.NY);
  const double Dt = 0.05, C1 = 2.0, C3 = -1.0, Couple = 0.5;
  for (long I = 0; I < G.NYl; ++I)
    for (long J = 0; J < G.NX; ++J) {
      long Y = Rank * G.NYl + I, P = I * G.NX + J;
      uint64_t Gi = (uint64_t)(Y * G.NX + J);
      double Wave = 0.2 * cos(2 * M_PI * 3 * (double)J / (double)G.NX);
      A[P].Re = 0.3 * bench_noise(4 * Gi) + Wave;
      A[P].Im = 0.3 * bench_noise(4 * Gi + 1);
      B[P].Re = 0.3 * bench_noise(4 * Gi + 2);
      B[P].Im = 0.3 * bench_noise(4 * Gi + 3) + Wave;
    }
  // exp(Dt (1 - (1 + i C1) k^2)) / (NX NY), laid out as t: column-major.
  for (long J = 0; J < G.NXl; ++J)
    for (long Y = 0; Y < G.NY; ++Y) {
      long X = Rank * G.NXl + J;
      double Kx = 2 * M_PI * (double)(X < G.NX / 2 ? X : X - G.NX) /
                  (double)G.NX;
      double Ky = 2 * M_PI * (double)(Y < G.NY / 2 ? Y : Y - G.NY) /
                  (double)G.NY;
      double K2 = Kx * Kx + Ky * Ky;
      double Mag = exp(Dt * (1 - K2)) / (double)(G.NX * G.NY);
      Filter[J * G.NY + Y].Re = Mag * cos(-Dt * C1 * K2);
      Filter[J * G.NY + Y].Im = Mag * sin(-Dt * C1 * K2);
    }
  double Oracle = 3.0 * N * sizeof(Complex) /*a b filter*/ +
                  (double)(G.NX + G.NY) / 2 * sizeof(Complex) /*twiddles*/;
  double Energy = 0;
  for (long S = 0; S < Steps; ++S) {
    bench_live(A, N * sizeof(Complex));
    bench_live(B, N * sizeof(Complex));
    bench_live(Filter, N * sizeof(Complex));
    bench_live(TwX, G.NX / 2 * sizeof(Complex));
    bench_live(TwY, G.NY / 2 * sizeof(Complex));
    bench_site(S, Rank, Oracle);
    for (int C = 0; C < 2; ++C) {
      Complex *U = C ? B : A;
      memcpy(W, U, N * sizeof(Complex));
      for (long I = 0; I < G.NYl; ++I)
        fft(W + I * G.NX, G.NX, TwX, 0);
      transposeRows(&G, W, Send, Recv, T, Size);
      for (long J = 0; J < G.NXl; ++J) {
        Complex *Col = T + J * G.NY;
        const Complex *F = Filter + J * G.NY;
        fft(Col, G.NY, TwY, 0);
        for (long Y = 0; Y < G.NY; ++Y) {
          double Re = Col[Y].Re * F[Y].Re - Col[Y].Im * F[Y].Im;
          double Im = Col[Y].Re * F[Y].Im + Col[Y].Im * F[Y].Re;
          Col[Y].Re = Re;
          Col[Y].Im = Im;
        }
        fft(Col, G.NY, TwY, 1);
      }
      transposeCols(&G, T, Send, Recv, U, Size);
      for (long I = 0; I < G.NYl; ++I)
        fft(U + I * G.NX, G.NX, TwX, 1);
    }
    // Nonlinear part: u -= Dt (1 + i C3) (|u|^2 + Couple |v|^2) u.
    double Local = 0;
    for (long P = 0; P < N; ++P) {
      Complex Av = A[P], Bv = B[P];
      double NormA = Av.Re * Av.Re + Av.Im * Av.Im;
      double NormB = Bv.Re * Bv.Re + Bv.Im * Bv.Im;
      double GA = Dt * (NormA + Couple * NormB);
      double GB = Dt * (NormB + Couple * NormA);
      A[P].Re = Av.Re - GA * (Av.Re - C3 * Av.Im);
      A[P].Im = Av.Im - GA * (Av.Im + C3 * Av.Re);
      B[P].Re = Bv.Re - GB * (Bv.Re - C3 * Bv.Im);
      B[P].Im = Bv.Im - GB * (Bv.Im + C3 * Bv.Re);
      Local += NormA + NormB;
    }
    MPI_Allreduce(MPI_IN_PLACE, &Local, 1, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    Energy = Local / (double)(G.NX * G.NY);
  }
  double Sum[2] = {0, 0};
  for (long P = 0; P < N; ++P) {
    Sum[0] += A[P].Re;
    Sum[1] += B[P].Im;
  }
  MPI_Allreduce(MPI_IN_PLACE, Sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("fft: %ldx%ld grid, %ld points per rank, <|a|^2+|b|^2> %.12e, "
           "sum(re a) %.12e, sum(im b) %.12e\n",
           G.NX, G.NY, N, Energy, Sum[0], Sum[1]);
  MPI_Finalize();
  return 0;
}

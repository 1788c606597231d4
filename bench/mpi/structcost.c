// structcost.c - what MPI itself charges for the datatype that joins the
// non-blocking protocol's 8-byte header to a large buffer (issue 20). No
// ccc here: one plain program times, in one launch and in turns, N
// contiguous bytes and the same N bytes behind an 8-byte header,
// described as ccc's layer describes them (MPI_Type_create_struct of two
// MPI_BYTE blocks at absolute addresses, sent from MPI_BOTTOM), moved two
// ways: a ping-pong, and an exchange (MPI_Irecv, MPI_Isend, MPI_Waitall on
// both ranks at once, as a halo exchange). A third form copies the header
// and the data into one contiguous buffer and out of one on the other
// side (memcpy), the alternative to the struct for large messages. Each rank
// sends from one buffer and receives into another, as codes do (until
// 2026-11-29 one buffer did both, which flattered the struct: a contiguous
// message sent from memory the other rank had just written was the slower one).
// The ratio struct/contiguous per launch is free of the launch modes that
// separate two launches on this VM.
//
// usage: mpirun -np 2 structcost [-r REPS] [-s SCALE] SIZE...
//   -r REPS   repetitions per form and size (default 7; a warm-up first)
//   -s SCALE  round trips per repetition, as a multiple of the default
//             (about 32 MiB moved each way per repetition; default 1)
// Output (rank 0), one line per size:
//   structcost BYTES K REPS CONTIG_MED_US STRUCT_MED_US RATIO_OF_MEDIANS
//              EX_CONTIG_MED_US EX_STRUCT_MED_US EX_RATIO_OF_MEDIANS
//              COPY_MED_US COPY_RATIO EX_COPY_MED_US EX_COPY_RATIO
//   ping-pong: one-way latency (half a round trip averaged over K round
//   trips); exchange: time per exchange (K of them); median over REPS
//   repetitions of each form.
#include <mpi.h>

// gcc (mpicc.mpich) takes MPICH's MPI_STATUSES_IGNORE, a constant pointer,
// for an array of size 0.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

static double median(double *V, int N) {
  qsort(V, N, sizeof(double), cmp);
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

// One form of a message: Count elements of Send at Out are sent, Count of
// Recv at In received. Copied: Out and In are contiguous staging buffers
// of the header and the data, filled from Data and Header before a send
// and emptied into Into after a receive.
struct Form {
  void *Out, *In;
  int Count;
  MPI_Datatype Send, Recv;
  int Copied;
  const char *Data, *Header;
  char *Into;
};

enum { HeaderBytes = 8 };

static void stage(const struct Form *F) {
  if (F->Copied) {
    memcpy(F->Out, F->Header, HeaderBytes);
    memcpy((char *)F->Out + HeaderBytes, F->Data, F->Count - HeaderBytes);
  }
}

static void unstage(const struct Form *F) {
  if (F->Copied)
    memcpy(F->Into, (char *)F->In + HeaderBytes, F->Count - HeaderBytes);
}

// One repetition: K round trips (Exchange: K exchanges) of F; us per
// one-way trip (per exchange).
static double repetition(int Rank, const struct Form *F, int K, int Exchange) {
  int Peer = 1 - Rank;
  MPI_Barrier(MPI_COMM_WORLD);
  double T0 = MPI_Wtime();
  for (int I = 0; I < K; ++I) {
    if (Exchange) {
      MPI_Request Req[2];
      MPI_Irecv(F->In, F->Count, F->Recv, Peer, 0, MPI_COMM_WORLD, &Req[0]);
      stage(F);
      MPI_Isend(F->Out, F->Count, F->Send, Peer, 0, MPI_COMM_WORLD, &Req[1]);
      MPI_Waitall(2, Req, MPI_STATUSES_IGNORE);
      unstage(F);
    } else if (Rank == 0) {
      stage(F);
      MPI_Send(F->Out, F->Count, F->Send, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(F->In, F->Count, F->Recv, 1, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      unstage(F);
    } else {
      MPI_Recv(F->In, F->Count, F->Recv, 0, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      unstage(F);
      stage(F);
      MPI_Send(F->Out, F->Count, F->Send, 0, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - T0) / K / (Exchange ? 1 : 2) * 1e6;
}

// The header and N bytes at Buf as one struct datatype (absolute
// addresses), committed.
static MPI_Datatype joined(unsigned *Header, char *Buf, long N) {
  int Lens[2] = {HeaderBytes, (int)N};
  MPI_Aint Addrs[2];
  MPI_Datatype Types[2] = {MPI_BYTE, MPI_BYTE}, T;
  MPI_Get_address(Header, &Addrs[0]);
  MPI_Get_address(Buf, &Addrs[1]);
  MPI_Type_create_struct(2, Lens, Addrs, Types, &T);
  MPI_Type_commit(&T);
  return T;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int Reps = 7, Opt;
  double Scale = 1;
  while ((Opt = getopt(argc, argv, "r:s:")) != -1) {
    if (Opt == 'r')
      Reps = atoi(optarg);
    else if (Opt == 's')
      Scale = atof(optarg);
    else
      Reps = 0;
  }
  if (Size != 2 || Reps < 1 || Scale <= 0 || optind == argc) {
    if (Rank == 0)
      fprintf(stderr, "usage: mpirun -np 2 structcost [-r REPS] [-s SCALE] "
                      "SIZE...\n");
    MPI_Finalize();
    return 2;
  }
  if (Rank == 0)
    printf("# structcost BYTES K REPS CONTIG_MED_US STRUCT_MED_US "
           "RATIO_OF_MEDIANS\n");
  for (int A = optind; A < argc; ++A) {
    long Bytes = atol(argv[A]);
    if (Bytes < 1 || Bytes > (1L << 30)) {
      if (Rank == 0)
        fprintf(stderr, "structcost: size %s: expected 1 to 2^30 bytes\n",
                argv[A]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *Out = malloc(Bytes), *In = malloc(Bytes);
    memset(Out, Rank + 1, Bytes);
    memset(In, 0, Bytes);
    char *StageOut = malloc(Bytes + HeaderBytes);
    char *StageIn = malloc(Bytes + HeaderBytes);
    memset(StageOut, 0, Bytes + HeaderBytes);
    memset(StageIn, 0, Bytes + HeaderBytes);
    unsigned OutHeader[2] = {1, 2}, InHeader[2] = {0, 0};
    enum { Contig, Struct, Copy, NForms };
    struct Form Forms[NForms] = {
        [Contig] = {Out, In, (int)Bytes, MPI_BYTE, MPI_BYTE},
        [Struct] = {MPI_BOTTOM, MPI_BOTTOM, 1, joined(OutHeader, Out, Bytes),
                    joined(InHeader, In, Bytes)},
        [Copy] = {StageOut, StageIn, (int)Bytes + HeaderBytes, MPI_BYTE,
                  MPI_BYTE, 1, Out, (const char *)OutHeader, In}};
    long K = (long)(Scale * (32L << 20) / Bytes);
    K = K < 1 ? 1 : K > 20000 ? 20000 : K;
    double *T[2][NForms]; // [exchange][form]
    double Med[2][NForms];
    for (int E = 0; E < 2; ++E) {
      for (int F = 0; F < NForms; ++F) {
        T[E][F] = malloc(Reps * sizeof(double));
        repetition(Rank, &Forms[F], (int)K, E); // warm-up
      }
      // In turns, the first form rotating: none always runs warm.
      for (int R = 0; R < Reps; ++R)
        for (int I = 0; I < NForms; ++I) {
          int F = (R + I) % NForms;
          T[E][F][R] = repetition(Rank, &Forms[F], (int)K, E);
        }
      for (int F = 0; F < NForms; ++F) {
        Med[E][F] = median(T[E][F], Reps);
        free(T[E][F]);
      }
    }
    if (Rank == 0) {
      printf("structcost %ld %ld %d %.2f %.2f %.3f %.2f %.2f %.3f %.2f %.3f "
             "%.2f %.3f\n",
             Bytes, K, Reps, Med[0][Contig], Med[0][Struct],
             Med[0][Struct] / Med[0][Contig], Med[1][Contig], Med[1][Struct],
             Med[1][Struct] / Med[1][Contig], Med[0][Copy],
             Med[0][Copy] / Med[0][Contig], Med[1][Copy],
             Med[1][Copy] / Med[1][Contig]);
      fflush(stdout);
    }
    MPI_Type_free(&Forms[Struct].Send);
    MPI_Type_free(&Forms[Struct].Recv);
    free(StageOut);
    free(StageIn);
    free(Out);
    free(In);
  }
  MPI_Finalize();
  return 0;
}

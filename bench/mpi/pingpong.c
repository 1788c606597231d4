// pingpong.c - MPI point-to-point and collective latency, the workload of
// bench/mpi/run.sh. The same source is built plain (mpicc) and with ccc
// (ckpt-cc --mpi=...): the difference is the cost of ccc's MPI layer between
// checkpoints. Its one ccc_checkpoint() site, after MPI_Init and outside
// every timed loop, links the ccc runtime into the ccc build (a program
// without sites runs without it, and the layer then falls back to the
// blocking protocol's passive mode): the protocol chosen by CCC_PROTOCOL is
// the one measured.
//
// usage: mpirun -np N pingpong [-r REPS] [-s SCALE] [-p] [-c]
//   -r REPS   timed repetitions per measurement (default 11); a warm-up
//             repetition comes first and is not counted
//   -s SCALE  work per repetition, as a multiple of the default (default 1;
//             0.05 for a smoke run); the number of calls per repetition is
//             a function of the size and SCALE only, so both builds do the
//             same work
//   -p        ping-pong and exchange only (ranks 0 and 1; other ranks wait)
//   -c        collectives only (every rank)
//
// Output (rank 0, one line per measurement, whitespace-separated):
//   pingpong BYTES K REPS LAT_MED_US LAT_MIN_US BW_MED_MBS BW_MAX_MBS
//     one-way latency (half a round trip, averaged over K round trips in a
//     repetition), median and minimum over REPS repetitions; bandwidth is
//     BYTES over that latency (MB/s = 10^6 B/s): the median and the best.
//   exchange BYTES 2 K REPS MED_US MIN_US
//     ranks 0 and 1 swap BYTES with MPI_Irecv, MPI_Isend and MPI_Waitall:
//     time per exchange, measured like the collectives below.
//   column BYTES 2 K REPS MED_US MIN_US
//     the same exchange of one MPI_Type_vector element: BYTES / 8 doubles,
//     one per row of a grid 16 doubles wide (a halo column).
//   site 0 NP K REPS MED_US MIN_US
//     time per iteration of a loop whose body is a ccc_checkpoint() site
//     (no checkpoint due; the plain build's loop has no site), every rank
//     (with -c or no option), measured like the collectives below.
//   COLLECTIVE BYTES NP K REPS MED_US MIN_US
//     COLLECTIVE is allreduce, bcast, alltoall, their non-blocking forms
//     iallreduce, ibcast, ialltoall (each call followed by MPI_Wait), or
//     neighbor_alltoall and ineighbor_alltoall on a periodic 1-D Cartesian
//     communicator (two neighbours): time per call (the slowest rank's
//     average over K calls in a repetition), median and minimum over REPS
//     repetitions. BYTES is the reduced vector (doubles, MPI_SUM), the
//     broadcast bytes (root 0) or what each rank sends each peer
//     (all-to-all: 8 B, 64 KiB and 1 MiB / NP, that is 1 MiB in all per
//     rank; neighbourhood: 8 B and 512 KiB, 1 MiB in all).
//   pair COLLECTIVE 8 NP K REPS MPI_MED_US PMPI_MED_US
//     each 8-byte collective called through MPI_ and through PMPI_ in
//     turns within one launch, measured like the collectives above: the
//     medians of each. In the ccc build MPI_ goes through ccc's layer and
//     PMPI_ straight to MPI; in the plain build both are MPI's own.
//   pair exchange|pingpong BYTES 2 K REPS MPI_MED_US PMPI_MED_US
//     the same for the exchange (8 B, 64 KiB) and the ping-pong's one-way
//     latency (1 MiB, 4 MiB): what the layer and the non-blocking
//     protocol's header cost a message, in one launch.
// Lines starting with '#' are comments.
#include <mpi.h>

// Declared here rather than from ccc.h so the plain build compiles the same
// source; it leaves the symbol undefined (null).
int ccc_checkpoint(void) __attribute__((weak));

// gcc (mpicc.mpich) takes MPICH's MPI_STATUSES_IGNORE, a constant pointer,
// for an array of size 0.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int Rank, Size;
static int Reps = 11;
static double Scale = 1.0;

static int cmpDouble(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

static double median(double *V, int N) {
  qsort(V, N, sizeof(double), cmpDouble);
  return N % 2 ? V[N / 2] : 0.5 * (V[N / 2 - 1] + V[N / 2]);
}

static double minimum(const double *V, int N) {
  double M = V[0];
  for (int I = 1; I < N; ++I)
    if (V[I] < M)
      M = V[I];
  return M;
}

// Calls per repetition: about BUDGET bytes moved, between LO and HI calls,
// scaled; at least 2.
static int calls(double Budget, long Bytes, int Lo, int Hi) {
  double K = Budget / (double)Bytes;
  if (K < Lo)
    K = Lo;
  if (K > Hi)
    K = Hi;
  K *= Scale;
  return K < 2 ? 2 : (int)K;
}

static void *buffer(size_t Bytes) {
  unsigned char *P = malloc(Bytes ? Bytes : 1);
  if (!P) {
    fprintf(stderr, "pingpong: out of memory (%zu bytes)\n", Bytes);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (size_t I = 0; I < Bytes; ++I) // touch every page before timing
    P[I] = (unsigned char)(I * 31 + Rank);
  return P;
}

//===-- Ping-pong between ranks 0 and 1 -----------------------------------===//

// K round trips of BYTES, sent from Out and received into In (as codes
// do: one buffer for both made a contiguous message look slower than one
// behind the header, bench/mpi/structcost.c); returns the elapsed time on
// rank 0 and 1. Direct: by the PMPI_ entry points (in the ccc build, past
// the layer).
static double roundTrips(char *Out, char *In, int Bytes, int K, int Direct) {
  int (*Send)(const void *, int, MPI_Datatype, int, int, MPI_Comm) =
      Direct ? PMPI_Send : MPI_Send;
  int (*Recv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *) =
      Direct ? PMPI_Recv : MPI_Recv;
  double T0 = MPI_Wtime();
  if (Rank == 0) {
    for (int I = 0; I < K; ++I) {
      Send(Out, Bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
      Recv(In, Bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (Rank == 1) {
    for (int I = 0; I < K; ++I) {
      Recv(In, Bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      Send(Out, Bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - T0;
}

static void pingpong(void) {
  // 264 = 256 + 8: plain at 264 B is what 256 B costs with the
  // non-blocking protocol's 8-byte header (Open MPI's latency steps
  // between 256 and 264 B, as between 8 and 16 B).
  static const int Sizes[] = {8,        16,        64,      256,
                              264,      1 << 10,   4 << 10, 16 << 10,
                              64 << 10, 256 << 10, 1 << 20, 4 << 20};
  const int NSizes = sizeof(Sizes) / sizeof(Sizes[0]);
  char *Out = buffer(4 << 20), *In = buffer(4 << 20);
  double *Lat = malloc(Reps * sizeof(double));
  if (Rank == 0)
    printf("# pingpong BYTES K REPS LAT_MED_US LAT_MIN_US BW_MED_MBS "
           "BW_MAX_MBS\n");
  for (int S = 0; S < NSizes; ++S) {
    int Bytes = Sizes[S];
    int K = calls(64.0 * (1 << 20), Bytes, 16, 1000);
    MPI_Barrier(MPI_COMM_WORLD);
    roundTrips(Out, In, Bytes, K, 0); // warm-up
    for (int R = 0; R < Reps; ++R)
      Lat[R] = roundTrips(Out, In, Bytes, K, 0) * 1e6 / (2.0 * K);
    if (Rank == 0) {
      double Min = minimum(Lat, Reps), Med = median(Lat, Reps);
      printf("pingpong %d %d %d %.3f %.3f %.1f %.1f\n", Bytes, K, Reps, Med,
             Min, Bytes / Med, Bytes / Min);
      fflush(stdout);
    }
  }
  free(Lat);
  free(Out);
  free(In);
}

//===-- Non-blocking exchange between ranks 0 and 1 -----------------------===//

// The halo-exchange pattern: Irecv, Isend, Waitall, K times, of Count
// elements of Type; returns the time per exchange on ranks 0 and 1. Every
// request is an entry of the layer's request table, so this is where its
// per-request work shows.
static double exchanges(void *Out, void *In, int Count, MPI_Datatype Type,
                        int K, int Direct) {
  int (*Irecv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) =
      Direct ? PMPI_Irecv : MPI_Irecv;
  int (*Isend)(const void *, int, MPI_Datatype, int, int, MPI_Comm,
               MPI_Request *) = Direct ? PMPI_Isend : MPI_Isend;
  int (*Waitall)(int, MPI_Request *, MPI_Status *) =
      Direct ? PMPI_Waitall : MPI_Waitall;
  MPI_Barrier(MPI_COMM_WORLD);
  double T0 = MPI_Wtime();
  if (Rank < 2) {
    MPI_Request Req[2];
    for (int I = 0; I < K; ++I) {
      Irecv(In, Count, Type, 1 - Rank, 9, MPI_COMM_WORLD, &Req[0]);
      Isend(Out, Count, Type, 1 - Rank, 9, MPI_COMM_WORLD, &Req[1]);
      Waitall(2, Req, MPI_STATUSES_IGNORE);
    }
  }
  return (MPI_Wtime() - T0) / K;
}

// Times exchanges of BYTES of data as Count elements of Type and prints
// them as NAME.
static void timeExchanges(const char *Name, void *Out, void *In, int Count,
                          MPI_Datatype Type, int Bytes) {
  int K = calls(32.0 * (1 << 20), Bytes, 8, 1000);
  double *T = malloc(Reps * sizeof(double));
  exchanges(Out, In, Count, Type, K, 0); // warm-up
  for (int R = 0; R < Reps; ++R) {
    double Mine = exchanges(Out, In, Count, Type, K, 0), Slowest;
    MPI_Reduce(&Mine, &Slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    T[R] = Slowest * 1e6;
  }
  if (Rank == 0) {
    printf("%s %d %d %d %d %.3f %.3f\n", Name, Bytes, 2, K, Reps,
           median(T, Reps), minimum(T, Reps));
    fflush(stdout);
  }
  free(T);
}

static void exchange(int Bytes) {
  char *Out = buffer(Bytes), *In = buffer(Bytes);
  timeExchanges("exchange", Out, In, Bytes, MPI_BYTE, Bytes);
  free(Out);
  free(In);
}

// The exchange (Ping = 0) or the ping-pong's one-way latency (Ping = 1) of
// BYTES through MPI_ and PMPI_ in turns, in one launch, as measurePair
// does for the collectives: what the layer and its header add to a
// message, free of the mode a launch lands in. Ranks 0 and 1 time; the
// slowest of them counts.
static void pairMessages(int Ping, int Bytes) {
  char *Out = buffer(Bytes), *In = buffer(Bytes);
  int K = Ping ? calls(64.0 * (1 << 20), Bytes, 16, 1000)
               : calls(32.0 * (1 << 20), Bytes, 8, 1000);
  double *T[2] = {malloc(Reps * sizeof(double)), malloc(Reps * sizeof(double))};
  for (int R = -1; R < Reps; ++R) // -1: the warm-up of both
    for (int I = 0; I < 2; ++I) { // alternate which goes first
      int Direct = ((R < 0 ? 0 : R) + I) % 2;
      MPI_Barrier(MPI_COMM_WORLD);
      double Mine = Ping ? roundTrips(Out, In, Bytes, K, Direct) / (2.0 * K)
                         : exchanges(Out, In, Bytes, MPI_BYTE, K, Direct);
      double Slowest;
      MPI_Allreduce(&Mine, &Slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (R >= 0)
        T[Direct][R] = Slowest * 1e6;
    }
  if (Rank == 0) {
    printf("pair %s %d 2 %d %d %.3f %.3f\n", Ping ? "pingpong" : "exchange",
           Bytes, K, Reps, median(T[0], Reps), median(T[1], Reps));
    fflush(stdout);
  }
  free(T[0]);
  free(T[1]);
  free(Out);
  free(In);
}

// A halo column: Rows doubles, one per row of a row-major grid 16 doubles
// wide, as one MPI_Type_vector element (non-contiguous data, as codes
// split by columns send their halos).
static void column(int Rows) {
  enum { Width = 16 };
  size_t Bytes = (size_t)Rows * Width * sizeof(double);
  void *Out = buffer(Bytes), *In = buffer(Bytes);
  MPI_Datatype Column;
  MPI_Type_vector(Rows, 1, Width, MPI_DOUBLE, &Column);
  MPI_Type_commit(&Column);
  timeExchanges("column", Out, In, 1, Column, Rows * (int)sizeof(double));
  MPI_Type_free(&Column);
  free(Out);
  free(In);
}

//===-- Collectives -------------------------------------------------------===//

// The blocking ones, their non-blocking forms completed at once by a wait,
// and the neighbourhood all-to-all on a periodic ring (a 1-D Cartesian
// communicator: two neighbours per rank, the same one twice at 2 ranks).
enum Coll {
  Allreduce,
  Bcast,
  Alltoall,
  Iallreduce,
  Ibcast,
  Ialltoall,
  NeighborAlltoall,
  IneighborAlltoall
};

static const char *collName(enum Coll What) {
  static const char *const Names[] = {
      "allreduce", "bcast",     "alltoall",          "iallreduce",
      "ibcast",    "ialltoall", "neighbor_alltoall", "ineighbor_alltoall"};
  return Names[What];
}

// The ring, made by MPI_Cart_create (in the ccc build: through the layer,
// whose handle only MPI_ calls take) and by PMPI_Cart_create (MPI's own
// handle, for the PMPI_ calls).
static MPI_Comm Ring, RingDirect;

static void makeRings(void) {
  int Dims[1] = {Size}, Periodic[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, Dims, Periodic, 0, &Ring);
  PMPI_Cart_create(MPI_COMM_WORLD, 1, Dims, Periodic, 0, &RingDirect);
}

// How many blocks of the call's size a rank sends (and receives).
static int peers(enum Coll What) {
  if (What == Alltoall || What == Ialltoall)
    return Size;
  return What == NeighborAlltoall || What == IneighborAlltoall ? 2 : 1;
}

// K calls; returns this rank's time per call. Direct: the PMPI_ entry
// points, which in the ccc build go straight to MPI past the layer. Each
// loop is written out so that both builds time only the calls.
static double collective(enum Coll What, void *Send, void *Recv, int Count,
                         int K, int Direct) {
  MPI_Request Q;
  MPI_Barrier(MPI_COMM_WORLD);
  double T0 = MPI_Wtime();
  switch (What * 2 + !!Direct) {
  case Allreduce * 2:
    for (int I = 0; I < K; ++I)
      MPI_Allreduce(Send, Recv, Count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    break;
  case Allreduce * 2 + 1:
    for (int I = 0; I < K; ++I)
      PMPI_Allreduce(Send, Recv, Count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    break;
  case Bcast * 2:
    for (int I = 0; I < K; ++I)
      MPI_Bcast(Send, Count, MPI_BYTE, 0, MPI_COMM_WORLD);
    break;
  case Bcast * 2 + 1:
    for (int I = 0; I < K; ++I)
      PMPI_Bcast(Send, Count, MPI_BYTE, 0, MPI_COMM_WORLD);
    break;
  case Alltoall * 2:
    for (int I = 0; I < K; ++I)
      MPI_Alltoall(Send, Count, MPI_BYTE, Recv, Count, MPI_BYTE,
                   MPI_COMM_WORLD);
    break;
  case Alltoall * 2 + 1:
    for (int I = 0; I < K; ++I)
      PMPI_Alltoall(Send, Count, MPI_BYTE, Recv, Count, MPI_BYTE,
                    MPI_COMM_WORLD);
    break;
  case Iallreduce * 2:
    for (int I = 0; I < K; ++I) {
      MPI_Iallreduce(Send, Recv, Count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                     &Q);
      MPI_Wait(&Q, MPI_STATUS_IGNORE);
    }
    break;
  case Iallreduce * 2 + 1:
    for (int I = 0; I < K; ++I) {
      PMPI_Iallreduce(Send, Recv, Count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                      &Q);
      PMPI_Wait(&Q, MPI_STATUS_IGNORE);
    }
    break;
  case Ibcast * 2:
    for (int I = 0; I < K; ++I) {
      MPI_Ibcast(Send, Count, MPI_BYTE, 0, MPI_COMM_WORLD, &Q);
      MPI_Wait(&Q, MPI_STATUS_IGNORE);
    }
    break;
  case Ibcast * 2 + 1:
    for (int I = 0; I < K; ++I) {
      PMPI_Ibcast(Send, Count, MPI_BYTE, 0, MPI_COMM_WORLD, &Q);
      PMPI_Wait(&Q, MPI_STATUS_IGNORE);
    }
    break;
  case Ialltoall * 2:
    for (int I = 0; I < K; ++I) {
      MPI_Ialltoall(Send, Count, MPI_BYTE, Recv, Count, MPI_BYTE,
                    MPI_COMM_WORLD, &Q);
      MPI_Wait(&Q, MPI_STATUS_IGNORE);
    }
    break;
  case Ialltoall * 2 + 1:
    for (int I = 0; I < K; ++I) {
      PMPI_Ialltoall(Send, Count, MPI_BYTE, Recv, Count, MPI_BYTE,
                     MPI_COMM_WORLD, &Q);
      PMPI_Wait(&Q, MPI_STATUS_IGNORE);
    }
    break;
  case NeighborAlltoall * 2:
    for (int I = 0; I < K; ++I)
      MPI_Neighbor_alltoall(Send, Count, MPI_BYTE, Recv, Count, MPI_BYTE, Ring);
    break;
  case NeighborAlltoall * 2 + 1:
    for (int I = 0; I < K; ++I)
      PMPI_Neighbor_alltoall(Send, Count, MPI_BYTE, Recv, Count, MPI_BYTE,
                             RingDirect);
    break;
  case IneighborAlltoall * 2:
    for (int I = 0; I < K; ++I) {
      MPI_Ineighbor_alltoall(Send, Count, MPI_BYTE, Recv, Count, MPI_BYTE, Ring,
                             &Q);
      MPI_Wait(&Q, MPI_STATUS_IGNORE);
    }
    break;
  case IneighborAlltoall * 2 + 1:
    for (int I = 0; I < K; ++I) {
      PMPI_Ineighbor_alltoall(Send, Count, MPI_BYTE, Recv, Count, MPI_BYTE,
                              RingDirect, &Q);
      PMPI_Wait(&Q, MPI_STATUS_IGNORE);
    }
    break;
  }
  return (MPI_Wtime() - T0) / K;
}

// The slowest rank's time per call (us, at rank 0) of K calls.
static double slowest(enum Coll What, void *Send, void *Recv, int Count, int K,
                      int Direct) {
  double Mine = collective(What, Send, Recv, Count, K, Direct), Slowest;
  MPI_Reduce(&Mine, &Slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return Slowest * 1e6;
}

static void measure(enum Coll What, int Bytes) {
  int Count = What == Allreduce || What == Iallreduce
                  ? Bytes / (int)sizeof(double)
                  : Bytes;
  size_t Total = (size_t)Bytes * peers(What);
  void *Send = buffer(Total), *Recv = buffer(Total);
  // Bytes through each rank per call, roughly.
  int K = calls(32.0 * (1 << 20), (long)Total, 8, 1000);
  double *T = malloc(Reps * sizeof(double));
  collective(What, Send, Recv, Count, K, 0); // warm-up
  for (int R = 0; R < Reps; ++R)
    T[R] = slowest(What, Send, Recv, Count, K, 0);
  if (Rank == 0) {
    printf("%s %d %d %d %d %.3f %.3f\n", collName(What), Bytes, Size, K, Reps,
           median(T, Reps), minimum(T, Reps));
    fflush(stdout);
  }
  free(T);
  free(Send);
  free(Recv);
}

// The same 8-byte collective through MPI_ and PMPI_ in turns, in one
// launch: what the layer adds to the call, free of the fast or slow mode a
// launch lands in on a VM (bench/mpi/run.sh). In the plain build both are
// MPI's own entry points: a control, near 1.
static void measurePair(enum Coll What) {
  int Bytes = 8, Count = What == Allreduce || What == Iallreduce ? 1 : Bytes;
  size_t Total = (size_t)Bytes * peers(What);
  void *Send = buffer(Total), *Recv = buffer(Total);
  int K = calls(32.0 * (1 << 20), (long)Total, 8, 1000);
  double *T[2] = {malloc(Reps * sizeof(double)), malloc(Reps * sizeof(double))};
  collective(What, Send, Recv, Count, K, 0); // warm-up
  collective(What, Send, Recv, Count, K, 1);
  for (int R = 0; R < Reps; ++R)
    for (int I = 0; I < 2; ++I) { // alternate which goes first
      int Direct = (R + I) % 2;
      T[Direct][R] = slowest(What, Send, Recv, Count, K, Direct);
    }
  if (Rank == 0) {
    printf("pair %s %d %d %d %d %.3f %.3f\n", collName(What), Bytes, Size, K,
           Reps, median(T[0], Reps), median(T[1], Reps));
    fflush(stdout);
  }
  free(T[0]);
  free(T[1]);
  free(Send);
  free(Recv);
}

//===-- Sites -------------------------------------------------------------===//

// K iterations of a loop whose body is a site, on every rank, with no
// checkpoint due; returns this rank's time per iteration. The plain build
// has no site: its loop is the baseline. Under the blocking protocol every
// site is collective (an agreement among the ranks), under the
// non-blocking one a site is rank-local.
static double sites(int K) {
  static volatile int Work;
  MPI_Barrier(MPI_COMM_WORLD);
  double T0 = MPI_Wtime();
  for (int I = 0; I < K; ++I) {
    Work = I;
    if (ccc_checkpoint)
      ccc_checkpoint();
  }
  return (MPI_Wtime() - T0) / K;
}

static void site(void) {
  // About 20 ms per repetition (scaled): a collective site can cost
  // milliseconds with more ranks than cores. The ranks agree on K, since
  // under the blocking protocol they must all run the same sites.
  double Mine = sites((int)(1000 * Scale) + 2), Slowest; // also a warm-up
  MPI_Allreduce(&Mine, &Slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double Want = 0.02 * Scale / Slowest;
  int K = Want > 200000 ? 200000 : Want < 2 ? 2 : (int)Want;
  double *T = malloc(Reps * sizeof(double));
  for (int R = 0; R < Reps; ++R) {
    Mine = sites(K);
    MPI_Reduce(&Mine, &Slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    T[R] = Slowest * 1e6;
  }
  if (Rank == 0) {
    printf("site 0 %d %d %d %.4f %.4f\n", Size, K, Reps, median(T, Reps),
           minimum(T, Reps));
    fflush(stdout);
  }
  free(T);
}

int main(int argc, char **argv) {
  int Opt, PingPong = 1, Colls = 1;
  MPI_Init(&argc, &argv);
  if (ccc_checkpoint)
    ccc_checkpoint(); // every rank: a collective site under either protocol
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  while ((Opt = getopt(argc, argv, "r:s:pc")) != -1) {
    switch (Opt) {
    case 'r':
      Reps = atoi(optarg);
      break;
    case 's':
      Scale = atof(optarg);
      break;
    case 'p':
      Colls = 0;
      break;
    case 'c':
      PingPong = 0;
      break;
    default:
      if (Rank == 0)
        fprintf(stderr, "usage: pingpong [-r REPS] [-s SCALE] [-p] [-c]\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (Reps < 1 || Scale <= 0) {
    if (Rank == 0)
      fprintf(stderr, "pingpong: -r must be >= 1 and -s > 0\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (PingPong && Size < 2) {
    if (Rank == 0)
      fprintf(stderr, "pingpong: the ping-pong needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (Rank == 0)
    printf("# np %d reps %d scale %g\n", Size, Reps, Scale);
  if (PingPong) {
    pingpong();
    if (Rank == 0)
      printf("# exchange BYTES 2 K REPS MED_US MIN_US\n");
    exchange(8);
    exchange(64 << 10);
    if (Rank == 0)
      printf("# column BYTES 2 K REPS MED_US MIN_US\n");
    column(8);    // 64 B
    column(64);   // 512 B
    column(480);  // 3840 B
    column(4096); // 32 KiB
    if (Rank == 0)
      printf("# pair exchange|pingpong BYTES 2 K REPS MPI_MED_US "
             "PMPI_MED_US\n");
    pairMessages(0, 8);
    pairMessages(0, 64 << 10);
    pairMessages(1, 1 << 20);
    pairMessages(1, 4 << 20);
  }
  if (Colls) {
    if (Rank == 0)
      printf("# allreduce|bcast|alltoall BYTES NP K REPS MED_US MIN_US\n");
    measure(Allreduce, 8);
    measure(Allreduce, 1 << 20);
    measure(Bcast, 8);
    measure(Bcast, 1 << 20);
    measure(Alltoall, 8);
    measure(Alltoall, 64 << 10);
    measure(Alltoall, (1 << 20) / Size);
    makeRings();
    measure(Iallreduce, 8);
    measure(Iallreduce, 1 << 20);
    measure(Ibcast, 8);
    measure(Ibcast, 1 << 20);
    measure(Ialltoall, 8);
    measure(Ialltoall, (1 << 20) / Size);
    measure(NeighborAlltoall, 8);
    measure(NeighborAlltoall, (1 << 20) / 2);
    measure(IneighborAlltoall, 8);
    measure(IneighborAlltoall, (1 << 20) / 2);
    if (Rank == 0)
      printf("# pair COLLECTIVE 8 NP K REPS MPI_MED_US PMPI_MED_US\n");
    for (int What = Allreduce; What <= IneighborAlltoall; ++What)
      measurePair((enum Coll)What);
    if (Rank == 0)
      printf("# site 0 NP K REPS MED_US MIN_US\n");
    site();
  }
  MPI_Finalize();
  return 0;
}

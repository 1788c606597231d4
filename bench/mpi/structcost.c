// structcost.c - what MPI itself charges for the datatype that joins the
// non-blocking protocol's 8-byte header to a large buffer (issue 20). No
// ccc here: one plain program times, in one launch and in turns, a
// ping-pong of N contiguous bytes and of the same N bytes behind an 8-byte
// header, described as ccc's layer describes them (MPI_Type_create_struct
// of two MPI_BYTE blocks at absolute addresses, sent from MPI_BOTTOM). The
// ratio struct/contiguous per launch is free of the launch modes that
// separate two launches on this VM.
//
// usage: mpirun -np 2 structcost [-r REPS] [-s SCALE] SIZE...
//   -r REPS   repetitions per form and size (default 7; a warm-up first)
//   -s SCALE  round trips per repetition, as a multiple of the default
//             (about 32 MiB moved each way per repetition; default 1)
// Output (rank 0), one line per size:
//   structcost BYTES K REPS CONTIG_MED_US STRUCT_MED_US RATIO_OF_MEDIANS
//   one-way latency (half a round trip averaged over K round trips),
//   median over REPS repetitions of each form.
#include <mpi.h>
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

// One repetition: K round trips of Count elements of T at Buf; one-way us.
static double pingpong(int Rank, void *Buf, int Count, MPI_Datatype T, int K) {
  MPI_Barrier(MPI_COMM_WORLD);
  double T0 = MPI_Wtime();
  for (int I = 0; I < K; ++I) {
    if (Rank == 0) {
      MPI_Send(Buf, Count, T, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(Buf, Count, T, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (Rank == 1) {
      MPI_Recv(Buf, Count, T, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(Buf, Count, T, 0, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - T0) / K / 2 * 1e6;
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
    char *Buf = malloc(Bytes);
    memset(Buf, Rank + 1, Bytes);
    unsigned Header[2] = {1, 2};
    int Lens[2] = {(int)sizeof(Header), (int)Bytes};
    MPI_Aint Addrs[2];
    MPI_Datatype Types[2] = {MPI_BYTE, MPI_BYTE}, Joined;
    MPI_Get_address(Header, &Addrs[0]);
    MPI_Get_address(Buf, &Addrs[1]);
    MPI_Type_create_struct(2, Lens, Addrs, Types, &Joined);
    MPI_Type_commit(&Joined);
    long K = (long)(Scale * (32L << 20) / Bytes);
    K = K < 1 ? 1 : K > 20000 ? 20000 : K;
    double *Contig = malloc(Reps * sizeof(double));
    double *Struct = malloc(Reps * sizeof(double));
    pingpong(Rank, Buf, (int)Bytes, MPI_BYTE, (int)K); // warm-up
    pingpong(Rank, MPI_BOTTOM, 1, Joined, (int)K);
    for (int R = 0; R < Reps; ++R) {
      // In turns, the first form alternating: neither always runs warm.
      if (R % 2) {
        Struct[R] = pingpong(Rank, MPI_BOTTOM, 1, Joined, (int)K);
        Contig[R] = pingpong(Rank, Buf, (int)Bytes, MPI_BYTE, (int)K);
      } else {
        Contig[R] = pingpong(Rank, Buf, (int)Bytes, MPI_BYTE, (int)K);
        Struct[R] = pingpong(Rank, MPI_BOTTOM, 1, Joined, (int)K);
      }
    }
    if (Rank == 0) {
      double C = median(Contig, Reps), S = median(Struct, Reps);
      printf("structcost %ld %ld %d %.2f %.2f %.3f\n", Bytes, K, Reps, C, S,
             S / C);
      fflush(stdout);
    }
    MPI_Type_free(&Joined);
    free(Contig);
    free(Struct);
    free(Buf);
  }
  MPI_Finalize();
  return 0;
}

// codecs.c - how small lossless coding gets a kernel's live bytes
// (bench/size/run.py): the floor under ccc's image sizes that no choice of
// what to save can lower.
//
// usage: codecs LIVE [NEXT]
//   LIVE  the live bytes at the measurement moment (moment.h's live.RANK)
//   NEXT  the same arrays one step later (live.RANK.next)
//
// Transforms LIVE in blocks of 64 KiB (ccc's chunk and shuffle block) for
// each candidate, compresses the whole result as one stream (as ccc
// compresses a section), and prints one JSON object of bytes per
// candidate and the smallest of them. Candidates: zstd at levels 1, 3 and
// 9; byte shuffle of 8-byte words (ccc's CodecZstdShuffle8) before zstd -3;
// byte shuffle of 16-, 32- or 64-byte records (ccc's CodecZstdShuffleRecord
// for arrays of structs; the smallest of the three) before zstd -3;
// the same after replacing each 8-byte word by its XOR with, or its
// difference from, the word before it (a previous-value predictor for
// smooth doubles); differences of 4-byte words (integer indices) before
// zstd -3; per block the best of none, the 8-byte shuffle, differences
// then shuffle, and the records' shuffles, each block measured alone at
// zstd -3 (a bound on ccc's codec 5, which chooses per large array from
// samples), then zstd -3 of the result with a tag byte per block;
// fpzip (a lossless predictive coder for doubles, the whole file
// read as a 1-D double array). With NEXT: the blocks that differ between
// the two (what an incremental image stores), through zstd -3 plain or
// shuffled (the smaller), against their XOR with the old blocks, shuffled,
// through zstd -3 (a delta against the previous version).
#include <fpzip.h>
#include <zstd.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kBlock = 1 << 16 };

static unsigned char *readAll(const char *Path, size_t *Len) {
  FILE *F = fopen(Path, "rb");
  if (!F || fseek(F, 0, SEEK_END) != 0) {
    perror(Path);
    exit(1);
  }
  long N = ftell(F);
  rewind(F);
  unsigned char *B = malloc(N > 0 ? N : 1);
  if (!B || fread(B, 1, N, F) != (size_t)N) {
    perror(Path);
    exit(1);
  }
  fclose(F);
  *Len = N;
  return B;
}

static size_t zstdBytes(const void *P, size_t N, int Level) {
  size_t Cap = ZSTD_compressBound(N);
  void *Out = malloc(Cap);
  if (!Out) {
    perror("codecs");
    exit(1);
  }
  size_t R = ZSTD_compress(Out, Cap, P, N, Level);
  free(Out);
  return ZSTD_isError(R) ? N : R;
}

// Byte K of every R-byte element together (a trailing partial one as is).
static void shuffleBy(const unsigned char *In, unsigned char *Out, size_t N,
                      size_t R) {
  size_t W = N / R;
  for (size_t I = 0; I < W; ++I)
    for (size_t K = 0; K < R; ++K)
      Out[K * W + I] = In[I * R + K];
  memcpy(Out + W * R, In + W * R, N - W * R);
}

static void shuffle8(const unsigned char *In, unsigned char *Out, size_t N) {
  shuffleBy(In, Out, N, 8);
}

static size_t fpzipBytes(const unsigned char *P, size_t N) {
  if (N < 8)
    return N;
  size_t Cap = N + N / 2 + 4096;
  void *Out = malloc(Cap);
  if (!Out) {
    perror("codecs");
    exit(1);
  }
  FPZ *Z = fpzip_write_to_buffer(Out, Cap);
  Z->type = FPZIP_TYPE_DOUBLE;
  Z->prec = 0; // lossless
  Z->nx = (int)(N / 8);
  Z->ny = Z->nz = Z->nf = 1;
  size_t R = fpzip_write_header(Z) ? fpzip_write(Z, P) : 0;
  fpzip_write_close(Z);
  free(Out);
  return R ? R + N % 8 : N;
}

// Out = In with each 8-byte word (Xor: XORed with; else: minus) the word
// before it in its block, then each block shuffled.
static void predict8(const unsigned char *In, unsigned char *Out,
                     unsigned char *Tmp, size_t N, int Xor) {
  for (size_t Off = 0; Off < N; Off += kBlock) {
    size_t L = N - Off < kBlock ? N - Off : kBlock;
    uint64_t Prev = 0, Cur;
    memcpy(Tmp, In + Off, L);
    for (size_t I = 0; I < L / 8; ++I, Prev = Cur) {
      memcpy(&Cur, In + Off + 8 * I, 8);
      uint64_t X = Xor ? Cur ^ Prev : Cur - Prev;
      memcpy(Tmp + 8 * I, &X, 8);
    }
    shuffle8(Tmp, Out + Off, L);
  }
}

enum {
  Zstd1,
  Zstd3,
  Zstd9,
  Shuf,
  Records,
  XorShuf,
  SubShuf,
  Delta4,
  PerBlock,
  Fpzip,
  NCand
};
static const char *const Names[NCand] = {
    "zstd1",         "zstd3",         "zstd9",          "shuffle8_zstd3",
    "records_zstd3", "xor8_shuffle8", "diff8_shuffle8", "diff4_zstd3",
    "per_block",     "fpzip"};

// Per block of P: the transform whose block alone compresses smallest at
// zstd -3, then zstd -3 of all with a tag byte per block. Tmp: kBlock bytes.
static size_t perBlockBytes(const unsigned char *P, size_t N,
                            unsigned char *Tmp) {
  unsigned char *Tagged = malloc(N + N / kBlock + 1), *Cand = malloc(kBlock);
  if (!Tagged || !Cand) {
    perror("codecs");
    exit(1);
  }
  size_t At = 0;
  for (size_t Off = 0; Off < N; Off += kBlock) {
    size_t L = N - Off < kBlock ? N - Off : kBlock, Best = 0, BestZ = 0;
    for (size_t K = 0; K < 6; ++K) {
      static const size_t Record[6] = {0, 8, 8, 16, 32, 64};
      if (K == 2) {
        uint64_t Prev = 0, Cur;
        for (size_t I = 0; I < L / 8; ++I, Prev = Cur) {
          memcpy(&Cur, P + Off + 8 * I, 8);
          uint64_t X = Cur - Prev;
          memcpy(Tmp + 8 * I, &X, 8);
        }
        memcpy(Tmp + L / 8 * 8, P + Off + L / 8 * 8, L % 8);
        shuffle8(Tmp, Cand, L);
      } else if (K) {
        shuffleBy(P + Off, Cand, L, Record[K]);
      } else {
        memcpy(Cand, P + Off, L);
      }
      size_t Z = zstdBytes(Cand, L, 3);
      if (!K || Z < BestZ) {
        Best = K;
        BestZ = Z;
        memcpy(Tagged + At + 1, Cand, L);
      }
    }
    Tagged[At] = (unsigned char)Best;
    At += 1 + L;
  }
  size_t R = zstdBytes(Tagged, At, 3);
  free(Tagged);
  free(Cand);
  return R;
}

static void shuffleBlocks(const unsigned char *In, unsigned char *Out,
                          size_t N) {
  for (size_t Off = 0; Off < N; Off += kBlock)
    shuffle8(In + Off, Out + Off, N - Off < kBlock ? N - Off : kBlock);
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s LIVE [NEXT]\n", argv[0]);
    return 2;
  }
  size_t N, M = 0;
  unsigned char *Live = readAll(argv[1], &N), *Next = NULL;
  if (argc == 3) {
    Next = readAll(argv[2], &M);
    if (M != N) {
      fprintf(stderr, "%s: %zu bytes, %s: %zu\n", argv[1], N, argv[2], M);
      return 1;
    }
  }
  unsigned char *T = malloc(N + 1), *Tmp = malloc(kBlock);
  if (!T || !Tmp) {
    perror("codecs");
    return 1;
  }
  size_t C[NCand];
  C[Zstd1] = zstdBytes(Live, N, 1);
  C[Zstd3] = zstdBytes(Live, N, 3);
  C[Zstd9] = zstdBytes(Live, N, 9);
  shuffleBlocks(Live, T, N);
  C[Shuf] = zstdBytes(T, N, 3);
  C[Records] = N;
  for (size_t R = 16; R <= 64; R *= 2) {
    for (size_t Off = 0; Off < N; Off += kBlock)
      shuffleBy(Live + Off, T + Off, N - Off < kBlock ? N - Off : kBlock, R);
    size_t Z = zstdBytes(T, N, 3);
    C[Records] = Z < C[Records] ? Z : C[Records];
  }
  predict8(Live, T, Tmp, N, 1);
  C[XorShuf] = zstdBytes(T, N, 3);
  predict8(Live, T, Tmp, N, 0);
  C[SubShuf] = zstdBytes(T, N, 3);
  uint32_t P4 = 0, C4;
  memcpy(T, Live, N);
  for (size_t I = 0; I < N / 4; ++I, P4 = C4) {
    memcpy(&C4, Live + 4 * I, 4);
    uint32_t X = C4 - P4;
    memcpy(T + 4 * I, &X, 4);
  }
  C[Delta4] = zstdBytes(T, N, 3);
  C[PerBlock] = perBlockBytes(Live, N, Tmp);
  C[Fpzip] = fpzipBytes(Live, N);
  size_t Best = N;
  for (int K = 0; K < NCand; ++K)
    Best = C[K] < Best ? C[K] : Best;
  // The changed blocks of NEXT, gathered (New) and XORed with LIVE's (Xor).
  size_t Changed = 0, ChangedRaw = 0, ChangedZstd = 0, ChangedXor = 0,
         ChangedPerBlock = 0;
  if (Next) {
    unsigned char *New = malloc(N + 1), *Xor = malloc(N + 1);
    if (!New || !Xor) {
      perror("codecs");
      return 1;
    }
    for (size_t Off = 0; Off < N; Off += kBlock) {
      size_t L = N - Off < kBlock ? N - Off : kBlock;
      if (memcmp(Live + Off, Next + Off, L) == 0)
        continue;
      ++Changed;
      memcpy(New + ChangedRaw, Next + Off, L);
      for (size_t I = 0; I < L; ++I)
        Tmp[I] = Next[Off + I] ^ Live[Off + I];
      shuffle8(Tmp, Xor + ChangedRaw, L);
      ChangedRaw += L;
    }
    size_t Z = zstdBytes(New, ChangedRaw, 3);
    shuffleBlocks(New, T, ChangedRaw);
    size_t Zs = zstdBytes(T, ChangedRaw, 3);
    ChangedZstd = Z < Zs ? Z : Zs;
    ChangedXor = zstdBytes(Xor, ChangedRaw, 3);
    ChangedPerBlock = perBlockBytes(New, ChangedRaw, Tmp);
    free(New);
    free(Xor);
  }
  printf("{\"raw\": %zu", N);
  for (int K = 0; K < NCand; ++K)
    printf(", \"%s\": %zu", Names[K], C[K]);
  printf(", \"best\": %zu", Best);
  if (Next)
    printf(", \"changed_blocks\": %zu, \"changed_raw\": %zu, "
           "\"changed_zstd3\": %zu, \"changed_xor_prev\": %zu, "
           "\"changed_per_block\": %zu",
           Changed, ChangedRaw, ChangedZstd, ChangedXor, ChangedPerBlock);
  printf("}\n");
  return 0;
}

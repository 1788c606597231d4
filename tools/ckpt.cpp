//===- ckpt.cpp - Inspect and verify ccc checkpoint images ----------------===//
//
//   ckpt ls [DIR]        images and commit records in DIR (default ./ccc-ckpt)
//   ckpt info IMAGE      header and sections with raw and stored sizes
//   ckpt verify IMAGE    reads every section and checks every checksum
//   ckpt config          the environment variables ccc reads, with defaults
//
// Exit status: 0 success, 1 an image failed verification, 2 usage error.
//
//===----------------------------------------------------------------------===//
#include "Image.h"
#include "Store.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <string>
#include <sys/stat.h>

using namespace ccc;

static int usage() {
  fprintf(stderr, "usage: ckpt ls [DIR] | ckpt info IMAGE | ckpt verify "
                  "IMAGE | ckpt config\n");
  return 2;
}

static void humanSize(char *Buf, size_t Cap, unsigned long long B) {
  const char *U[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double V = B;
  int I = 0;
  while (V >= 1024 && I < 4) {
    V /= 1024;
    ++I;
  }
  snprintf(Buf, Cap, I ? "%.1f %s" : "%.0f %s", V, U[I]);
}

static int cmdInfo(const char *Path) {
  ImageReader R;
  if (!R.open(Path)) {
    fprintf(stderr, "ccc: %s: %s\n", Path, R.error());
    return 1;
  }
  const ImageHeader &H = R.header();
  char Id[130] = {0};
  for (uint32_t I = 0; I < H.BuildIdLen && I < 64; ++I)
    snprintf(Id + 2 * I, 3, "%02x", H.BuildId[I]);
  time_t T = H.CreatedNs / 1000000000ull;
  char When[64];
  strftime(When, sizeof(When), "%Y-%m-%d %H:%M:%S UTC", gmtime(&T));
  printf("image:      %s\n", Path);
  printf("format:     %u (abi %u)\n", H.FormatVersion, H.AbiVersion);
  printf("program:    %.64s\n", H.ProgramName);
  printf("build id:   %s\n", Id);
  printf("version:    %llu\n", (unsigned long long)H.Version);
  printf("rank:       %u of %u\n", H.Rank, H.NRanks);
  printf("protocol:   %s, epoch %llu\n", H.Protocol ? "mpi" : "serial",
         (unsigned long long)H.Epoch);
  printf("created:    %s\n", When);
  printf("file size:  %llu bytes\n", (unsigned long long)H.FileSize);
  printf("%-8s %-5s %14s %14s %7s  %s\n", "section", "codec", "raw bytes",
         "stored bytes", "ratio", "checksum");
  unsigned long long Raw = 0, Stored = 0;
  for (uint32_t I = 0; I < H.SectionCount; ++I) {
    const SectionEntry &S = H.Sections[I];
    printf("%-8s %-5s %14llu %14llu %7.2f  %016llx\n", sectionName(S.Type),
           S.Codec == CodecZstd ? "zstd" : "raw", (unsigned long long)S.RawSize,
           (unsigned long long)S.StoredSize,
           S.StoredSize ? (double)S.RawSize / S.StoredSize : 0.0,
           (unsigned long long)S.Checksum);
    Raw += S.RawSize;
    Stored += S.StoredSize;
  }
  char A[32], B[32];
  humanSize(A, sizeof(A), Raw);
  humanSize(B, sizeof(B), Stored);
  printf("total    %5s %14llu %14llu %7.2f  (%s -> %s)\n", "", Raw, Stored,
         Stored ? (double)Raw / Stored : 0.0, A, B);
  return 0;
}

static int cmdVerify(const char *Path) {
  ImageReader R;
  if (!R.open(Path) || !R.verifyAll()) {
    fprintf(stderr, "ccc: %s: %s\n", Path, R.error());
    return 1;
  }
  printf("%s: ok (%u sections, all checksums match)\n", Path,
         R.header().SectionCount);
  return 0;
}

static int byName(const struct dirent **A, const struct dirent **B) {
  return strcmp((*A)->d_name, (*B)->d_name);
}

static int cmdLs(const char *Dir) {
  struct dirent **List;
  int N = scandir(Dir, &List, nullptr, byName);
  if (N < 0) {
    fprintf(stderr, "ccc: %s: cannot list: %s\n", Dir, strerror(errno));
    return 2;
  }
  printf("%-40s %-8s %6s %5s %12s\n", "file", "kind", "ver", "rank", "bytes");
  for (int I = 0; I < N; ++I) {
    char Name[256], P[kPathMax];
    uint64_t V;
    uint32_t Rank;
    char Kind;
    const char *F = List[I]->d_name;
    size_t L = strlen(F);
    bool Tmp = L > 4 && !strcmp(F + L - 4, ".tmp");
    snprintf(P, sizeof(P), "%s/%s", Dir, F);
    struct stat St;
    if (stat(P, &St) != 0 || !S_ISREG(St.st_mode)) {
      free(List[I]);
      continue;
    }
    if (parseStoreName(F, Name, sizeof(Name), &V, &Rank, &Kind)) {
      bool Committed = true;
      if (Kind == 'i' || Kind == 'l') {
        char C[kPathMax];
        commitPath(C, Dir, Name, V);
        Committed = stat(C, &St) == 0;
        stat(P, &St);
      }
      printf("%-40s %-8s %6llu %5s %12lld\n", F,
             Kind == 'c'   ? "commit"
             : Kind == 'l' ? (Committed ? "log" : "log*")
                           : (Committed ? "image" : "image*"),
             (unsigned long long)V,
             Kind == 'c' ? "-" : std::to_string(Rank).c_str(),
             (long long)St.st_size);
    } else if (Tmp) {
      printf("%-40s %-8s %6s %5s %12lld\n", F, "partial", "-", "-",
             (long long)St.st_size);
    }
    free(List[I]);
  }
  free(List);
  printf("(image* = not committed: never used for a restart)\n");
  return 0;
}

static int cmdConfig() {
  printf("%-18s %-28s %s\n", "variable", "default", "meaning");
#define CCC_CONFIG(Name, Default, Help)                                        \
  printf("%-18s %-28s %s\n", #Name, Default, Help);
#include "Config.def"
#undef CCC_CONFIG
  return 0;
}

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return usage();
  const char *Cmd = Argv[1];
  if (!strcmp(Cmd, "ls"))
    return Argc <= 3 ? cmdLs(Argc == 3 ? Argv[2] : "./ccc-ckpt") : usage();
  if (!strcmp(Cmd, "info") && Argc == 3)
    return cmdInfo(Argv[2]);
  if (!strcmp(Cmd, "verify") && Argc == 3)
    return cmdVerify(Argv[2]);
  if (!strcmp(Cmd, "config") && Argc == 2)
    return cmdConfig();
  return usage();
}

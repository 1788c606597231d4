//===- Store.cpp - Images and commit records in CCC_DIR -------------------===//
#include "Store.h"
#include "rt/image/Image.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccc {

void imagePath(char *Buf, const char *Dir, const char *Name, uint64_t Version,
               uint32_t Rank) {
  snprintf(Buf, kPathMax, "%s/%s.v%06llu.r%u.ccc", Dir, Name,
           (unsigned long long)Version, Rank);
}

void logPath(char *Buf, const char *Dir, const char *Name, uint64_t Version,
             uint32_t Rank) {
  snprintf(Buf, kPathMax, "%s/%s.v%06llu.r%u.log", Dir, Name,
           (unsigned long long)Version, Rank);
}

void commitPath(char *Buf, const char *Dir, const char *Name,
                uint64_t Version) {
  snprintf(Buf, kPathMax, "%s/%s.v%06llu.commit", Dir, Name,
           (unsigned long long)Version);
}

bool parseStoreName(const char *File, char *Name, size_t NameCap,
                    uint64_t *Version, uint32_t *Rank, char *Kind) {
  // The name may itself contain ".v"; take the last ".v<digits>.".
  const char *V = nullptr;
  for (const char *P = strstr(File, ".v"); P; P = strstr(P + 1, ".v"))
    if (P[2] >= '0' && P[2] <= '9')
      V = P;
  if (!V || (size_t)(V - File) >= NameCap || V == File)
    return false;
  char *End;
  unsigned long long Ver = strtoull(V + 2, &End, 10);
  if (End == V + 2)
    return false;
  memcpy(Name, File, V - File);
  Name[V - File] = 0;
  *Version = Ver;
  *Rank = 0;
  if (!strcmp(End, ".commit")) {
    *Kind = 'c';
    return true;
  }
  if (strncmp(End, ".r", 2) != 0)
    return false;
  char *End2;
  unsigned long R = strtoul(End + 2, &End2, 10);
  if (End2 == End + 2 || (strcmp(End2, ".ccc") && strcmp(End2, ".log")))
    return false;
  *Rank = R;
  *Kind = End2[1] == 'c' ? 'i' : 'l';
  return true;
}

static int descending(const void *A, const void *B) {
  uint64_t X = *static_cast<const uint64_t *>(A);
  uint64_t Y = *static_cast<const uint64_t *>(B);
  return X < Y ? 1 : X > Y ? -1 : 0;
}

// Calls Fn(file, version, kind) for every image ('i') or commit record
// ('c') of NAME in DIR.
template <typename FnT>
static void forEachStoreFile(const char *Dir, const char *Name, FnT Fn) {
  DIR *D = opendir(Dir);
  if (!D)
    return;
  char NameBuf[256];
  while (struct dirent *E = readdir(D)) {
    uint64_t Ver;
    uint32_t Rank;
    char Kind;
    if (parseStoreName(E->d_name, NameBuf, sizeof(NameBuf), &Ver, &Rank,
                       &Kind) &&
        !strcmp(NameBuf, Name))
      Fn(E->d_name, Ver, Kind);
  }
  closedir(D);
}

int listCommitted(const char *Dir, const char *Name, uint64_t *Out, int Max) {
  int N = 0;
  forEachStoreFile(Dir, Name, [&](const char *, uint64_t Ver, char Kind) {
    if (Kind == 'c' && N < Max)
      Out[N++] = Ver;
  });
  qsort(Out, N, sizeof(uint64_t), descending);
  return N;
}

// The text of a commit record (short), or false.
static bool readCommit(const char *Dir, const char *Name, uint64_t Version,
                       char (&Text)[256]) {
  char Path[kPathMax];
  commitPath(Path, Dir, Name, Version);
  int Fd = open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return false;
  ssize_t N = read(Fd, Text, sizeof(Text) - 1);
  close(Fd);
  if (N <= 0)
    return false;
  Text[N] = 0;
  return true;
}

uint32_t commitRanks(const char *Dir, const char *Name, uint64_t Version) {
  char Text[256];
  if (!readCommit(Dir, Name, Version, Text))
    return 0;
  const char Key[] = "\nranks ";
  const char *R = strstr(Text, Key);
  return R ? static_cast<uint32_t>(strtoul(R + sizeof(Key) - 1, nullptr, 10))
           : 0;
}

int commitThread(const char *Dir, const char *Name, uint64_t Version) {
  char Text[256];
  const char Key[] = "\nthread ";
  const char *T =
      readCommit(Dir, Name, Version, Text) ? strstr(Text, Key) : nullptr;
  return T ? atoi(T + sizeof(Key) - 1) : -1;
}

bool commitProtocol(const char *Dir, const char *Name, uint64_t Version,
                    char *Out, size_t Cap) {
  char Text[256];
  const char Key[] = "\nprotocol ";
  const char *P =
      readCommit(Dir, Name, Version, Text) ? strstr(Text, Key) : nullptr;
  if (!P || !Cap)
    return false;
  P += sizeof(Key) - 1;
  size_t N = strcspn(P, "\n");
  N = N < Cap - 1 ? N : Cap - 1;
  memcpy(Out, P, N);
  Out[N] = 0;
  return N > 0;
}

uint64_t highestVersion(const char *Dir, const char *Name, uint32_t Rank,
                        uint64_t *LowestOwn) {
  uint64_t Max = 0, Low = 0;
  DIR *D = opendir(Dir);
  size_t NL = strlen(Name);
  char NameBuf[256];
  while (struct dirent *E = D ? readdir(D) : nullptr) {
    const char *F = E->d_name;
    if (strncmp(F, Name, NL) != 0 || F[NL] != '.' || F[NL + 1] != 'v')
      continue;
    // Any file naming a version counts, temporary ones included.
    char *End;
    unsigned long long V = strtoull(F + NL + 2, &End, 10);
    if (End != F + NL + 2 && *End == '.' && V > Max)
      Max = V;
    uint64_t Ver;
    uint32_t R;
    char Kind;
    if (LowestOwn &&
        parseStoreName(F, NameBuf, sizeof(NameBuf), &Ver, &R, &Kind) &&
        Kind != 'c' && R == Rank && !strcmp(NameBuf, Name) &&
        (!Low || Ver < Low))
      Low = Ver;
  }
  if (D)
    closedir(D);
  if (LowestOwn)
    *LowestOwn = Low;
  return Max;
}

bool syncDirectory(const char *Dir) {
  int Fd = open(Dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (Fd < 0)
    return false;
  bool Ok = fsync(Fd) == 0;
  close(Fd);
  return Ok;
}

bool publish(const char *Tmp, const char *Final, const char *Dir) {
  if (rename(Tmp, Final) != 0)
    return false;
  return syncDirectory(Dir);
}

bool writeCommit(const char *Dir, const char *Name, uint64_t Version,
                 uint32_t NRanks, char *Err, size_t ErrCap,
                 const char *Protocol, int ThreadLevel) {
  char Final[kPathMax], Tmp[kPathMax + 8];
  commitPath(Final, Dir, Name, Version);
  snprintf(Tmp, sizeof(Tmp), "%s.tmp", Final);
  int Fd = open(Tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (Fd < 0) {
    snprintf(Err, ErrCap, "cannot create %s: %s", Tmp, strerror(errno));
    return false;
  }
  char Text[256];
  int N = snprintf(Text, sizeof(Text), "ccc-commit 1\nversion %llu\nranks %u\n",
                   (unsigned long long)Version, NRanks);
  if (Protocol)
    N += snprintf(Text + N, sizeof(Text) - N, "protocol %s\n", Protocol);
  if (ThreadLevel >= 0)
    N += snprintf(Text + N, sizeof(Text) - N, "thread %d\n", ThreadLevel);
  bool Ok = write(Fd, Text, N) == N && fsync(Fd) == 0;
  if (!Ok && errno == 0)
    errno = ENOSPC;
  int SavedErrno = errno;
  Ok = (close(Fd) == 0) && Ok;
  if (Ok && !publish(Tmp, Final, Dir)) {
    SavedErrno = errno;
    Ok = false;
  }
  if (!Ok) {
    snprintf(Err, ErrCap, "cannot write %s: %s", Final, strerror(SavedErrno));
    unlink(Tmp);
  }
  return Ok;
}

void completedPath(char *Buf, const char *Dir, const char *Name) {
  snprintf(Buf, kPathMax, "%s/%s.completed", Dir, Name);
}

bool writeCompleted(const char *Dir, const char *Name, uint64_t Version,
                    uint32_t NRanks) {
  char Final[kPathMax], Tmp[kPathMax + 8];
  completedPath(Final, Dir, Name);
  snprintf(Tmp, sizeof(Tmp), "%s.tmp", Final);
  int Fd = open(Tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0)
    return false;
  char Text[256];
  int N =
      snprintf(Text, sizeof(Text),
               "ccc-completed 1\nversion %llu\nranks %u\ntime %lld\n",
               (unsigned long long)Version, NRanks, (long long)time(nullptr));
  bool Ok = write(Fd, Text, N) == N && fsync(Fd) == 0;
  Ok = close(Fd) == 0 && Ok;
  if (Ok && publish(Tmp, Final, Dir))
    return true;
  unlink(Tmp);
  return false;
}

bool readCompleted(const char *Dir, const char *Name, uint64_t *Version,
                   int64_t *When) {
  char Path[kPathMax];
  completedPath(Path, Dir, Name);
  int Fd = open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return false;
  char Text[256];
  ssize_t N = read(Fd, Text, sizeof(Text) - 1);
  close(Fd);
  if (N <= 0)
    return false;
  Text[N] = 0;
  unsigned long long V;
  long long T;
  const char *VP = strstr(Text, "\nversion "), *TP = strstr(Text, "\ntime ");
  if (strncmp(Text, "ccc-completed 1\n", 16) != 0 || !VP || !TP ||
      sscanf(VP, "\nversion %llu", &V) != 1 ||
      sscanf(TP, "\ntime %lld", &T) != 1)
    return false;
  *Version = V;
  *When = T;
  return true;
}

int64_t commitTime(const char *Dir, const char *Name, uint64_t Version) {
  char Path[kPathMax];
  commitPath(Path, Dir, Name, Version);
  struct stat St;
  return stat(Path, &St) == 0 ? (int64_t)St.st_mtime : -1;
}

uint64_t imageChainBase(const char *Path, uint64_t V, uint64_t IfMissing) {
  int Fd = open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return errno == ENOENT ? IfMissing : 0;
  ImageHeader H;
  bool Ok = pread(Fd, &H, sizeof(H), 0) == (ssize_t)sizeof(H) &&
            !memcmp(H.Magic, kImageMagic, sizeof(H.Magic)) && H.Version == V;
  close(Fd);
  return !Ok ? 0 : H.ChainBase <= V ? H.ChainBase : V;
}

void pruneImages(const char *ImageDir, const char *Name, uint64_t Oldest,
                 uint64_t Tip) {
  // Images of older versions that a kept image refers to stay (each image's
  // header names the oldest it needs). An unreadable header keeps
  // everything: nothing a restart might need is deleted.
  uint64_t OldestImage = Tip && Tip < Oldest ? Tip : Oldest;
  forEachStoreFile(ImageDir, Name,
                   [&](const char *File, uint64_t Ver, char Kind) {
                     if (Kind != 'i' || Ver < Oldest)
                       return;
                     char P[kPathMax];
                     snprintf(P, sizeof(P), "%s/%s", ImageDir, File);
                     uint64_t Base = imageChainBase(P, Ver, 0);
                     if (Base < OldestImage)
                       OldestImage = Base;
                   });
  char P[kPathMax];
  forEachStoreFile(ImageDir, Name, [&](const char *File, uint64_t Ver,
                                       char Kind) {
    if ((Kind == 'i' && Ver < OldestImage) || (Kind == 'l' && Ver < Oldest)) {
      snprintf(P, sizeof(P), "%s/%s", ImageDir, File);
      unlink(P);
    }
  });
}

void pruneVersions(const char *Dir, const char *ImageDir, const char *Name,
                   int Keep) {
  uint64_t Committed[1024];
  int N = listCommitted(Dir, Name, Committed, 1024);
  if (N == 0)
    return;
  char P[kPathMax];
  for (int I = Keep; I < N; ++I) {
    commitPath(P, Dir, Name, Committed[I]);
    unlink(P);
  }
  syncDirectory(Dir);
  pruneImages(ImageDir, Name, Committed[N < Keep ? N - 1 : Keep - 1], 0);
}

void removeStaleTemporaries(const char *Dir, const char *Name, uint32_t Rank) {
  DIR *D = opendir(Dir);
  if (!D)
    return;
  char Suffix[32], P[kPathMax];
  char LogSuffix[32];
  snprintf(Suffix, sizeof(Suffix), ".r%u.ccc.tmp", Rank);
  snprintf(LogSuffix, sizeof(LogSuffix), ".r%u.log.tmp", Rank);
  size_t NL = strlen(Name), SL = strlen(Suffix);
  while (struct dirent *E = readdir(D)) {
    const char *F = E->d_name;
    size_t FL = strlen(F);
    bool Mine =
        !strncmp(F, Name, NL) && F[NL] == '.' && FL > SL &&
        (!strcmp(F + FL - SL, Suffix) || !strcmp(F + FL - SL, LogSuffix) ||
         (Rank == 0 && FL > 11 && !strcmp(F + FL - 11, ".commit.tmp")));
    if (Mine) {
      snprintf(P, sizeof(P), "%s/%s", Dir, F);
      unlink(P);
    }
  }
  closedir(D);
}

bool makeDirectories(const char *Dir) {
  char P[kPathMax];
  snprintf(P, sizeof(P), "%s", Dir);
  for (char *S = P + 1; *S; ++S) {
    if (*S != '/')
      continue;
    *S = 0;
    if (mkdir(P, 0755) != 0 && errno != EEXIST)
      return false;
    *S = '/';
  }
  return mkdir(P, 0755) == 0 || errno == EEXIST;
}
} // namespace ccc

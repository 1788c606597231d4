//===- NodeLocal.cpp - Node-local images with partner copies --------------===//
//
// With CCC_LOCAL_DIR each rank writes its images and message logs to its
// host's own disk, and copies every one to a partner rank on another host
// before it counts as written (SCR's and FTI's "partner" level): a version
// is committed only when every file of it exists on two hosts, so losing
// one host, processes and disk, loses no committed version.
//
// Partners: hosts are numbered in order of their lowest rank; the I-th rank
// of host H sends to the (I mod n)-th rank of host H+1 (mod the number of
// hosts), which holds n ranks. Copies travel over TCP to a receiver thread
// in each rank, not over MPI: the partner is busy in the program (under the
// non-blocking protocol it checkpoints at its own time) and MPI may be
// initialised without thread support. The receiver touches no saved memory
// and allocates nothing, so it can run during a restore.
//
// Restart: every rank lists its host's directory, the lists are gathered,
// and each file a rank needs (its own, on its new host, and those its new
// partner must hold) is sent over MPI from a host that has it. Ranks may
// restart on other hosts than the ones that wrote their images (a lost host
// replaced by a spare).
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

#include "rt/common/Config.h"
#include "rt/common/Log.h"
#include "rt/process/Parallel.h"
#include "rt/store/Store.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccc {
namespace mpi {

bool readAll(int Fd, void *P, size_t N) {
  char *C = static_cast<char *>(P);
  while (N) {
    ssize_t R = read(Fd, C, N);
    if (R < 0 && errno == EINTR)
      continue;
    if (R <= 0)
      return false;
    C += R;
    N -= R;
  }
  return true;
}

bool writeAll(int Fd, const void *P, size_t N) {
  const char *C = static_cast<const char *>(P);
  while (N) {
    ssize_t W = write(Fd, C, N);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      return false;
    C += W;
    N -= W;
  }
  return true;
}

namespace {

constexpr size_t kHostMax = 64;
constexpr uint64_t kCopyMagic = 0x79706f6370636363ULL; // "cccpcopy"
constexpr size_t kBuf = 1 << 20;
constexpr int32_t kSharedHost = -2; // FileEntry::Host of a file in CCC_DIR

struct Peer {
  char Host[kHostMax];
  int Port;
  int HostIndex; // hosts numbered by their lowest rank
};

struct CopyHeader {
  uint64_t Magic;
  uint64_t Size;
  char File[256]; // the file's name in the directory, no path
};

Peer *Peers; // one per rank (libc memory: not saved)
int NHosts;
int NRanks;
int PartnerRank = -1; // -1: no partner (one host)
int ListenFd = -1;
char RecvBuf[kBuf]; // the receiver thread's only buffer
char MainBuf[kBuf]; // the main thread's, for copies and restart transfers

// A file name a copy may carry: one of this program's images or logs.
bool acceptableName(const char *File) {
  char Name[256];
  uint64_t V;
  uint32_t R;
  char Kind;
  return memchr(File, 0, 256) && !strchr(File, '/') &&
         parseStoreName(File, Name, sizeof(Name), &V, &R, &Kind) &&
         Kind != 'c' && !strcmp(Name, storeName());
}

// Receives one file of Size bytes from Fd (a socket, a file or nothing
// else) into Dir/File, durably; the temporary name carries the pid so that
// two receivers on one host never share one.
bool receiveFile(const char *Dir, int Fd, const char *File, uint64_t Size,
                 ssize_t (*Read)(int, void *, size_t, void *), void *Ctx,
                 char *Buf) {
  char Final[kPathMax], Tmp[kPathMax + 32];
  snprintf(Final, sizeof(Final), "%s/%s", Dir, File);
  snprintf(Tmp, sizeof(Tmp), "%s.%d.ptmp", Final, (int)getpid());
  int Out = open(Tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool Ok = Out >= 0;
  while (Size) {
    size_t Want = Size < kBuf ? Size : kBuf;
    ssize_t Got = Read(Fd, Buf, Want, Ctx);
    if (Got <= 0)
      break;
    if (Ok && !writeAll(Out, Buf, Got))
      Ok = false;
    Size -= Got;
  }
  Ok = Ok && Size == 0 && fsync(Out) == 0;
  if (Out >= 0)
    Ok = close(Out) == 0 && Ok;
  Ok = Ok && rename(Tmp, Final) == 0 && syncDirectory(Dir);
  if (!Ok)
    unlink(Tmp);
  return Ok;
}

ssize_t readSocket(int Fd, void *P, size_t N, void *) {
  return readAll(Fd, P, N) ? (ssize_t)N : -1;
}

// Copies Src to Dir/File durably (with the main thread's buffer).
bool copyFile(const char *Src, const char *Dir, const char *File) {
  int In = open(Src, O_RDONLY | O_CLOEXEC);
  struct stat St;
  bool Ok =
      In >= 0 && fstat(In, &St) == 0 &&
      receiveFile(Dir, In, File, St.st_size, readSocket, nullptr, MainBuf);
  int E = errno;
  if (In >= 0)
    close(In);
  errno = E;
  return Ok;
}

// One connection = one file: header, bytes, then a one-byte answer (0 when
// the copy is durable).
void *receiver(void *) {
  for (;;) {
    int C = accept(ListenFd, nullptr, nullptr);
    if (C < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      return nullptr;
    }
    CopyHeader H;
    char Answer = 1;
    if (readAll(C, &H, sizeof(H)) && H.Magic == kCopyMagic &&
        acceptableName(H.File)) {
      if (receiveFile(imageDir(), C, H.File, H.Size, readSocket, nullptr,
                      RecvBuf))
        Answer = 0;
      else
        logMessage("CCC_LOCAL_DIR: cannot store the partner copy %s/%s: %s",
                   imageDir(), H.File, strerror(errno));
    }
    writeAll(C, &Answer, 1);
    close(C);
  }
}

void startReceiver() {
  if (!startHelperThread(receiver))
    fatal("CCC_LOCAL_DIR: cannot start the partner copies' receiver thread");
}

int connectTo(const Peer &P, char *Why, size_t Cap) {
  char Port[16];
  snprintf(Port, sizeof(Port), "%d", P.Port);
  addrinfo Hints = {}, *Res = nullptr;
  Hints.ai_family = AF_UNSPEC;
  Hints.ai_socktype = SOCK_STREAM;
  int E = getaddrinfo(P.Host, Port, &Hints, &Res);
  if (E) {
    snprintf(Why, Cap, "cannot resolve host %s: %s", P.Host, gai_strerror(E));
    return -1;
  }
  int Fd = -1, Err = 0;
  for (addrinfo *A = Res; A && Fd < 0; A = A->ai_next) {
    Fd = socket(A->ai_family, A->ai_socktype | SOCK_CLOEXEC, A->ai_protocol);
    if (Fd < 0)
      continue;
    // A partner that stopped answering must not hold up the job for ever:
    // the checkpoint fails instead (and the previous one stays).
    timeval T = {120, 0};
    setsockopt(Fd, SOL_SOCKET, SO_SNDTIMEO, &T, sizeof(T));
    setsockopt(Fd, SOL_SOCKET, SO_RCVTIMEO, &T, sizeof(T));
    if (connect(Fd, A->ai_addr, A->ai_addrlen) != 0) {
      Err = errno;
      close(Fd);
      Fd = -1;
    }
  }
  freeaddrinfo(Res);
  if (Fd < 0)
    snprintf(Why, Cap, "cannot connect to %s port %d: %s", P.Host, P.Port,
             strerror(Err));
  return Fd;
}

// The I-th rank of host H (in rank order), or -1.
int rankOnHost(int H, int I) {
  for (int R = 0; R < NRanks; ++R)
    if (Peers[R].HostIndex == H && I-- == 0)
      return R;
  return -1;
}

int ranksOnHost(int H) {
  int N = 0;
  for (int R = 0; R < NRanks; ++R)
    N += Peers[R].HostIndex == H;
  return N;
}

int partnerOf(int R) {
  if (NHosts < 2)
    return -1;
  int H = Peers[R].HostIndex, I = 0;
  for (int Q = 0; Q < R; ++Q)
    I += Peers[Q].HostIndex == H;
  int Next = (H + 1) % NHosts;
  return rankOnHost(Next, I % ranksOnHost(Next));
}

} // namespace

// Collective, right after MPI is initialised (first run and restart).
void nodeLocalInit() {
  int Size, Rank;
  PMPI_Comm_size(Private, &Size);
  PMPI_Comm_rank(Private, &Rank);
  ListenFd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int Family = AF_INET6;
  if (ListenFd < 0) {
    ListenFd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    Family = AF_INET;
  }
  if (ListenFd < 0)
    fatal("CCC_LOCAL_DIR: cannot open a socket for partner copies: %s",
          strerror(errno));
  int Zero = 0;
  if (Family == AF_INET6)
    setsockopt(ListenFd, IPPROTO_IPV6, IPV6_V6ONLY, &Zero, sizeof(Zero));
  sockaddr_storage SS;
  socklen_t Len;
  // Port 0: the system's choice; else the first free one of the range.
  int Lo = Cfg.PartnerPortLow, Hi = Cfg.PartnerPortHigh;
  for (int Port = Lo;; ++Port) {
    SS = {};
    if (Family == AF_INET6) {
      auto *A = reinterpret_cast<sockaddr_in6 *>(&SS);
      A->sin6_family = AF_INET6;
      A->sin6_addr = in6addr_any;
      A->sin6_port = htons(Port);
      Len = sizeof(*A);
    } else {
      auto *A = reinterpret_cast<sockaddr_in *>(&SS);
      A->sin_family = AF_INET;
      A->sin_addr.s_addr = htonl(INADDR_ANY);
      A->sin_port = htons(Port);
      Len = sizeof(*A);
    }
    if (bind(ListenFd, reinterpret_cast<sockaddr *>(&SS), Len) == 0)
      break;
    if (errno != EADDRINUSE || Port >= Hi)
      fatal("CCC_LOCAL_DIR: cannot listen for partner copies%s: %s%s",
            Lo ? " on a port of CCC_PARTNER_PORTS" : "", strerror(errno),
            errno == EADDRINUSE ? " (every port of the range is taken: it "
                                  "needs one per rank of this host)"
                                : "");
  }
  if (listen(ListenFd, 64) != 0 ||
      getsockname(ListenFd, reinterpret_cast<sockaddr *>(&SS), &Len) != 0)
    fatal("CCC_LOCAL_DIR: cannot listen for partner copies: %s",
          strerror(errno));
  Peer Me = {};
  gethostname(Me.Host, sizeof(Me.Host) - 1);
  Me.Port = ntohs(Family == AF_INET6
                      ? reinterpret_cast<sockaddr_in6 *>(&SS)->sin6_port
                      : reinterpret_cast<sockaddr_in *>(&SS)->sin_port);
  Peers = static_cast<Peer *>(scratch(Size * sizeof(Peer)));
  PMPI_Allgather(&Me, sizeof(Peer), MPI_BYTE, Peers, sizeof(Peer), MPI_BYTE,
                 Private);
  NHosts = 0;
  for (int R = 0; R < Size; ++R) {
    Peers[R].HostIndex = -1;
    for (int Q = 0; Q < R && Peers[R].HostIndex < 0; ++Q)
      if (!strcmp(Peers[Q].Host, Peers[R].Host))
        Peers[R].HostIndex = Peers[Q].HostIndex;
    if (Peers[R].HostIndex < 0)
      Peers[R].HostIndex = NHosts++;
  }
  NRanks = Size;
  PartnerRank = partnerOf(Rank);
  if (PartnerRank < 0 && Rank == 0)
    logMessage("CCC_LOCAL_DIR=%s: every rank is on host %s, so images have no "
               "copy on another host (the loss of this host's disk loses "
               "them)",
               imageDir(), Me.Host);
  CCC_DEBUG("CCC_LOCAL_DIR: %d hosts; rank %d on %s (port %d) copies to "
            "rank %d",
            NHosts, Rank, Me.Host, Me.Port, PartnerRank);
  startReceiver();
}

// Copies Path (durable in imageDir()) to the partner's host. True when the
// partner answered that its copy is durable, or when there is no partner.
bool partnerCopy(const char *Path, char *Why, size_t Cap) {
  if (!nodeLocalStorage() || PartnerRank < 0)
    return true;
  CopyHeader H = {};
  H.Magic = kCopyMagic;
  const char *Slash = strrchr(Path, '/');
  snprintf(H.File, sizeof(H.File), "%s", Slash ? Slash + 1 : Path);
  int In = open(Path, O_RDONLY | O_CLOEXEC);
  struct stat St;
  if (In < 0 || fstat(In, &St) != 0) {
    snprintf(Why, Cap, "cannot read %s for its partner copy: %s", Path,
             strerror(errno));
    if (In >= 0)
      close(In);
    return false;
  }
  H.Size = St.st_size;
  const Peer &P = Peers[PartnerRank];
  char ConnWhy[512];
  int Fd = connectTo(P, ConnWhy, sizeof(ConnWhy));
  if (Fd < 0) {
    snprintf(Why, Cap, "partner copy of %s to rank %d: %s", Path, PartnerRank,
             ConnWhy);
    close(In);
    return false;
  }
  char *Buf = MainBuf;
  bool Ok = writeAll(Fd, &H, sizeof(H));
  for (uint64_t Left = H.Size; Ok && Left;) {
    ssize_t N = read(In, Buf, Left < kBuf ? Left : kBuf);
    if (N <= 0) {
      Ok = false;
      break;
    }
    Ok = writeAll(Fd, Buf, N);
    Left -= N;
  }
  int E = errno;
  char Answer = 2; // 2: no answer
  if (Ok && !readAll(Fd, &Answer, 1)) {
    E = errno ? errno : ECONNRESET;
    Answer = 2;
  }
  close(Fd);
  close(In);
  if (Ok && Answer == 0)
    return true;
  snprintf(Why, Cap, "partner copy of %s to rank %d on %s failed: %s", Path,
           PartnerRank, P.Host,
           !Ok           ? strerror(E)
           : Answer == 1 ? "the partner could not store it (see its messages)"
                         : "the partner did not answer (stopped or gone?)");
  return false;
}

// CCC_FLUSH_EVERY: a file of a version that is a multiple of it also goes to
// the shared CCC_DIR, with (an image) the older images of its rank that it
// refers to and that are not there yet. Pruning keeps the newest such
// committed version there (Blocking.cpp commitVersion).
bool flushCopy(const char *Path, char *Why, size_t Cap) {
  uint64_t Every = flushEvery();
  const char *File = strrchr(Path, '/');
  File = File ? File + 1 : Path;
  char Name[256];
  uint64_t V;
  uint32_t R;
  char Kind;
  if (!nodeLocalStorage() || !Every || !strcmp(storeDir(), imageDir()) ||
      !parseStoreName(File, Name, sizeof(Name), &V, &R, &Kind) || V % Every)
    return true;
  uint64_t Base = V;
  if (Kind == 'i')
    if (uint64_t B = imageChainBase(Path, V, 0))
      Base = B;
  char Src[kPathMax], Dst[kPathMax];
  struct stat St;
  for (uint64_t B = Base; B <= V; ++B) {
    if (Kind == 'i') {
      imagePath(Src, imageDir(), storeName(), B, R);
      imagePath(Dst, storeDir(), storeName(), B, R);
    } else {
      logPath(Src, imageDir(), storeName(), V, R);
      logPath(Dst, storeDir(), storeName(), V, R);
      B = V;
    }
    // Older images: those of the chain not flushed with an earlier version.
    if (B != V && (stat(Src, &St) != 0 || stat(Dst, &St) == 0))
      continue;
    const char *Slash = strrchr(Dst, '/');
    if (!copyFile(Src, storeDir(), Slash + 1)) {
      snprintf(Why, Cap, "flush of %s to CCC_DIR=%s failed: %s", Src,
               storeDir(), strerror(errno));
      return false;
    }
  }
  return true;
}

//===-- Restart: bring the files to where they are needed -----------------===//
namespace {

struct FileEntry {
  uint64_t Version;
  uint64_t Size;
  uint64_t ChainBase; // an image's oldest version it refers to (imageChainBase)
  uint32_t Rank;
  int32_t Host; // filled in from the lister's host
  char Kind;    // 'i' image, 'l' log
  char Pad[7];
};

// The program's files in Dir (this host's directory, or the shared one), of
// versions up to Newest.
int listFiles(const char *Dir, uint64_t Newest, FileEntry *Out, int Max) {
  DIR *D = opendir(Dir);
  if (!D)
    return 0;
  int N = 0;
  char Name[256], P[kPathMax];
  while (struct dirent *E = readdir(D)) {
    FileEntry F = {};
    if (!parseStoreName(E->d_name, Name, sizeof(Name), &F.Version, &F.Rank,
                        &F.Kind) ||
        F.Kind == 'c' || strcmp(Name, storeName()) || F.Version > Newest)
      continue;
    snprintf(P, sizeof(P), "%s/%s", Dir, E->d_name);
    struct stat St;
    if (stat(P, &St) != 0 || N == Max)
      continue;
    F.Size = St.st_size;
    F.ChainBase = F.Kind == 'i' ? imageChainBase(P, F.Version, 0) : F.Version;
    Out[N++] = F;
  }
  closedir(D);
  return N;
}

struct MpiSource {
  int From;
};

ssize_t readMpi(int, void *P, size_t N, void *Ctx) {
  int From = static_cast<MpiSource *>(Ctx)->From;
  PMPI_Recv(P, (int)N, MPI_BYTE, From, 0, Private, MPI_STATUS_IGNORE);
  return (ssize_t)N;
}

bool sendFileMpi(const char *Path, uint64_t Size, int To) {
  char *Buf = MainBuf;
  int In = open(Path, O_RDONLY | O_CLOEXEC);
  bool Ok = In >= 0;
  for (uint64_t Left = Size; Left;) {
    size_t Want = Left < kBuf ? Left : kBuf;
    if (Ok && !readAll(In, Buf, Want)) {
      Ok = false;
      memset(Buf, 0, Want);
    }
    PMPI_Send(Buf, (int)Want, MPI_BYTE, To, 0, Private);
    Left -= Want;
  }
  if (In >= 0)
    close(In);
  return Ok;
}

} // namespace

void nodeLocalGather(const uint64_t *Versions, int NVersions) {
  int Size, Rank;
  PMPI_Comm_size(Private, &Size);
  PMPI_Comm_rank(Private, &Rank);
  constexpr int kMaxLocal = 4096;
  auto *Mine = static_cast<FileEntry *>(scratch(kMaxLocal * sizeof(FileEntry)));
  uint64_t Newest = NVersions ? Versions[0] : 0;
  int N = listFiles(imageDir(), Newest, Mine, kMaxLocal);
  for (int I = 0; I < N; ++I)
    Mine[I].Host = Peers[Rank].HostIndex;
  // Files flushed to the shared directory (CCC_FLUSH_EVERY), listed once.
  if (Rank == 0 && strcmp(storeDir(), imageDir())) {
    int S = listFiles(storeDir(), Newest, Mine + N, kMaxLocal - N);
    for (int I = N; I < N + S; ++I)
      Mine[I].Host = kSharedHost;
    N += S;
  }
  int *Counts = static_cast<int *>(scratch(Size * sizeof(int)));
  int *Displs = static_cast<int *>(scratch(Size * sizeof(int)));
  int Bytes = N * (int)sizeof(FileEntry);
  PMPI_Allgather(&Bytes, 1, MPI_INT, Counts, 1, MPI_INT, Private);
  int Total = 0;
  for (int R = 0; R < Size; ++R) {
    Displs[R] = Total;
    Total += Counts[R];
  }
  auto *All = static_cast<FileEntry *>(scratch(Total ? Total : 1));
  PMPI_Allgatherv(Mine, Bytes, MPI_BYTE, All, Counts, Displs, MPI_BYTE,
                  Private);
  int NAll = Total / (int)sizeof(FileEntry);
  // Said once, plainly: the restart will fall back to an older version, or
  // find none, and the reason is a lost host (and its partner's).
  for (int R = 0; Rank == 0 && NVersions && R < Size; ++R) {
    bool Found = false;
    for (int I = 0; I < NAll && !Found; ++I)
      Found = All[I].Rank == (uint32_t)R && All[I].Kind == 'i' &&
              All[I].Version == Versions[0];
    if (!Found)
      logMessage("CCC_LOCAL_DIR: no host of this job holds rank %d's image of "
                 "checkpoint %llu (lost with the host that wrote it and its "
                 "partner's, or CCC_LOCAL_DIR names another directory than "
                 "in the run that wrote it)",
                 R, (unsigned long long)Versions[0]);
  }
  // Which hosts hold which file; every rank computes the same plan and
  // walks it in the same order (blocking sends cannot deadlock: the first
  // transfer not yet done has both ends at it).
  auto Holds = [&](int Host, const FileEntry &F) {
    for (int I = 0; I < NAll; ++I)
      if (All[I].Host == Host && All[I].Version == F.Version &&
          All[I].Rank == F.Rank && All[I].Kind == F.Kind)
        return true;
    return false;
  };
  // Whether a restart may need F: the log of a committed version it may
  // restart from (Versions), or an image of the incremental chain of such
  // a version's image of F's rank. Files of versions never committed (a
  // flush that failed, a checkpoint cut short by the failure) and images
  // no such chain refers to stay where they are.
  auto Needed = [&](const FileEntry &F) {
    for (int K = 0; K < NVersions; ++K) {
      uint64_t V = Versions[K];
      if (F.Kind == 'l' && F.Version == V)
        return true;
      if (F.Kind == 'l' || F.Version > V)
        continue;
      for (int I = 0; I < NAll; ++I)
        if (All[I].Kind == 'i' && All[I].Rank == F.Rank &&
            All[I].Version == V && All[I].ChainBase <= F.Version)
          return true;
    }
    return false;
  };
  int Moved = 0, FromShared = 0;
  uint64_t MovedBytes = 0;
  char Path[kPathMax];
  for (int I = 0; I < NAll; ++I) {
    const FileEntry &F = All[I];
    // Take each distinct file once: at its first listing.
    bool First = true;
    for (int J = 0; J < I && First; ++J)
      First = !(All[J].Version == F.Version && All[J].Rank == F.Rank &&
                All[J].Kind == F.Kind);
    if (!First || F.Rank >= (uint32_t)Size || !Needed(F))
      continue;
    int Targets[2] = {Peers[F.Rank].HostIndex, -1};
    if (int P = partnerOf((int)F.Rank); P >= 0)
      Targets[1] = Peers[P].HostIndex;
    for (int Target : Targets) {
      if (Target < 0 || Holds(Target, F))
        continue;
      int From = -1;
      for (int R = 0; R < Size && From < 0; ++R)
        if (Holds(Peers[R].HostIndex, F))
          From = R;
      int To = rankOnHost(Target, 0);
      if (To < 0 || (From < 0 && !Holds(kSharedHost, F)))
        continue; // cannot happen: F is listed, Target has ranks
      if (F.Kind == 'i')
        imagePath(Path, imageDir(), storeName(), F.Version, F.Rank);
      else
        logPath(Path, imageDir(), storeName(), F.Version, F.Rank);
      const char *Slash = strrchr(Path, '/');
      if (From < 0) { // on no host any more: from the shared directory
        char Shared[kPathMax];
        snprintf(Shared, sizeof(Shared), "%s/%s", storeDir(), Slash + 1);
        if (Rank == To && !copyFile(Shared, imageDir(), Slash + 1))
          logMessage("CCC_LOCAL_DIR: cannot copy %s to %s: %s", Shared,
                     imageDir(), strerror(errno));
        ++FromShared;
        continue;
      }
      if (Rank == From)
        sendFileMpi(Path, F.Size, To);
      if (Rank == To) {
        MpiSource S = {From};
        if (!receiveFile(imageDir(), -1, Slash + 1, F.Size, readMpi, &S,
                         MainBuf))
          logMessage("CCC_LOCAL_DIR: cannot store %s received from rank %d",
                     Path, From);
      }
      ++Moved;
      MovedBytes += F.Size;
    }
  }
  // A rank that took no part in the last transfers must not look for its
  // files before another rank of its host has stored them.
  PMPI_Barrier(Private);
  if (Rank == 0 && FromShared)
    CCC_INFO("CCC_LOCAL_DIR: %d file%s taken from CCC_DIR (flushed there; no "
             "host holds %s)",
             FromShared, FromShared == 1 ? "" : "s",
             FromShared == 1 ? "it" : "them");
  if (Rank == 0 && Moved)
    CCC_INFO("CCC_LOCAL_DIR: %d file%s (%llu bytes) brought to the hosts that "
             "need them",
             Moved, Moved == 1 ? "" : "s", (unsigned long long)MovedBytes);
  scratchFree(All);
  scratchFree(Displs);
  scratchFree(Counts);
  scratchFree(Mine);
}

} // namespace mpi
} // namespace ccc

//===- ckpt.cpp - Inspect and verify ccc checkpoint images ----------------===//
//
//   ckpt ls [DIR]        images and commit records in DIR (default ./ccc-ckpt)
//   ckpt info IMAGE      header, sections with raw and stored sizes, and
//                        where the bytes go: globals by name, heap left out
//                        by allocation, stack frames by function
//   ckpt verify IMAGE    reads every section and checks every checksum, and
//                        the chunks it refers to in older images; counts
//                        the blocks of a per-block section per codec
//   ckpt verify LOG      checks a message log (NAME.vSEQ.rRANK.log) as a
//                        restart does, and counts its records by kind
//   ckpt diff A B        which chunks of memory changed between two images
//   ckpt config          the environment variables ccc reads, with defaults
//   ckpt run ... -- CMD  runs CMD, launching it again after failures
//                        (RunCommand.cpp)
//
// Exit status: 0 success, 1 an image failed verification, 2 usage error.
//
//===----------------------------------------------------------------------===//
#include "RunCommand.h"
#include "rt/image/Image.h"
#include "rt/store/Incremental.h"
#include "rt/store/MessageLog.h"
#include "rt/store/Store.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cxxabi.h>
#include <dirent.h>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace ccc;

static int usage() {
  fprintf(stderr,
          "usage: ckpt ls [DIR [--local LOCAL_DIR]] | ckpt info "
          "[--json] IMAGE | ckpt "
          "verify IMAGE|LOG | ckpt diff [--json] A B | ckpt config | ckpt "
          "run [OPTIONS] -- COMMAND...\n");
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

// Which memory the image stores and which it takes from older images.
static void printChain(const ImageHeader &H, const ChunkTable &T) {
  unsigned long long Here = 0, Elsewhere = 0, NHere = 0, NElse = 0;
  for (size_t I = 0; I < T.size(); ++I) {
    if (T[I].Version == H.Version)
      Here += T[I].Len, ++NHere;
    else
      Elsewhere += T[I].Len, ++NElse;
  }
  char A[32], B[32];
  humanSize(A, sizeof(A), Here);
  humanSize(B, sizeof(B), Elsewhere);
  if (H.ChainBase == H.Version)
    printf("image kind: full (chunks of %u bytes: %llu stored, %s)\n",
           H.ChunkSize, NHere, A);
  else
    printf("image kind: incremental, %u since the last full image; chunks "
           "of %u bytes: %llu stored here (%s), %llu unchanged (%s) taken "
           "from versions %llu..%llu\n",
           H.ChainLength, H.ChunkSize, NHere, A, NElse, B,
           (unsigned long long)H.ChainBase, (unsigned long long)H.Version - 1);
}

// Not a MapKind: the heap blocks in use, which SecMap does not list.
constexpr uint32_t kHeapInUse = 100;

// One named piece of memory (SecMap) with the bytes of it this image
// stores, takes from older images of the chain, and leaves out.
struct Piece {
  uint32_t Kind;
  std::string Name;
  uint64_t Addr, Len;
  unsigned long long Here = 0, Older = 0, LeftOut = 0;
  double Stored = 0; // estimated: Here at its section's compression ratio
};

static const char *kindName(uint32_t K) {
  switch (K) {
  case MapGlobal:
    return "global";
  case MapGlobalNeverWritten:
    return "global, never written (left out)";
  case MapGlobalDeadAtSites:
    return "global, dead at every site (left out)";
  case MapGlobalOpenMP:
    return "global, OpenMP runtime state (left out)";
  case MapExcluded:
    return "ccc_exclude (left out)";
  case MapHeapDeadAtSite:
    return "heap, dead at this site (left out)";
  case MapStackFrame:
    return "stack frame";
  case MapHeapBlock:
    return "heap block";
  case MapStackDeadAtSite:
    return "stack, dead at this site (left out)";
  case MapLibraryData:
    return "library data";
  }
  return "?";
}

static uint32_t sectionOfKind(uint32_t K) {
  return K == MapStackFrame || K == MapStackDeadAtSite ? SecStack
         : K == MapHeapBlock || K == MapHeapDeadAtSite ? SecHeap
                                                       : SecGlobals;
}

// Pieces whose bytes an image holds (the rest are left out).
static bool savedKind(uint32_t K) {
  return K == MapGlobal || K == MapStackFrame || K == MapHeapBlock ||
         K == MapLibraryData;
}

static std::string demangled(const std::string &N) {
  int St = 0;
  char *D = N.compare(0, 2, "_Z")
                ? nullptr
                : abi::__cxa_demangle(N.c_str(), nullptr, nullptr, &St);
  std::string R = D && St == 0 ? D : N == "__ccc_user_main" ? "main" : N;
  free(D);
  return R;
}

// Reads SecMap and attributes the chunk table's bytes to its pieces; the
// heap blocks in use and the stack not in a named frame are pieces of
// their own. Empty for images without SecMap (written before it existed).
// A damaged map section is reported (Error) and the breakdown left out.
static std::vector<Piece> whereBytesGo(ImageReader &R, const ChunkTable &T,
                                       std::string &Error) {
  std::vector<Piece> Out;
  const ImageHeader &H = R.header();
  const SectionEntry *SM = R.find(SecMap);
  if (!SM)
    return Out;
  // Names are at most 240 bytes; a map of millions of records is damage.
  if (SM->RawSize > (64u << 20)) {
    Error = "map section of implausible size";
    return Out;
  }
  std::string Buf(SM->RawSize, '\0');
  if (!R.readBlob(*SM, Buf.data(), Buf.size())) {
    Error = R.error(); // names the section
    return Out;
  }
  for (size_t Off = 0; Off < Buf.size();) {
    MapRecord M;
    if (Buf.size() - Off < sizeof(M)) {
      Error = "map section: truncated record";
      return {};
    }
    memcpy(&M, Buf.data() + Off, sizeof(M));
    Off += sizeof(M);
    if (M.NameLen > Buf.size() - Off) {
      Error = "map section: a name runs past its end";
      return {};
    }
    Piece P;
    P.Kind = M.Kind, P.Addr = M.Addr, P.Len = M.Len;
    P.Name = demangled(std::string(Buf.data() + Off, M.NameLen));
    size_t U = P.Name.find(" in __ccc_user_main");
    if (U != std::string::npos)
      P.Name.replace(U, 19, " in main");
    if (P.Name.compare(0, 16, "__ccc_user_main+") == 0) // an allocating call
      P.Name.replace(0, 15, "main");
    Off += (M.NameLen + 7) & ~7u;
    Out.push_back(P);
  }
  double Ratio[16] = {};
  for (uint32_t I = 0; I < H.SectionCount; ++I)
    if (H.Sections[I].Type < 16 && H.Sections[I].RawSize)
      Ratio[H.Sections[I].Type] =
          (double)H.Sections[I].StoredSize / H.Sections[I].RawSize;
  // Saved pieces are stored whole in this image but for the chunks it
  // takes from older ones (pieces under 4 KiB are not in the chunk table:
  // always stored). The heap blocks in use are what the heap section holds.
  unsigned long long OlderIn[16] = {}, NamedHere[16] = {}, NamedOlder[16] = {};
  for (size_t I = 0; I < T.size(); ++I) {
    const ChunkEntry &E = T[I];
    if (E.Version == H.Version || E.Section >= 16)
      continue;
    OlderIn[E.Section] += E.Len;
    for (Piece &P : Out) {
      if (!savedKind(P.Kind) || sectionOfKind(P.Kind) != E.Section)
        continue;
      uint64_t Lo = std::max(P.Addr, E.Addr),
               Hi = std::min(P.Addr + P.Len, E.Addr + E.Len);
      if (Lo < Hi)
        P.Older += Hi - Lo;
    }
  }
  const SectionEntry *SH = R.find(SecHeap), *SS = R.find(SecStack);
  // A heap block's ranges left out (dead at the site, ccc_exclude) and a
  // stack frame's dead locals are pieces of their own.
  std::vector<unsigned long long> Inside(Out.size());
  for (size_t I = 0; I < Out.size(); ++I)
    if (Out[I].Kind == MapHeapBlock || Out[I].Kind == MapStackFrame)
      for (const Piece &X : Out) {
        if (Out[I].Kind == MapHeapBlock
                ? X.Kind != MapHeapDeadAtSite && X.Kind != MapExcluded
                : X.Kind != MapStackDeadAtSite)
          continue;
        uint64_t Lo = std::max(Out[I].Addr, X.Addr),
                 Hi = std::min(Out[I].Addr + Out[I].Len, X.Addr + X.Len);
        if (Lo < Hi)
          Inside[I] += Hi - Lo;
      }
  for (size_t I = 0; I < Out.size(); ++I) {
    Piece &P = Out[I];
    uint32_t Sec = sectionOfKind(P.Kind);
    if (savedKind(P.Kind)) {
      uint64_t Saved = P.Len > Inside[I] ? P.Len - Inside[I] : 0;
      P.Here = Saved > P.Older ? Saved - P.Older : 0;
      NamedHere[Sec] += P.Here, NamedOlder[Sec] += P.Older;
    } else {
      P.LeftOut = P.Len;
    }
    P.Stored = P.Here * Ratio[Sec];
  }
  // The heap section less the named blocks: small blocks, allocator state.
  Piece Heap{kHeapInUse,
             NamedHere[SecHeap] + NamedOlder[SecHeap] ? "(other heap in use)"
                                                      : "(heap blocks in use)",
             0, 0};
  // What section Sec holds besides its named pieces.
  auto Rest = [&](Piece &P, const SectionEntry *E, uint32_t Sec) {
    uint64_t Raw = E ? E->RawSize : 0;
    P.Here = Raw > NamedHere[Sec] ? Raw - NamedHere[Sec] : 0;
    P.Older =
        OlderIn[Sec] > NamedOlder[Sec] ? OlderIn[Sec] - NamedOlder[Sec] : 0;
    P.Stored = P.Here * Ratio[Sec];
  };
  Rest(Heap, SH, SecHeap);
  Piece Stack{MapStackFrame, "(rest of the stack)", 0, 0};
  Rest(Stack, SS, SecStack);
  Out.push_back(Heap);
  Out.push_back(Stack);
  std::sort(Out.begin(), Out.end(), [](const Piece &A, const Piece &B) {
    unsigned long long X = A.Here + A.Older + A.LeftOut,
                       Y = B.Here + B.Older + B.LeftOut;
    return X != Y ? X > Y : A.Addr < B.Addr;
  });
  return Out;
}

// A name for a 40-column field: a file (a library's path, "/x/y/libz.so
// (library)") keeps its end, where its name is; anything else its start.
static std::string shortName(const std::string &Name) {
  if (Name.size() <= 40)
    return Name;
  if (Name[0] == '/')
    return "..." + Name.substr(Name.size() - 37);
  return Name.substr(0, 37) + "...";
}

static const char *pieceKind(const Piece &P) {
  return P.Kind == kHeapInUse ? "heap" : kindName(P.Kind);
}

static void printWhere(const std::vector<Piece> &Pieces) {
  if (Pieces.empty())
    return;
  printf("\nwhere the bytes go (raw bytes stored here, taken from older "
         "images, left out; stored~ estimated at the section's ratio):\n");
  printf("%-40s %-38s %12s %10s %12s %12s\n", "name", "kind", "here", "stored~",
         "older", "left out");
  size_t Shown = 0;
  unsigned long long Rest[3] = {};
  size_t NRest = 0;
  for (const Piece &P : Pieces) {
    if (P.Here + P.Older + P.LeftOut == 0)
      continue;
    if (Shown == 20) {
      Rest[0] += P.Here, Rest[1] += P.Older, Rest[2] += P.LeftOut, ++NRest;
      continue;
    }
    ++Shown;
    std::string N = shortName(P.Name);
    printf("%-40s %-38s %12llu %10.0f %12llu %12llu\n", N.c_str(), pieceKind(P),
           P.Here, P.Stored, P.Older, P.LeftOut);
  }
  if (NRest)
    printf("(%zu more) %66s %12llu %10s %12llu %12llu\n", NRest, "", Rest[0],
           "", Rest[1], Rest[2]);
}

static void jsonString(const std::string &S) {
  putchar('"');
  for (char C : S)
    if (C == '"' || C == '\\')
      printf("\\%c", C);
    else if ((unsigned char)C < 0x20)
      printf("\\u%04x", C);
    else
      putchar(C);
  putchar('"');
}

// The same facts as cmdInfo, for scripts.
static void printJson(const char *Path, const ImageHeader &H, const char *Id,
                      const ChunkTable &T, const std::vector<Piece> &Map) {
  unsigned long long Here = 0, Elsewhere = 0;
  for (size_t I = 0; I < T.size(); ++I)
    (T[I].Version == H.Version ? Here : Elsewhere) += T[I].Len;
  printf("{\"image\": \"%s\", \"format\": %u, \"abi\": %u, "
         "\"program\": \"%.64s\", \"build_id\": \"%s\", \"version\": %llu, "
         "\"rank\": %u, \"ranks\": %u, \"protocol\": %u, \"epoch\": %llu, "
         "\"created_ns\": %llu, \"file_size\": %llu, \"chain_base\": %llu, "
         "\"chain_length\": %u, \"chunk_size\": %u, "
         "\"chunk_bytes_stored\": %llu, \"chunk_bytes_referenced\": %llu, "
         "\"sections\": [",
         Path, H.FormatVersion, H.AbiVersion, H.ProgramName, Id,
         (unsigned long long)H.Version, H.Rank, H.NRanks, H.Protocol,
         (unsigned long long)H.Epoch, (unsigned long long)H.CreatedNs,
         (unsigned long long)H.FileSize, (unsigned long long)H.ChainBase,
         H.ChainLength, H.ChunkSize, Here, Elsewhere);
  for (uint32_t I = 0; I < H.SectionCount; ++I) {
    const SectionEntry &S = H.Sections[I];
    printf("%s{\"name\": \"%s\", \"codec\": \"%s\", \"raw\": %llu, "
           "\"stored\": %llu}",
           I ? ", " : "", sectionName(S.Type), codecName(S.Codec),
           (unsigned long long)S.RawSize, (unsigned long long)S.StoredSize);
  }
  printf("], \"where\": [");
  bool First = true;
  for (const Piece &P : Map) {
    printf("%s{\"name\": ", First ? "" : ", ");
    jsonString(P.Name);
    printf(", \"kind\": \"%s\", \"addr\": %llu, \"here\": %llu, "
           "\"stored_estimate\": %.0f, \"older\": %llu, \"left_out\": %llu}",
           pieceKind(P), (unsigned long long)P.Addr, P.Here, P.Stored, P.Older,
           P.LeftOut);
    First = false;
  }
  printf("]}\n");
}

static int cmdInfo(const char *Path, bool Json) {
  ImageReader R;
  if (!R.open(Path)) {
    fprintf(stderr, "ccc: %s: %s\n", Path, R.error());
    return 1;
  }
  const ImageHeader &H = R.header();
  char Id[130] = {0};
  for (uint32_t I = 0; I < H.BuildIdLen && I < 64; ++I)
    snprintf(Id + 2 * I, 3, "%02x", H.BuildId[I]);
  ChunkTable Chunks;
  const SectionEntry *SC = R.find(SecChunks);
  if (!SC || !Chunks.load(R, *SC)) {
    fprintf(stderr, "ccc: %s: %s\n", Path, SC ? R.error() : "no chunk table");
    return 1;
  }
  std::string MapError;
  std::vector<Piece> Map = whereBytesGo(R, Chunks, MapError);
  if (!MapError.empty())
    fprintf(stderr, "ccc: %s: %s (where the bytes go not shown)\n", Path,
            MapError.c_str());
  int Status = MapError.empty() ? 0 : 1;
  if (Json) {
    printJson(Path, H, Id, Chunks, Map);
    return Status;
  }
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
  printChain(H, Chunks);
  printf("%-8s %-13s %14s %14s %7s  %s\n", "section", "codec", "raw bytes",
         "stored bytes", "ratio", "checksum");
  unsigned long long Raw = 0, Stored = 0;
  for (uint32_t I = 0; I < H.SectionCount; ++I) {
    const SectionEntry &S = H.Sections[I];
    printf("%-8s %-13s %14llu %14llu %7.2f  %016llx\n", sectionName(S.Type),
           codecName(S.Codec), (unsigned long long)S.RawSize,
           (unsigned long long)S.StoredSize,
           S.StoredSize ? (double)S.RawSize / S.StoredSize : 0.0,
           (unsigned long long)S.Checksum);
    Raw += S.RawSize;
    Stored += S.StoredSize;
  }
  char A[32], B[32];
  humanSize(A, sizeof(A), Raw);
  humanSize(B, sizeof(B), Stored);
  printf("total    %13s %14llu %14llu %7.2f  (%s -> %s)\n", "", Raw, Stored,
         Stored ? (double)Raw / Stored : 0.0, A, B);
  printWhere(Map);
  return Status;
}

// Referenced chunks are read into scratch memory: only their hashes count.
static void *scratchSink(uint32_t, uint64_t, uint64_t Len, void *Ctx) {
  auto *Buf = static_cast<std::string *>(Ctx);
  if (Buf->size() < Len)
    Buf->resize(Len);
  return Buf->data();
}

// Opens an image and reads its chunk table; reports and returns false if
// it cannot.
static bool openWithChunks(const char *Path, ImageReader &R, ChunkTable &T) {
  const SectionEntry *SC = nullptr;
  if (R.open(Path) && (SC = R.find(SecChunks)) && T.load(R, *SC))
    return true;
  fprintf(stderr, "ccc: %s: %s\n", Path,
          R.error()[0] ? R.error() : "no chunk table");
  return false;
}

// Per memory section: chunks (>= 4 KiB pieces) alike, changed, only in B
// (added) and only in A (removed), matched by section and address.
static int cmdDiff(const char *PathA, const char *PathB, bool Json) {
  ImageReader RA, RB;
  ChunkTable A, B;
  if (!openWithChunks(PathA, RA, A) || !openWithChunks(PathB, RB, B))
    return 1;
  static const uint32_t Secs[] = {SecGlobals, SecHeap, SecStack};
  enum { Same, Changed, Added, Removed, Kinds };
  static const char *KindName[] = {"unchanged", "changed", "added", "removed"};
  unsigned long long N[4][Kinds] = {}, Bytes[4][Kinds] = {};
  auto Count = [&](int S, int K, uint64_t Len) {
    N[S][K]++, Bytes[S][K] += Len, N[3][K]++, Bytes[3][K] += Len;
  };
  std::vector<bool> New(B.size()); // B's chunk changed or added
  for (int S = 0; S < 3; ++S) {
    for (size_t I = 0; I < B.size(); ++I) {
      if (B[I].Section != Secs[S])
        continue;
      const ChunkEntry *X = A.find(Secs[S], B[I].Addr);
      New[I] = !X || X->Len != B[I].Len || X->Hash != B[I].Hash;
      Count(S, !X ? Added : New[I] ? Changed : Same, B[I].Len);
    }
    for (size_t I = 0; I < A.size(); ++I)
      if (A[I].Section == Secs[S] && !B.find(Secs[S], A[I].Addr))
        Count(S, Removed, A[I].Len);
  }
  // The same by named piece of B (its map: globals, large heap blocks,
  // stack frames): the bytes of its changed or added chunks.
  std::string MapError;
  std::vector<Piece> Pieces = whereBytesGo(RB, B, MapError);
  // As ckpt info: a damaged map is named, the rest still shown, exit 1.
  if (!MapError.empty())
    fprintf(stderr, "ccc: %s: %s (changes by piece not shown)\n", PathB,
            MapError.c_str());
  int Status = MapError.empty() ? 0 : 1;
  std::vector<std::pair<unsigned long long, const Piece *>> ByPiece;
  for (const Piece &P : Pieces) {
    if (!savedKind(P.Kind) || !P.Len)
      continue;
    unsigned long long C = 0;
    for (size_t I = 0; I < B.size(); ++I) {
      if (!New[I] || B[I].Section != sectionOfKind(P.Kind))
        continue;
      uint64_t Lo = std::max(P.Addr, B[I].Addr),
               Hi = std::min(P.Addr + P.Len, B[I].Addr + B[I].Len);
      if (Lo < Hi)
        C += Hi - Lo;
    }
    if (C)
      ByPiece.push_back({C, &P});
  }
  std::stable_sort(
      ByPiece.begin(), ByPiece.end(),
      [](const auto &X, const auto &Y) { return X.first > Y.first; });
  const char *Names[] = {"globals", "heap", "stack", "total"};
  if (Json) {
    printf("{\"a\": {\"path\": \"%s\", \"version\": %llu}, \"b\": "
           "{\"path\": \"%s\", \"version\": %llu}",
           PathA, (unsigned long long)RA.header().Version, PathB,
           (unsigned long long)RB.header().Version);
    for (int S = 0; S < 4; ++S) {
      printf(", \"%s\": {", Names[S]);
      for (int K = 0; K < Kinds; ++K)
        printf("%s\"%s\": {\"chunks\": %llu, \"bytes\": %llu}", K ? ", " : "",
               KindName[K], N[S][K], Bytes[S][K]);
      printf("}");
    }
    printf(", \"changed_pieces\": [");
    for (size_t I = 0; I < ByPiece.size(); ++I) {
      printf("%s{\"name\": ", I ? ", " : "");
      jsonString(ByPiece[I].second->Name);
      printf(", \"kind\": \"%s\", \"bytes\": %llu}",
             pieceKind(*ByPiece[I].second), ByPiece[I].first);
    }
    printf("]}\n");
    return Status;
  }
  printf("a: %s (version %llu)\nb: %s (version %llu)\n", PathA,
         (unsigned long long)RA.header().Version, PathB,
         (unsigned long long)RB.header().Version);
  printf("%-8s", "chunks");
  for (int K = 0; K < Kinds; ++K)
    printf(" %22s", KindName[K]);
  printf("\n");
  for (int S = 0; S < 4; ++S) {
    printf("%-8s", Names[S]);
    for (int K = 0; K < Kinds; ++K) {
      char H[32], Cell[64];
      humanSize(H, sizeof(H), Bytes[S][K]);
      snprintf(Cell, sizeof(Cell), "%llu (%s)", N[S][K], H);
      printf(" %22s", Cell);
    }
    printf("\n");
  }
  printf("(chunks of at least 4 KiB, matched by address; smaller pieces are "
         "always stored and not compared)\n");
  if (!ByPiece.empty()) {
    printf("\nchanged or added, by piece of b (bytes of its changed chunks):"
           "\n%-40s %-20s %12s\n",
           "name", "kind", "bytes");
    for (size_t I = 0; I < ByPiece.size() && I < 20; ++I) {
      const std::string &Nm = ByPiece[I].second->Name;
      std::string Short = shortName(Nm);
      printf("%-40s %-20s %12llu\n", Short.c_str(),
             pieceKind(*ByPiece[I].second), ByPiece[I].first);
    }
    if (ByPiece.size() > 20)
      printf("(%zu more pieces)\n", ByPiece.size() - 20);
  }
  return Status;
}

// A message log is checked by the code a restart reads it with; the
// version and rank its name gives must be the ones inside.
static int verifyLog(const char *Path) {
  const char *Slash = strrchr(Path, '/');
  char Name[256], Kind, Why[kPathMax + 600];
  LogExpect E;
  uint32_t Rank;
  if (parseStoreName(Slash ? Slash + 1 : Path, Name, sizeof(Name), &E.Version,
                     &Rank, &Kind) &&
      Kind == 'l')
    E.Rank = Rank;
  else
    E.Version = kAny;
  LogHeader H;
  size_t Len;
  char *Data =
      readMessageLog(Path, E, &H, &Len, malloc, free, Why, sizeof(Why));
  if (!Data) {
    fprintf(stderr, "ccc: %s\n", Why);
    return 1;
  }
  size_t Count[kRecKinds];
  checkLogRecords(Data, Len, H.NRanks, Count, Why, sizeof(Why));
  free(Data);
  printf("%s: message log of version %llu, rank %u of %u: %zu late "
         "messages, %zu wildcard matches, %zu events, %zu collective "
         "results, %zu bytes\n",
         Path, (unsigned long long)H.Version, H.Rank, H.NRanks,
         Count[(int)RecKind::Late], Count[(int)RecKind::Wild],
         Count[(int)RecKind::Event], Count[(int)RecKind::Coll], Len);
  return 0;
}

static int cmdVerify(const char *Path) {
  size_t PathLen = strlen(Path);
  if (PathLen > 4 && !strcmp(Path + PathLen - 4, ".log"))
    return verifyLog(Path);
  ImageReader R;
  if (!R.open(Path) || !R.verifyAll()) {
    fprintf(stderr, "ccc: %s: %s\n", Path, R.error());
    return 1;
  }
  const ImageHeader &H = R.header();
  // How a per-block section's blocks were coded (CodecZstdPerBlock).
  for (uint32_t I = 0; I < H.SectionCount; ++I)
    if (H.Sections[I].Codec == CodecZstdPerBlock) {
      printf("%s: blocks of %llu bytes coded", sectionName(H.Sections[I].Type),
             (unsigned long long)kShuffleBlock);
      for (unsigned Tag = 0; Tag < 256; ++Tag)
        if (uint64_t N = R.blocksTagged(uint8_t(Tag)))
          printf(" %llu %s", (unsigned long long)N,
                 codecName(tagCodec(uint8_t(Tag))));
      printf("\n");
    }
  ChunkTable T;
  const SectionEntry *SC = R.find(SecChunks);
  if (!SC || !T.load(R, *SC)) {
    fprintf(stderr, "ccc: %s: %s\n", Path, SC ? R.error() : "no chunk table");
    return 1;
  }
  if (H.ChainBase != H.Version) {
    // The older images are found by name next to this one.
    std::string P(Path), Dir = ".", File = P;
    size_t Slash = P.rfind('/');
    if (Slash != std::string::npos)
      Dir = P.substr(0, Slash ? Slash : 1), File = P.substr(Slash + 1);
    char Name[256], Kind, Why[1024];
    uint64_t V;
    uint32_t Rank;
    if (!parseStoreName(File.c_str(), Name, sizeof(Name), &V, &Rank, &Kind) ||
        Kind != 'i') {
      fprintf(stderr,
              "ccc: %s: an incremental image must keep its name "
              "(NAME.vSEQ.rRANK.ccc) to find the older images it refers to\n",
              Path);
      return 1;
    }
    std::string Scratch;
    if (!readReferencedChunks(Dir.c_str(), Name, H, T, scratchSink, &Scratch,
                              Why, sizeof(Why))) {
      fprintf(stderr, "ccc: %s: %s\n", Path, Why);
      return 1;
    }
    printf("%s: ok (%u sections, all checksums match; the chunks it takes "
           "from versions %llu..%llu match)\n",
           Path, H.SectionCount, (unsigned long long)H.ChainBase,
           (unsigned long long)H.Version - 1);
    return 0;
  }
  printf("%s: ok (%u sections, all checksums match)\n", Path, H.SectionCount);
  return 0;
}

// Whether the image of Version (of Rank) is the base of a committed
// incremental image of the same rank: a kept version's chain reaches back
// to it (the commit record of its own version is gone, pruned).
static bool isChainBase(const char *CommitDir, const char *Dir,
                        const char *Name, uint64_t Version, uint32_t Rank) {
  uint64_t Committed[1024];
  int N = listCommitted(CommitDir, Name, Committed, 1024);
  for (int I = 0; I < N; ++I) {
    if (Committed[I] <= Version)
      continue;
    char P[kPathMax];
    imagePath(P, Dir, Name, Committed[I], Rank);
    ImageReader R;
    if (R.open(P) && R.header().ChainBase <= Version)
      return true;
  }
  return false;
}

static int byName(const struct dirent **A, const struct dirent **B) {
  return strcmp((*A)->d_name, (*B)->d_name);
}

// Lists Dir; whether a version is committed comes from CommitDir (Dir
// itself, or CCC_DIR for a node-local directory).
static int cmdLs(const char *Dir, const char *CommitDir) {
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
    size_t CL = sizeof(".completed") - 1;
    if (L > CL && !strcmp(F + L - CL, ".completed")) {
      std::string Job(F, L - CL);
      uint64_t Done;
      int64_t When;
      if (readCompleted(Dir, Job.c_str(), &Done, &When))
        printf("%-40s %-8s %6llu %5s %12lld\n", F, "done",
               (unsigned long long)Done, "-", (long long)St.st_size);
      free(List[I]);
      continue;
    }
    if (parseStoreName(F, Name, sizeof(Name), &V, &Rank, &Kind)) {
      bool Committed = true, Base = false;
      if (Kind == 'i' || Kind == 'l') {
        char C[kPathMax];
        commitPath(C, CommitDir, Name, V);
        Committed = stat(C, &St) == 0;
        Base = !Committed && Kind == 'i' &&
               isChainBase(CommitDir, Dir, Name, V, Rank);
        stat(P, &St);
      }
      // A commit's rank column: the job's size ("of 2"), which a restart
      // must have.
      uint32_t JobRanks = Kind == 'c' ? commitRanks(Dir, Name, V) : 0;
      std::string RankText = Kind != 'c' ? std::to_string(Rank)
                             : JobRanks  ? "of " + std::to_string(JobRanks)
                                         : "-";
      printf("%-40s %-8s %6llu %5s %12lld\n", F,
             Kind == 'c'   ? "commit"
             : Kind == 'l' ? (Committed ? "log" : "log*")
             : Base        ? "base"
                           : (Committed ? "image" : "image*"),
             (unsigned long long)V, RankText.c_str(), (long long)St.st_size);
    } else if (Tmp) {
      printf("%-40s %-8s %6s %5s %12lld\n", F, "partial", "-", "-",
             (long long)St.st_size);
    }
    free(List[I]);
  }
  free(List);
  printf("(image* = not committed: never used for a restart; base = an "
         "image whose own version was pruned, kept because a committed "
         "incremental image takes chunks from it; done = the job finished "
         "normally after that version: its next run starts afresh; a "
         "commit's rank column: the job's number of ranks, which a restart "
         "must have)\n");
  return 0;
}

static int cmdConfig() {
  printf("%-18s %-28s %s\n", "variable", "default", "meaning");
#define CCC_CONFIG(Name, Default, Help)                                        \
  printf("%-18s %-28s %s\n", #Name, Default, Help);
#include "rt/common/Config.def"
#undef CCC_CONFIG
  return 0;
}

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return usage();
  const char *Cmd = Argv[1];
  if (!strcmp(Cmd, "run"))
    return cmdRun(Argc, Argv);
  if (!strcmp(Cmd, "ls") && Argc <= 3)
    return cmdLs(Argc == 3 ? Argv[2] : "./ccc-ckpt",
                 Argc == 3 ? Argv[2] : "./ccc-ckpt");
  // A node-local directory (CCC_LOCAL_DIR) holds images whose commit
  // records are in CCC_DIR.
  if (!strcmp(Cmd, "ls") && Argc == 5 && !strcmp(Argv[3], "--local")) {
    int R = cmdLs(Argv[2], Argv[2]);
    if (R)
      return R;
    printf("\nnode-local %s:\n", Argv[4]);
    return cmdLs(Argv[4], Argv[2]);
  }
  if (!strcmp(Cmd, "info") && Argc == 3)
    return cmdInfo(Argv[2], false);
  if (!strcmp(Cmd, "info") && Argc == 4 && !strcmp(Argv[2], "--json"))
    return cmdInfo(Argv[3], true);
  if (!strcmp(Cmd, "diff") && Argc == 4)
    return cmdDiff(Argv[2], Argv[3], false);
  if (!strcmp(Cmd, "diff") && Argc == 5 && !strcmp(Argv[2], "--json"))
    return cmdDiff(Argv[3], Argv[4], true);
  if (!strcmp(Cmd, "verify") && Argc == 3)
    return cmdVerify(Argv[2]);
  if (!strcmp(Cmd, "config") && Argc == 2)
    return cmdConfig();
  return usage();
}

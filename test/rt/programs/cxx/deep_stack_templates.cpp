// deep_stack_templates.cpp - proves a checkpoint taken deep in C++ call
// chains resumes correctly: sites at the bottom of (and part way down)
// recursions through function templates of several types, a compile-time
// template recursion, a lambda capturing by reference, a generic recursive
// lambda and a recursive std::function; every frame on the way holds RAII
// objects whose destructors run after the site, a std::vector of its own,
// references to its caller's vector, and iterators (vector, list, map) that
// are dereferenced and advanced after the site.
#include "ccc.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

uint64_t Rng = 0x94d049bb133111ebULL;
uint64_t next() {
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return Rng;
}

constexpr uint64_t Fnv = 1469598103934665603ULL;
uint64_t mix(uint64_t H, uint64_t V) { return (H ^ V) * 1099511628211ULL; }
uint64_t bits(double D) {
  uint64_t B;
  std::memcpy(&B, &D, sizeof B);
  return B;
}
uint64_t bits(uint64_t V) { return V; }
uint64_t bits(const std::string &S) {
  uint64_t H = Fnv;
  for (char C : S)
    H = mix(H, static_cast<unsigned char>(C));
  return H;
}

// What the destructors report; a destructor lost or run twice shows.
struct Trace {
  uint64_t H = Fnv;
  long Live = 0;
  long MaxLive = 0;
  long Sites = 0;
};
Trace Tr;

// An RAII object on every frame: owns heap memory, reports when it dies.
class Scope {
public:
  explicit Scope(uint64_t Tag) : Tag(Tag), Buf(Tag % 5 + 1, Tag * 3) {
    if (++Tr.Live > Tr.MaxLive)
      Tr.MaxLive = Tr.Live;
  }
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;
  ~Scope() {
    for (uint64_t V : Buf)
      Tr.H = mix(Tr.H, V);
    Tr.H = mix(Tr.H, Tag);
    --Tr.Live;
  }
  void touch(uint64_t V) { Buf[V % Buf.size()] += V; }

private:
  uint64_t Tag;
  std::vector<uint64_t> Buf;
};

void site() {
  ++Tr.Sites;
  ccc_checkpoint();
}

template <typename T> T step(const T &V, long I);
template <> double step(const double &V, long I) { return V * 0.999 + I; }
template <> uint64_t step(const uint64_t &V, long I) {
  return V * 6364136223846793005ULL + static_cast<uint64_t>(I);
}
template <> std::string step(const std::string &V, long I) {
  std::string S = V.size() > 40 ? V.substr(20) : V;
  return S + static_cast<char>('a' + I % 26);
}

// Runtime recursion through a function template. Each frame has its own
// vector, a reference to the caller's and an iterator into its own, all
// used after the call that contains the site.
template <typename T>
T descend(int Depth, int SiteEvery, std::vector<T> &Parent, T Carry) {
  Scope Guard(static_cast<uint64_t>(Depth) * 31 + bits(Carry) % 1000);
  std::vector<T> Mine(3 + Depth % 4, Carry);
  Mine[Depth % Mine.size()] = step(Carry, Depth);
  auto It = Mine.begin() + static_cast<long>(Depth % Mine.size());
  T *ParentSlot = &Parent[static_cast<size_t>(Depth) % Parent.size()];
  if (Depth % SiteEvery == 0)
    site(); // part way down
  T Below = Depth > 0 ? descend(Depth - 1, SiteEvery, Mine, step(*It, Depth))
                      : (site(), *It); // at the bottom
  ++It;
  if (It == Mine.end())
    It = Mine.begin();
  *It = step(Below, Depth + 1);
  *ParentSlot = *It;
  Guard.touch(bits(*It));
  return Mine[Depth % Mine.size()];
}

// Compile-time recursion: every level is a different instantiation.
template <int N> struct Level {
  static double run(std::vector<double> &Acc, double X) {
    Scope Guard(static_cast<uint64_t>(N) * 1000 + bits(X) % 997);
    double Local[N + 1];
    for (int I = 0; I <= N; ++I)
      Local[I] = X + I;
    double Y = Level<N - 1>::run(Acc, Local[N] * 0.5);
    Acc[N % Acc.size()] += Y + Local[0];
    return Y + Local[N / 2] * 1e-3;
  }
};
template <> struct Level<0> {
  static double run(std::vector<double> &Acc, double X) {
    // Keep going down at run time from the bottom instantiation.
    std::vector<double> Path(7, X);
    double R =
        descend<double>(200 + static_cast<int>(next() % 800), 17, Path, X);
    Acc[0] += Path[3];
    return R;
  }
};

struct Stats {
  double D = 1.0;
  uint64_t U = 7;
  std::string S = "string-carried-through-recursion";
  uint64_t Lambda = Fnv;
  uint64_t Function = Fnv;
  uint64_t Generic = Fnv;
};

} // namespace

int main(int argc, char **argv) {
  long Steps = argc > 1 ? std::atol(argv[1]) : 20000;
  Stats St;
  std::vector<double> Acc(13, 0.0);  // main's vector
  std::vector<double> Ring(64, 1.0); // iterated across sites
  std::list<std::string> Names;
  std::map<int, uint64_t> Table;
  for (int I = 0; I < 32; ++I) {
    Names.push_back("list-name-that-lives-on-the-heap-" + std::to_string(I));
    Table[I * 3] = static_cast<uint64_t>(I);
  }
  auto RingIt = Ring.begin(); // iterators held across every site
  auto NameIt = Names.begin();
  auto TableIt = Table.begin();

  // A lambda capturing by reference, recursing through itself by a
  // reference to a std::function, with the site deep inside.
  std::function<uint64_t(int, uint64_t)> Rec;
  Rec = [&](int Depth, uint64_t V) -> uint64_t {
    Scope Guard(V % 4096);
    std::vector<uint64_t> Frame(4, V ^ static_cast<uint64_t>(Depth));
    auto It = Frame.end() - 1;
    if (Depth == 0 || Depth % 23 == 0)
      site();
    uint64_t R = Depth > 0 ? Rec(Depth - 1, V * 3 + 1) : V;
    *It += R;
    *RingIt += 1e-3 * static_cast<double>(R % 1000); // captured iterator
    return mix(*It, Frame[0]);
  };

  // A generic lambda recursing through a reference to itself.
  auto Generic = [&](auto &Self, int Depth, double X) -> double {
    Scope Guard(static_cast<uint64_t>(Depth) + 5000);
    std::vector<double> Frame{X, X * 2, X * 3};
    auto It = Frame.begin() + Depth % 3;
    if (Depth == 0 || Depth % 29 == 0)
      site();
    double R = Depth > 0 ? Self(Self, Depth - 1, *It * 0.5 + 1.0) : X;
    Acc[static_cast<size_t>(Depth) % Acc.size()] += *It * 1e-6;
    return R * 0.999 + *It * 1e-3;
  };

  // A lambda capturing everything by reference that hosts a site itself.
  auto Visit = [&](long S) {
    Scope Guard(static_cast<uint64_t>(S));
    site();
    TableIt->second += static_cast<uint64_t>(S);
    St.Lambda = mix(St.Lambda, TableIt->second);
  };

  for (long S = 0; S < Steps; ++S) {
    switch (S % 5) {
    case 0:
      St.D = Level<12>::run(Acc, St.D + static_cast<double>(S));
      break;
    case 1: {
      std::vector<uint64_t> Path(5, St.U);
      St.U = descend<uint64_t>(300 + static_cast<int>(next() % 1500), 11, Path,
                               St.U) ^
             Path[2];
      break;
    }
    case 2: {
      std::vector<std::string> Path(3, St.S);
      St.S = descend<std::string>(100 + static_cast<int>(next() % 400), 7, Path,
                                  St.S);
      if (St.S.size() > 48)
        St.S.erase(0, 16);
      break;
    }
    case 3:
      St.Function = mix(St.Function, Rec(200 + static_cast<int>(next() % 800),
                                         static_cast<uint64_t>(S)));
      break;
    default:
      St.Generic =
          mix(St.Generic, bits(Generic(Generic, 100 + static_cast<int>(S % 400),
                                       static_cast<double>(S))));
      Visit(S);
      break;
    }
    // Advance and use the iterators held across the sites.
    *RingIt += St.D * 1e-9;
    if (++RingIt == Ring.end())
      RingIt = Ring.begin();
    (*NameIt)[static_cast<size_t>(S) % NameIt->size()] =
        static_cast<char>('a' + S % 26);
    if (++NameIt == Names.end())
      NameIt = Names.begin();
    if (++TableIt == Table.end())
      TableIt = Table.begin();
  }

  uint64_t H = Fnv;
  for (double V : Acc)
    H = mix(H, bits(V));
  for (double V : Ring)
    H = mix(H, bits(V));
  for (const auto &N : Names)
    H = mix(H, bits(N));
  for (const auto &[K, V] : Table)
    H = mix(mix(H, static_cast<uint64_t>(K)), V);
  std::printf("sites %ld live %ld max-live %ld trace %016llx\n", Tr.Sites,
              Tr.Live, Tr.MaxLive, static_cast<unsigned long long>(Tr.H));
  std::printf("d %.17g u %016llx s %s\n", St.D,
              static_cast<unsigned long long>(St.U), St.S.c_str());
  std::printf("lambda %016llx function %016llx generic %016llx\n",
              static_cast<unsigned long long>(St.Lambda),
              static_cast<unsigned long long>(St.Function),
              static_cast<unsigned long long>(St.Generic));
  std::printf("containers %016llx rng %016llx\n",
              static_cast<unsigned long long>(H),
              static_cast<unsigned long long>(Rng));
  return 0;
}

// polymorphic_graph_stl.cpp - proves a polymorphic C++ object graph held in
// STL containers survives restart: objects of four classes derived from an
// abstract base (virtual functions, virtual destructor, vtable pointers in
// heap objects) owned by std::vector<std::unique_ptr<Base>> and by a
// composite, a std::shared_ptr tree with parent and cross links kept as
// std::weak_ptr (make_shared and separate control blocks, a custom deleter),
// a std::map<long, std::string> of strings beyond the small-string buffer
// and a std::unordered_map<std::string, std::vector<double>>. Objects are
// created and destroyed every step and called through vtables after restart.
#include "ccc.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

uint64_t Rng = 0x9e3779b97f4a7c15ULL;
uint64_t next() {
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return Rng;
}

uint64_t mix(uint64_t H, uint64_t V) { return (H ^ V) * 1099511628211ULL; }
uint64_t mixD(uint64_t H, double D) {
  uint64_t B;
  std::memcpy(&B, &D, sizeof B);
  return mix(H, B);
}

// Every destructor leaves a trace here: a destructor that ran twice, or one
// that was lost, changes the digest.
uint64_t DtorDigest = 1469598103934665603ULL;
long Live = 0;

class Body {
public:
  explicit Body(uint64_t Id) : Id(Id) { ++Live; }
  virtual ~Body() {
    DtorDigest = mix(DtorDigest, Id);
    --Live;
  }
  virtual void step(double Dt) = 0;
  virtual uint64_t digest(uint64_t H) const = 0;
  virtual int kind() const = 0;
  virtual double energy() const { return 0.0; }
  uint64_t Id;
};

class Particle : public Body {
public:
  Particle(uint64_t Id, double X, double V) : Body(Id), X(X), V(V) {}
  ~Particle() override { DtorDigest = mixD(DtorDigest, X); }
  void step(double Dt) override {
    V -= X * Dt;
    X += V * Dt;
  }
  uint64_t digest(uint64_t H) const override { return mixD(mixD(H, X), V); }
  int kind() const override { return 1; }
  double energy() const override { return 0.5 * (X * X + V * V); }

private:
  double X, V;
};

class Spring : public Body {
public:
  Spring(uint64_t Id, double K) : Body(Id), K(K) {
    for (int I = 0; I < 5; ++I)
      Hist[I] = K * I;
  }
  ~Spring() override { DtorDigest = mixD(DtorDigest, Hist[4]); }
  void step(double Dt) override {
    for (int I = 4; I > 0; --I)
      Hist[I] = Hist[I - 1];
    Hist[0] = Hist[1] * (1.0 - K * Dt) + Dt;
  }
  uint64_t digest(uint64_t H) const override {
    for (double D : Hist)
      H = mixD(H, D);
    return H;
  }
  int kind() const override { return 2; }
  double energy() const override { return K * Hist[0] * Hist[0]; }

private:
  double K;
  double Hist[5];
};

// Owns a long name (heap string) and a vector of samples.
class Sensor : public Body {
public:
  Sensor(uint64_t Id, std::string Name) : Body(Id), Name(std::move(Name)) {}
  ~Sensor() override { DtorDigest = mix(DtorDigest, Samples.size()); }
  void step(double Dt) override {
    Samples.push_back(Dt * static_cast<double>(Samples.size() + Id % 97));
    if (Samples.size() > 40)
      Samples.erase(Samples.begin(), Samples.begin() + 20);
    Name[Samples.size() % Name.size()] = static_cast<char>('a' + Id % 26);
  }
  uint64_t digest(uint64_t H) const override {
    for (char C : Name)
      H = mix(H, static_cast<unsigned char>(C));
    for (double D : Samples)
      H = mixD(H, D);
    return H;
  }
  int kind() const override { return 3; }

private:
  std::string Name;
  std::vector<double> Samples;
};

// A composite: owns other bodies through the base class.
class Cluster : public Body {
public:
  explicit Cluster(uint64_t Id) : Body(Id) {}
  ~Cluster() override { DtorDigest = mix(DtorDigest, Parts.size() + 1000); }
  void add(std::unique_ptr<Body> B) { Parts.push_back(std::move(B)); }
  void step(double Dt) override {
    for (auto &P : Parts)
      P->step(Dt * 0.5);
    if (++Ticks % 16 == 0)
      Parts.push_back(std::make_unique<Particle>(Id * 8 + Ticks, 0.5, Dt));
    if (Parts.size() > 6)
      Parts.erase(Parts.begin() + static_cast<long>(Id % Parts.size()));
  }
  uint64_t digest(uint64_t H) const override {
    H = mix(H, Parts.size());
    for (const auto &P : Parts)
      H = P->digest(mix(H, P->kind()));
    return H;
  }
  int kind() const override { return 4; }
  double energy() const override {
    double E = 0;
    for (const auto &P : Parts)
      E += P->energy();
    return E;
  }

private:
  std::vector<std::unique_ptr<Body>> Parts;
  uint64_t Ticks = 0;
};

std::string longName(const char *Prefix, uint64_t V) {
  // Always beyond the 15 characters std::string keeps inline.
  std::string S = Prefix;
  S += "-object-with-a-long-name-";
  for (int I = 0; I < 8; ++I)
    S += static_cast<char>('A' + (V >> (I * 5)) % 26);
  return S;
}

std::unique_ptr<Body> makeBody(uint64_t Id) {
  switch (next() % 4) {
  case 0:
    return std::make_unique<Particle>(Id, (next() % 1000) * 1e-3, 0.25);
  case 1:
    return std::make_unique<Spring>(Id, 0.01 + (next() % 100) * 1e-4);
  case 2:
    return std::make_unique<Sensor>(Id, longName("sensor", next()));
  default: {
    auto C = std::make_unique<Cluster>(Id);
    for (int I = 0, E = 1 + next() % 4; I < E; ++I)
      C->add(makeBody(Id * 8 + I));
    return C;
  }
  }
}

// A shared_ptr tree: children owned by shared_ptr, the parent and a cross
// link held weakly, so no cycle keeps nodes alive.
struct GNode {
  long Key;
  std::string Label;
  std::vector<std::shared_ptr<GNode>> Kids;
  std::weak_ptr<GNode> Parent;
  std::weak_ptr<GNode> Cross;
  double Val;
};

long GNodesFreed = 0;
struct CountingDelete {
  void operator()(GNode *N) const {
    ++GNodesFreed;
    delete N;
  }
};

std::shared_ptr<GNode> Root;            // global owner of the tree
std::vector<std::weak_ptr<GNode>> Seen; // weak handles, many expire
size_t SeenKept = 0;

std::shared_ptr<GNode> newNode(long Key) {
  std::shared_ptr<GNode> N;
  if (Key % 2)
    N = std::make_shared<GNode>(); // object and control block together
  else
    N = std::shared_ptr<GNode>(new GNode(), CountingDelete());
  N->Key = Key;
  N->Label = longName("gnode", static_cast<uint64_t>(Key));
  N->Val = static_cast<double>(Key % 1000) * 0.125;
  return N;
}

// Walks down to a random node, or returns the last one on the path.
std::shared_ptr<GNode> randomNode() {
  std::shared_ptr<GNode> N = Root;
  while (!N->Kids.empty() && next() % 4 != 0)
    N = N->Kids[next() % N->Kids.size()];
  return N;
}

void growTree(long &NextKey) {
  for (int I = 0; I < 6; ++I) {
    std::shared_ptr<GNode> P = randomNode();
    auto K = newNode(NextKey++);
    K->Parent = P;
    K->Cross = randomNode();
    P->Kids.push_back(K);
    Seen.push_back(K);
  }
  // Cut subtrees: everything below is freed unless held elsewhere.
  for (int I = 0; I < 3; ++I) {
    std::shared_ptr<GNode> P = randomNode();
    if (!P->Kids.empty())
      P->Kids.erase(P->Kids.begin() +
                    static_cast<long>(next() % P->Kids.size()));
  }
  if (Seen.size() > 2 * SeenKept + 1000) {
    std::vector<std::weak_ptr<GNode>> Keep;
    for (auto &W : Seen)
      if (!W.expired())
        Keep.push_back(W);
    Seen.swap(Keep);
    SeenKept = Seen.size();
  }
}

void touchTree() {
  for (int I = 0; I < 30; ++I) {
    std::shared_ptr<GNode> N = randomNode();
    N->Val = N->Val * 0.75 + 1.0;
    if (auto Up = N->Parent.lock())
      Up->Val += N->Val * 1e-3;
    if (auto X = N->Cross.lock())
      X->Val -= 1e-4;
  }
}

uint64_t treeDigest(const GNode &N, uint64_t H, long &Count, long &Depth,
                    long D) {
  ++Count;
  if (D > Depth)
    Depth = D;
  H = mixD(mix(H, static_cast<uint64_t>(N.Key)), N.Val);
  for (char C : N.Label)
    H = mix(H, static_cast<unsigned char>(C));
  auto P = N.Parent.lock();
  H = mix(H, P ? static_cast<uint64_t>(P->Key) : ~0ULL);
  auto X = N.Cross.lock();
  H = mix(H, X ? static_cast<uint64_t>(X->Key) : 7ULL);
  for (const auto &K : N.Kids)
    H = treeDigest(*K, H, Count, Depth, D + 1);
  return H;
}

} // namespace

int main(int argc, char **argv) {
  long Steps = argc > 1 ? std::atol(argv[1]) : 3000;
  std::vector<std::unique_ptr<Body>> Bodies; // on main's stack frame
  std::map<long, std::string> Names;
  std::unordered_map<std::string, std::vector<double>> Series;
  uint64_t NextId = 1;
  long NextKey = 1;
  Root = newNode(0);
  for (int I = 0; I < 200; ++I)
    Bodies.push_back(makeBody(NextId++));

  double Energy = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    // Bodies: create some, destroy some, step all through the vtable.
    for (int K = 0; K < 8; ++K)
      Bodies.push_back(makeBody(NextId++));
    for (int K = 0; K < 9 && Bodies.size() > 400; ++K) {
      size_t I = next() % Bodies.size();
      std::swap(Bodies[I], Bodies.back());
      Bodies.pop_back(); // virtual destructor
    }
    Energy = 0;
    for (auto &B : Bodies) {
      B->step(0.01);
      Energy += B->energy();
    }
    // Map of long strings: insert, rewrite, erase.
    for (int K = 0; K < 5; ++K) {
      long Key = static_cast<long>(next() % 5000);
      Names[Key] = longName("name", next());
    }
    if (!Names.empty()) {
      auto It = Names.lower_bound(static_cast<long>(next() % 5000));
      if (It != Names.end()) {
        It->second += static_cast<char>('a' + S % 26);
        if (It->second.size() > 80)
          Names.erase(It);
      }
    }
    // Unordered map keyed by long strings, vector values.
    for (int K = 0; K < 4; ++K) {
      std::string Key = longName("series", next() % 700);
      auto &V = Series[Key];
      V.push_back(static_cast<double>(S) * 0.5 + K);
      if (V.size() > 30)
        Series.erase(Key);
    }
    growTree(NextKey);
    touchTree();
  }

  uint64_t HB = 1469598103934665603ULL;
  int Kinds[5] = {};
  for (const auto &B : Bodies) {
    ++Kinds[B->kind()];
    HB = B->digest(mix(HB, B->Id));
  }
  uint64_t HM = 1469598103934665603ULL;
  size_t Chars = 0;
  for (const auto &[K, V] : Names) {
    HM = mix(HM, static_cast<uint64_t>(K));
    for (char C : V)
      HM = mix(HM, static_cast<unsigned char>(C));
    Chars += V.size();
  }
  uint64_t HU = 1469598103934665603ULL;
  size_t Vals = 0;
  for (const auto &[K, V] : Series) { // order depends on hashes only
    for (char C : K)
      HU = mix(HU, static_cast<unsigned char>(C));
    for (double D : V)
      HU = mixD(HU, D);
    Vals += V.size();
  }
  long Count = 0, Depth = 0;
  uint64_t HT = treeDigest(*Root, 1469598103934665603ULL, Count, Depth, 0);
  size_t Alive = 0;
  for (const auto &W : Seen)
    Alive += !W.expired();

  std::printf("bodies %zu kinds %d/%d/%d/%d live %ld digest %016llx\n",
              Bodies.size(), Kinds[1], Kinds[2], Kinds[3], Kinds[4], Live,
              static_cast<unsigned long long>(HB));
  std::printf("energy %.17g dtors %016llx\n", Energy,
              static_cast<unsigned long long>(DtorDigest));
  std::printf("names %zu chars %zu digest %016llx\n", Names.size(), Chars,
              static_cast<unsigned long long>(HM));
  std::printf("series %zu values %zu buckets %zu digest %016llx\n",
              Series.size(), Vals, Series.bucket_count(),
              static_cast<unsigned long long>(HU));
  std::printf("tree %ld depth %ld seen %zu alive %zu freed %ld "
              "root-uses %ld digest %016llx rng %016llx\n",
              Count, Depth, Seen.size(), Alive, GNodesFreed, Root.use_count(),
              static_cast<unsigned long long>(HT),
              static_cast<unsigned long long>(Rng));
  return 0;
}

// new_delete_variants.cpp - proves every form of C++ operator new/delete
// allocates in the saved heap and keeps working after restart: plain and
// array new (with array cookies of classes with destructors), sized delete,
// over-aligned types (alignas(64), alignas(4096)) and explicit
// std::align_val_t(256) and (4096) allocations whose alignment still holds
// after restart, nothrow new (plain, array, aligned), placement new of
// polymorphic objects into malloc'd and new[]'d buffers, std::allocator used
// directly and through std::vector, std::deque, std::list and std::set, many
// small allocations and large ones (above 1 MiB) freed and re-made.
#include "ccc.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <list>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

namespace {

uint64_t Rng = 0xd1b54a32d192ed03ULL;
uint64_t next() {
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return Rng;
}

uint64_t mix(uint64_t H, uint64_t V) { return (H ^ V) * 1099511628211ULL; }
constexpr uint64_t Fnv = 1469598103934665603ULL;

long Misaligned = 0; // any object found off its alignment
long Corrupt = 0;    // any object whose contents do not match its seal
void checkAlign(const void *P, size_t A) {
  if (reinterpret_cast<uintptr_t>(P) % A)
    ++Misaligned;
}

// Many small objects.
struct Small {
  uint32_t Id, Val;
};

// A class with a destructor: new[] stores the element count (a cookie)
// before the array, and delete[] reads it back.
long ObjDtors = 0;
struct Obj {
  Obj() : Id(next() % 100000), Sum(Id * 3) {}
  ~Obj() {
    ++ObjDtors;
    if (Sum != Id * 3)
      ++Corrupt;
  }
  uint64_t Id, Sum;
};

struct alignas(64) Cell {
  double V[8];
  uint64_t Seal;
  void seal() { Seal = mix(mix(Fnv, bits(V[0])), bits(V[7])); }
  void check() const {
    checkAlign(this, 64);
    if (Seal != mix(mix(Fnv, bits(V[0])), bits(V[7])))
      ++Corrupt;
  }
  static uint64_t bits(double D) {
    uint64_t B;
    std::memcpy(&B, &D, sizeof B);
    return B;
  }
};

struct alignas(4096) Page {
  unsigned char B[4096];
};

// Polymorphic objects constructed by placement new in raw buffers.
struct Shape {
  virtual ~Shape() = default;
  virtual uint64_t area() const = 0;
  virtual void grow(uint64_t By) = 0;
};
struct Rect : Shape {
  Rect(uint64_t W, uint64_t H) : W(W), H(H) {}
  uint64_t area() const override { return W * H; }
  void grow(uint64_t By) override { W = (W + By) % 1000; }
  uint64_t W, H;
};
struct Tri : Shape {
  explicit Tri(uint64_t B) : B(B) {}
  uint64_t area() const override { return B * B / 2 + 1; }
  void grow(uint64_t By) override { B = (B * 3 + By) % 777; }
  uint64_t B;
};
constexpr size_t SlotSize = 32;
static_assert(sizeof(Rect) <= SlotSize && sizeof(Tri) <= SlotSize, "slots");

struct Arena {
  unsigned char *Buf;
  size_t Slots;
  std::vector<Shape *> Live; // nullptr or an object living in Buf
};

void arenaFill(Arena &A) {
  for (size_t I = 0; I < A.Slots; ++I) {
    void *Slot = A.Buf + I * SlotSize;
    A.Live.push_back(next() % 2 ? static_cast<Shape *>(new (Slot) Rect(I, 3))
                                : new (Slot) Tri(I));
  }
}

void arenaStep(Arena &A) {
  for (int K = 0; K < 8; ++K) {
    size_t I = next() % A.Slots;
    A.Live[I]->~Shape(); // virtual destructor, no deallocation
    void *Slot = A.Buf + I * SlotSize;
    A.Live[I] = next() % 2 ? static_cast<Shape *>(new (Slot) Rect(K, I))
                           : new (Slot) Tri(I + K);
  }
  for (Shape *S : A.Live)
    S->grow(3);
}

uint64_t arenaDigest(const Arena &A, uint64_t H) {
  for (Shape *S : A.Live)
    H = mix(H, S->area());
  return H;
}

void fillBytes(unsigned char *P, size_t N, uint64_t Seed) {
  for (size_t I = 0; I < N; I += 512)
    P[I] = static_cast<unsigned char>(Seed + I / 512);
  P[N - 1] = static_cast<unsigned char>(Seed * 7);
}
uint64_t bytesDigest(const unsigned char *P, size_t N, uint64_t H) {
  for (size_t I = 0; I < N; I += 512)
    H = mix(H, P[I]);
  return mix(H, P[N - 1]);
}

} // namespace

int main(int argc, char **argv) {
  long Steps = argc > 1 ? std::atol(argv[1]) : 4000;

  std::vector<Small *> Smalls;
  std::vector<std::pair<Obj *, size_t>> ObjArrays;
  std::vector<Cell *> Cells;                         // new Cell: aligned new
  std::vector<std::pair<Cell *, size_t>> CellArrays; // new Cell[n]
  std::vector<Page *> Pages;
  std::vector<std::pair<void *, size_t>> Raw256; // align_val_t(256)
  std::vector<long *> NothrowArrays;
  std::vector<Obj *> NothrowObjs;
  std::vector<Cell *> NothrowCells;
  std::allocator<Cell> CellAlloc;
  std::vector<std::pair<Cell *, size_t>> AllocCells; // std::allocator direct
  std::vector<Cell> CellVec;                         // aligned vector storage
  std::deque<uint64_t> Deque;
  std::list<std::string> List;
  std::set<uint64_t> Set;

  Arena MallocArena{
      static_cast<unsigned char *>(std::malloc(300 * SlotSize)), 300, {}};
  Arena NewArena{new unsigned char[200 * SlotSize], 200, {}};
  arenaFill(MallocArena);
  arenaFill(NewArena);

  // Large blocks, above 1 MiB: replaced now and then.
  size_t BigN = 150000;
  std::unique_ptr<double[]> Big(new double[BigN]);
  for (size_t I = 0; I < BigN; ++I)
    Big[I] = I * 0.5;
  size_t HugeN = size_t(2) << 20;
  unsigned char *Huge = new (std::align_val_t(4096)) unsigned char[HugeN];
  fillBytes(Huge, HugeN, 1);
  std::vector<unsigned char> Growing;

  uint64_t Freed = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();

    // Many small objects, plain new and sized delete.
    for (int K = 0; K < 60; ++K)
      Smalls.push_back(
          new Small{static_cast<uint32_t>(S), static_cast<uint32_t>(next())});
    while (Smalls.size() > 6000) {
      size_t I = next() % Smalls.size();
      Freed = mix(Freed, Smalls[I]->Val);
      delete Smalls[I];
      Smalls[I] = Smalls.back();
      Smalls.pop_back();
    }
    for (int K = 0; K < 50; ++K)
      Smalls[next() % Smalls.size()]->Val += 1;

    // Arrays with cookies.
    size_t N = 1 + next() % 40;
    ObjArrays.emplace_back(new Obj[N], N);
    if (ObjArrays.size() > 50) {
      size_t I = next() % ObjArrays.size();
      delete[] ObjArrays[I].first;
      ObjArrays[I] = ObjArrays.back();
      ObjArrays.pop_back();
    }

    // Over-aligned objects and arrays.
    Cell *C = new Cell;
    for (int J = 0; J < 8; ++J)
      C->V[J] = S * 0.25 + J;
    C->seal();
    Cells.push_back(C);
    if (Cells.size() > 300) {
      size_t I = next() % Cells.size();
      delete Cells[I];
      Cells[I] = Cells.back();
      Cells.pop_back();
    }
    if (S % 4 == 0) {
      size_t M = 1 + next() % 9;
      Cell *A = new Cell[M];
      for (size_t J = 0; J < M; ++J) {
        A[J].V[0] = A[J].V[7] = static_cast<double>(J + S);
        A[J].seal();
      }
      CellArrays.emplace_back(A, M);
      if (CellArrays.size() > 40) {
        delete[] CellArrays.front().first;
        CellArrays.erase(CellArrays.begin());
      }
    }
    if (S % 16 == 0) {
      Page *P = new Page;
      std::memset(P->B, static_cast<int>(S % 251), sizeof P->B);
      Pages.push_back(P);
      if (Pages.size() > 24) {
        size_t I = next() % Pages.size();
        delete Pages[I];
        Pages[I] = Pages.back();
        Pages.pop_back();
      }
    }
    {
      size_t Size = 8 + next() % 2000;
      void *P = ::operator new(Size, std::align_val_t(256));
      std::memset(P, static_cast<int>(Size % 256), Size);
      Raw256.emplace_back(P, Size);
      if (Raw256.size() > 64) {
        size_t I = next() % Raw256.size();
        ::operator delete(Raw256[I].first, Raw256[I].second,
                          std::align_val_t(256)); // sized and aligned
        Raw256[I] = Raw256.back();
        Raw256.pop_back();
      }
    }

    // Nothrow forms.
    if (long *L = new (std::nothrow) long[16 + S % 32]) {
      L[0] = S;
      L[15] = S * 2;
      NothrowArrays.push_back(L);
    }
    if (Obj *O = new (std::nothrow) Obj)
      NothrowObjs.push_back(O);
    if (Cell *NC = new (std::nothrow) Cell) {
      NC->V[0] = NC->V[7] = S;
      NC->seal();
      NothrowCells.push_back(NC);
    }
    if (NothrowArrays.size() > 80) {
      delete[] NothrowArrays.front();
      NothrowArrays.erase(NothrowArrays.begin());
      delete NothrowObjs.front();
      NothrowObjs.erase(NothrowObjs.begin());
      delete NothrowCells.front();
      NothrowCells.erase(NothrowCells.begin());
    }

    // Placement new into heap buffers.
    arenaStep(MallocArena);
    arenaStep(NewArena);

    // std::allocator directly (its deallocate is a sized, aligned delete).
    {
      size_t M = 1 + next() % 6;
      Cell *A = CellAlloc.allocate(M);
      for (size_t J = 0; J < M; ++J) {
        new (A + J) Cell(); // placement new into allocate()'s storage
        A[J].V[0] = A[J].V[7] = static_cast<double>(S - J);
        A[J].seal();
      }
      AllocCells.emplace_back(A, M);
      if (AllocCells.size() > 30) {
        auto [P, Q] = AllocCells.front();
        std::destroy_n(P, Q);
        CellAlloc.deallocate(P, Q);
        AllocCells.erase(AllocCells.begin());
      }
    }

    // Containers through std::allocator.
    Cell NewCell{};
    NewCell.V[0] = NewCell.V[7] = static_cast<double>(S) * 1.5;
    NewCell.seal();
    CellVec.push_back(NewCell);
    if (CellVec.size() > 500)
      CellVec.erase(CellVec.begin(), CellVec.begin() + 250);
    Deque.push_back(next());
    Deque.push_front(Deque.back() >> 3);
    if (Deque.size() > 3000) {
      Deque.pop_front();
      Deque.pop_back();
      Deque.pop_back();
    }
    List.push_back("list-entry-with-heap-storage-" + std::to_string(S));
    if (List.size() > 400) {
      auto It = List.begin();
      std::advance(It, next() % List.size());
      List.erase(It);
    }
    Set.insert(next() % 20000);
    if (Set.size() > 1500) {
      auto It = Set.lower_bound(next() % 20000);
      Set.erase(It == Set.end() ? Set.begin() : It);
    }

    // Large allocations.
    Big[S % BigN] += 1.0;
    if (S % 50 == 0) {
      size_t NewN = 140000 + next() % 400000; // 1.1 to 4.3 MiB
      std::unique_ptr<double[]> B(new double[NewN]);
      for (size_t I = 0; I < NewN; ++I)
        B[I] = I < BigN ? Big[I] : I * 0.25;
      Big = std::move(B);
      BigN = NewN;
    }
    if (S % 97 == 0) {
      ::operator delete[](Huge, std::align_val_t(4096));
      HugeN = (size_t(1) << 20) + next() % (size_t(3) << 20);
      Huge = new (std::align_val_t(4096)) unsigned char[HugeN];
      fillBytes(Huge, HugeN, S);
    }
    Huge[next() % HugeN] ^= 1;
    Growing.resize((Growing.size() + 4096) % (size_t(3) << 20),
                   static_cast<unsigned char>(S));

    // Alignment and contents of what survived (after a restart too).
    for (Cell *X : Cells)
      X->check();
    for (auto [A, M] : CellArrays)
      for (size_t J = 0; J < M; ++J)
        A[J].check();
    for (Cell *X : NothrowCells)
      X->check();
    for (auto [A, M] : AllocCells)
      for (size_t J = 0; J < M; ++J)
        A[J].check();
    for (const Cell &X : CellVec)
      X.check();
    for (Page *P : Pages)
      checkAlign(P, 4096);
    for (auto [P, Size] : Raw256)
      checkAlign(P, 256);
    checkAlign(Huge, 4096);
  }

  uint64_t H1 = Fnv;
  for (Small *P : Smalls)
    H1 = mix(mix(H1, P->Id), P->Val);
  uint64_t H2 = Fnv;
  for (auto [A, M] : ObjArrays)
    for (size_t J = 0; J < M; ++J)
      H2 = mix(H2, A[J].Id);
  for (Obj *O : NothrowObjs)
    H2 = mix(H2, O->Sum);
  for (long *L : NothrowArrays)
    H2 = mix(mix(H2, L[0]), L[15]);
  uint64_t H3 = Fnv;
  for (Cell *X : Cells)
    H3 = mix(H3, X->Seal);
  for (auto [A, M] : CellArrays)
    for (size_t J = 0; J < M; ++J)
      H3 = mix(H3, A[J].Seal);
  for (auto [A, M] : AllocCells)
    for (size_t J = 0; J < M; ++J)
      H3 = mix(H3, A[J].Seal);
  for (const Cell &X : CellVec)
    H3 = mix(H3, X.Seal);
  for (Page *P : Pages)
    H3 = mix(mix(H3, P->B[0]), P->B[4095]);
  for (auto [P, Size] : Raw256)
    H3 = mix(H3, static_cast<unsigned char *>(P)[Size - 1]);
  uint64_t H4 = arenaDigest(NewArena, arenaDigest(MallocArena, Fnv));
  uint64_t H5 = Fnv;
  for (uint64_t V : Deque)
    H5 = mix(H5, V);
  for (const std::string &Str : List)
    for (char Ch : Str)
      H5 = mix(H5, static_cast<unsigned char>(Ch));
  for (uint64_t V : Set)
    H5 = mix(H5, V);
  double BigSum = 0;
  for (size_t I = 0; I < BigN; ++I)
    BigSum += Big[I];
  uint64_t H6 = bytesDigest(Huge, HugeN, Fnv);
  for (size_t I = 0; I < Growing.size(); I += 777)
    H6 = mix(H6, Growing[I]);

  std::printf("misaligned %ld corrupt %ld obj-dtors %ld freed %016llx\n",
              Misaligned, Corrupt, ObjDtors,
              static_cast<unsigned long long>(Freed));
  std::printf("small %zu %016llx arrays %zu %016llx\n", Smalls.size(),
              static_cast<unsigned long long>(H1), ObjArrays.size(),
              static_cast<unsigned long long>(H2));
  std::printf("aligned cells %zu/%zu/%zu/%zu pages %zu raw %zu %016llx\n",
              Cells.size(), CellArrays.size(), AllocCells.size(),
              CellVec.size(), Pages.size(), Raw256.size(),
              static_cast<unsigned long long>(H3));
  std::printf("placement %016llx containers %zu/%zu/%zu %016llx\n",
              static_cast<unsigned long long>(H4), Deque.size(), List.size(),
              Set.size(), static_cast<unsigned long long>(H5));
  std::printf("big %zu sum %.17g huge %zu growing %zu %016llx rng %016llx\n",
              BigN, BigSum, HugeN, Growing.size(),
              static_cast<unsigned long long>(H6),
              static_cast<unsigned long long>(Rng));

  for (Shape *Sh : MallocArena.Live)
    Sh->~Shape();
  for (Shape *Sh : NewArena.Live)
    Sh->~Shape();
  std::free(MallocArena.Buf);
  delete[] NewArena.Buf;
  ::operator delete[](Huge, std::align_val_t(4096));
  return 0;
}

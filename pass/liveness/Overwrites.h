//===- Overwrites.h - Where an object is overwritten whole ------*- C++ -*-===//
//
// The flow analysis behind the liveness of globals (GlobalLiveness.cpp) and
// of heap objects (HeapLiveness.cpp): the accesses of an object whose
// address goes nowhere else, and whether every path from a point reaches a
// store of the whole object before any read of it.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_PASS_OVERWRITES_H
#define CCC_PASS_OVERWRITES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class BasicBlock;
class CallBase;
class DataLayout;
class DominatorTree;
class Function;
class ICmpInst;
class Instruction;
class Loop;
class LoopInfo;
class SCEV;
class ScalarEvolution;
class StoreInst;
class Value;
} // namespace llvm

namespace ccc {

// A call of the runtime's slow path: where a checkpoint is taken.
bool isSlowPath(const llvm::Instruction &I);

struct ObjectAccesses {
  llvm::SmallPtrSet<const llvm::Instruction *, 16> Reads;
  llvm::SmallVector<llvm::Instruction *, 16> Writes; // whole or in part
  llvm::SmallVector<llvm::CallBase *, 2> Frees;
  llvm::SetVector<llvm::Function *> Functions;
};

// Follows the address Base through GEPs and casts. False when it reaches
// anything but loads, stores (as the address), memset/memcpy/memmove,
// lifetime markers, compares, calls of FreeName (if given) with Base
// itself, and calls of leaf functions of the module (calling nothing but
// intrinsics and functions that only read memory) that do not capture it
// (counted as reads): then others may read or write the object unseen.
// With Holder, a store of Base itself into Holder (the memory cell that
// keeps the address: a flang descriptor) is not an escape either.
bool collectAccesses(const llvm::Value *Base, ObjectAccesses &A,
                     llvm::StringRef FreeName = {},
                     const llvm::Value *Holder = nullptr);

// The same for objects reached through several pointers, Roots (e.g. two
// allocations and the loop phis that swap them), and the phis joining only
// them: ByRoot[I] gets the accesses whose address derives from Roots[I]
// alone, ByRoot[Roots.size()] those through a phi joining several. False
// if any address goes elsewhere.
bool collectFamilyAccesses(llvm::ArrayRef<const llvm::Value *> Roots,
                           llvm::SmallVectorImpl<ObjectAccesses> &ByRoot,
                           llvm::StringRef FreeName = {});

// A loop guard a proof relied on: the object is dead only when Cond has
// the value Taken at the point the proof started from.
struct GuardAssumption {
  llvm::ICmpInst *Cond;
  bool Taken;
  bool operator==(const GuardAssumption &O) const {
    return Cond == O.Cond && Taken == O.Taken;
  }
};

// Two i64 expressions that a proof needs equal at run time.
using SCEVPair = std::pair<const llvm::SCEV *, const llvm::SCEV *>;

class OverwriteFlow {
public:
  // Base is the object's start (a global or an allocation call), Size its
  // bytes (an i64 expression); or, with Size null (range mode), a pointer
  // into an object of which one loop nest overwrites a range (rangeKill). Calls
  // for which IsSite holds may take a checkpoint; NestMayHoldSites says whether
  // a loop nest that overwrites the object may contain such calls and still
  // count as an overwrite.
  // With RangeFixedInNest, a range need only be fixed while its nest runs
  // (its values may be defined in an outer loop), and more than one stride
  // may be checked at run time: for a caller that recomputes the range at
  // the site and proves its values unchanged up to the nest.
  OverwriteFlow(llvm::Function &F, const llvm::Value &Base,
                const llvm::SCEV *Size, const ObjectAccesses &A,
                llvm::function_ref<bool(const llvm::CallBase &)> IsSite,
                bool NestMayHoldSites, llvm::DominatorTree &DT,
                llvm::LoopInfo &LI, llvm::ScalarEvolution &SE,
                bool RangeFixedInNest = false);

  // Whether every path from From (the first instruction of a block or the
  // one after a call; for a terminator, its successors) reaches a whole
  // overwrite before a read, or leaves the function. With Assume, the
  // guard of an overwriting loop whose condition has the same value at
  // Anchor (its operands are defined once per call of the function, before
  // Anchor) is taken as entering the loop, and the assumption recorded.
  // Stable, if given, also accepts an operand of such a guard (one the
  // caller recomputes at Anchor).
  bool deadFrom(const llvm::Instruction *From,
                const llvm::Instruction *Anchor = nullptr,
                llvm::SmallVectorImpl<GuardAssumption> *Assume = nullptr,
                llvm::function_ref<bool(const llvm::Value *)> Stable = nullptr);

  // Instructions that overwrite the object whole besides those found
  // (e.g. a new allocation for the same pointer).
  void addKill(const llvm::Instruction *I) { KillInsts.insert(I); }

  // Blocks where deadFrom gives up, as at a read: where Base may stop
  // naming the object (a loop header reached again, a loop exit).
  void addBarrier(const llvm::BasicBlock *BB) { Barriers.insert(BB); }

  // Range mode: the range [Base + Off, + Width) every overwriting loop
  // nest writes (both i64, fixed outside the nests; all nests the same
  // range). It holds only if each pair of Checks is equal at run time (a
  // nest whose loops cover the range in another order than they nest, e.g.
  // a transpose, when the pass cannot prove that its strides chain). False
  // when there is no such nest.
  bool rangeKill(const llvm::SCEV *&Off, const llvm::SCEV *&Width,
                 llvm::SmallVectorImpl<SCEVPair> &Checks) const;

private:
  llvm::Function &F;
  const llvm::Value &Base;
  const llvm::SCEV *Size;
  const ObjectAccesses &A;
  llvm::function_ref<bool(const llvm::CallBase &)> IsSite;
  bool NestMayHoldSites;
  bool RangeFixedInNest;
  const llvm::DataLayout &DL;
  llvm::DominatorTree &DT;
  llvm::LoopInfo &LI;
  llvm::ScalarEvolution &SE;
  llvm::SmallPtrSet<const llvm::Instruction *, 4> KillInsts;
  llvm::SmallPtrSet<const llvm::BasicBlock *, 4> Barriers;
  struct KillRange {
    const llvm::SCEV *Off, *Width;
    llvm::SmallVector<SCEVPair, 1> Checks;
  };
  llvm::SmallVector<KillRange, 2> KillRanges;
  // Headers of loop nests that overwrite the object whole, and the
  // conditional branches whose one side alone leads to an overwrite (to the
  // block holding it, or a nest's preheader).
  llvm::SmallPtrSet<const llvm::BasicBlock *, 4> KillHeaders;
  llvm::SmallDenseMap<const llvm::BasicBlock *, const llvm::BasicBlock *, 4>
      GuardedKill;
  // Per nest header: guards inside the nest (an inner loop's `if (n > 0)`)
  // that must hold for the nest to write all it covers.
  llvm::SmallDenseMap<const llvm::BasicBlock *,
                      llvm::SmallVector<GuardAssumption, 2>, 4>
      NestGuards;

  bool isBase(const llvm::SCEV *S) const;
  const llvm::SCEV *toI64(const llvm::SCEV *S) const;
  bool innerBlock(llvm::Loop *L, llvm::ArrayRef<llvm::Instruction *> Writes,
                  const llvm::SCEV *&Start, const llvm::SCEV *&Step,
                  const llvm::SCEV *&Block) const;
  llvm::Loop *nestCovering(llvm::Loop *L,
                           llvm::ArrayRef<llvm::Instruction *> Writes);
  bool nestIsClean(const llvm::Loop *L) const;
  void noteGuards(const llvm::BasicBlock *Into);
  void findKills();
  bool stableAt(const llvm::Value *V, const llvm::Instruction *Anchor) const;
  bool fixedOutsideLoops(const llvm::SCEV *S) const;
  // The same, or with RangeFixedInNest fixed while nest L runs.
  bool fixedFor(const llvm::SCEV *S, const llvm::Loop *L) const;
};

} // namespace ccc
#endif

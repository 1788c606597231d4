//===- GlobalLiveness.cpp - Globals whose value no site needs -------------===//
//
// A global is dead at every checkpoint site when no value it holds while a
// checkpoint is taken is ever read afterwards: images may then leave it out
// (a restart leaves the initial value there, which is overwritten before
// anything reads it). Typical: scratch arrays and temporaries kept in
// globals (C statics, Fortran module and main-program arrays).
//
// Proven, conservatively, when
//  1. the global has local linkage and its address reaches only loads,
//     stores (as the address), memset/memcpy/memmove and GEPs or casts of
//     it, inside functions of this module (nothing else can touch it);
//  2. in every function F that touches it, every path from F's entry, and
//     from every call in F that may reach a site, to a read of the global in
//     F passes first through a full overwrite in F: a store, memset or
//     memcpy covering the whole object, or a loop nest that stores every
//     byte of it (scalar evolution: one store per iteration, unit stride,
//     constant trip counts, nest spanning the object, no read of the global
//     and no site-reaching call inside the nest).
// Why that suffices: checkpoints are taken only inside calls that reach a
// site. A value F reads was written by F after its entry and after the
// last site-reaching call F made, so after any checkpoint of this
// activation; callees touching the global obey (2) themselves, so they never
// read what F or a checkpoint left there. Anything not understood (another
// use of the address, an indirect or unknown external call, a loop whose
// trip count is unknown) makes the global live: correctness first.
//
// Runs with the globals table at OptimizerLast, where loops are in SSA form
// (at -O0 nothing is promoted, scalar evolution sees no induction variable,
// and only straight-line overwrites are found).
//
//===----------------------------------------------------------------------===//
#include "CccPasses.h"

#include "ccc/abi.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace {

bool isSiteName(StringRef N) {
  return N == CCC_SLOW_PATH || N.starts_with("ccc_checkpoint");
}

// Libraries that never call back into the program unless given a function
// (a callback argument is checked at the call).
bool isLibraryName(StringRef N) {
  return N.starts_with("MPI_") || N.starts_with("PMPI_") ||
         N.starts_with("_Fortran") || N.starts_with("__ccc_");
}

// Which calls may reach a checkpoint site: a call of a site, of a function
// of this module that makes such a call, an indirect call, inline assembly,
// or a call of an external function that is not a known library function
// (another module's functions may take checkpoints). Library functions
// count as reaching a site when given a function, or when any function
// whose address is taken reaches one (a library may call it back).
class SiteReach {
public:
  SiteReach(Module &M, FunctionAnalysisManager &FAM) : FAM(FAM) {
    compute(M, /*CallbacksReach=*/false);
    for (Function &F : M)
      if (Reaches.count(&F) && F.hasAddressTaken(nullptr, false, true, true)) {
        compute(M, /*CallbacksReach=*/true);
        break;
      }
  }
  bool mayReach(const CallBase &CB) const { return callReaches(CB); }

private:
  FunctionAnalysisManager &FAM;
  SmallPtrSet<const Function *, 32> Reaches;
  bool Callbacks = false;

  bool isLibrary(const Function &Callee) const {
    if (isLibraryName(Callee.getName()))
      return true;
    LibFunc LF;
    auto &TLI =
        FAM.getResult<TargetLibraryAnalysis>(const_cast<Function &>(Callee));
    return TLI.getLibFunc(Callee, LF) && TLI.has(LF);
  }

  bool callReaches(const CallBase &CB) const {
    if (CB.isInlineAsm())
      return true;
    const Function *Callee = CB.getCalledFunction();
    if (!Callee)
      return true;
    if (Callee->isIntrinsic())
      return false;
    if (isSiteName(Callee->getName()))
      return true;
    if (!Callee->isDeclaration())
      return Reaches.count(Callee);
    if (!isLibrary(*Callee))
      return true;
    if (Callbacks)
      return true;
    for (const Value *A : CB.args())
      if (isa<Function>(A->stripPointerCasts()))
        return true;
    return false;
  }

  void compute(Module &M, bool CallbacksReach) {
    Callbacks = CallbacksReach;
    Reaches.clear();
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (Function &F : M) {
        if (F.isDeclaration() || Reaches.count(&F))
          continue;
        for (Instruction &I : instructions(F))
          if (auto *CB = dyn_cast<CallBase>(&I))
            if (callReaches(*CB)) {
              Reaches.insert(&F);
              Changed = true;
              break;
            }
      }
    }
  }
};

// What each instruction does to the global: reads it, or only writes
// part of it. Fails when the address goes anywhere else.
struct Accesses {
  SmallPtrSet<const Instruction *, 16> Reads;
  SetVector<Function *> Functions;
  SmallVector<Instruction *, 16> Writes;
};

bool collectAccesses(const Value *V, Accesses &A, unsigned Depth = 0) {
  if (Depth > 8)
    return false;
  for (const Use &U : V->uses()) {
    const User *Usr = U.getUser();
    if (auto *CE = dyn_cast<ConstantExpr>(Usr)) {
      if ((CE->getOpcode() != Instruction::GetElementPtr && !CE->isCast()) ||
          CE->getOpcode() == Instruction::PtrToInt ||
          !collectAccesses(CE, A, Depth + 1))
        return false;
      continue;
    }
    auto *I = dyn_cast<Instruction>(Usr);
    if (!I)
      return false; // an initializer of another global, a used list, ...
    A.Functions.insert(const_cast<Function *>(I->getFunction()));
    if (auto *LI = dyn_cast<LoadInst>(I)) {
      if (LI->getPointerOperand() != V)
        return false;
      A.Reads.insert(LI);
    } else if (auto *SI = dyn_cast<StoreInst>(I)) {
      if (SI->getPointerOperand() != V || SI->getValueOperand() == V)
        return false; // the address itself is stored somewhere
      A.Writes.push_back(const_cast<StoreInst *>(SI));
    } else if (auto *MI = dyn_cast<MemIntrinsic>(I)) {
      if (MI->getRawDest() == V && U.getOperandNo() == 0) {
        A.Writes.push_back(const_cast<MemIntrinsic *>(MI));
      } else if (isa<MemTransferInst>(MI) && U.getOperandNo() == 1) {
        A.Reads.insert(MI);
      } else {
        return false;
      }
    } else if (auto *II = dyn_cast<IntrinsicInst>(I);
               II && II->isLifetimeStartOrEnd()) {
      continue;
    } else if (isa<GetElementPtrInst, BitCastInst, AddrSpaceCastInst>(I)) {
      if (!collectAccesses(I, A, Depth + 1))
        return false;
    } else {
      return false; // a call argument, phi, select, ptrtoint, compare, ...
    }
  }
  return true;
}

class FunctionProof {
public:
  FunctionProof(Function &F, GlobalVariable &G, uint64_t Size,
                const Accesses &A, const SiteReach &SR,
                FunctionAnalysisManager &FAM)
      : F(F), G(G), Size(Size), A(A), SR(SR),
        DL(F.getParent()->getDataLayout()),
        DT(FAM.getResult<DominatorTreeAnalysis>(F)),
        LI(FAM.getResult<LoopAnalysis>(F)),
        SE(FAM.getResult<ScalarEvolutionAnalysis>(F)) {}

  bool deadAtEntryAndSites() {
    findKills();
    if (!noReadBeforeKill(&*F.getEntryBlock().begin()))
      return false;
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (SR.mayReach(*CB) && !noReadBeforeKill(CB->getNextNode(), CB))
          return false;
    return true;
  }

private:
  Function &F;
  GlobalVariable &G;
  uint64_t Size;
  const Accesses &A;
  const SiteReach &SR;
  const DataLayout &DL;
  DominatorTree &DT;
  LoopInfo &LI;
  ScalarEvolution &SE;
  SmallPtrSet<const Instruction *, 4> KillInsts;
  SmallPtrSet<const BasicBlock *, 4> KillHeaders; // of whole-object loop nests

  bool isWholeObject(const Value *Ptr) const {
    APInt Off(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
    const Value *Base = Ptr->stripAndAccumulateConstantOffsets(DL, Off, true);
    return Base == &G && Off.isZero();
  }

  // A loop nest storing every byte of the global each time its outermost
  // loop runs: returns that loop or null. Stores are the stores of L (its
  // innermost loop) executed on every iteration; together they must write
  // one contiguous block per iteration, the block moving by its own size
  // (one store of an element, or the interleaved stores of a vectorized
  // loop).
  Loop *nestCovering(Loop *L, ArrayRef<StoreInst *> Stores) {
    struct Piece {
      int64_t Off;
      uint64_t Size;
    };
    SmallVector<Piece, 8> Pieces;
    const SCEV *Base = nullptr;
    const APInt *Step = nullptr;
    for (StoreInst *S : Stores) {
      TypeSize ES = DL.getTypeStoreSize(S->getValueOperand()->getType());
      auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(S->getPointerOperand()));
      if (ES.isScalable() || !AR || AR->getLoop() != L || !AR->isAffine())
        continue;
      auto *C = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
      if (!C || (Step && C->getAPInt() != *Step))
        continue;
      if (!Base) {
        Base = AR->getStart();
        Step = &C->getAPInt();
      }
      auto *D = dyn_cast<SCEVConstant>(SE.getMinusSCEV(AR->getStart(), Base));
      if (D && D->getAPInt().getSignificantBits() <= 32)
        Pieces.push_back({D->getAPInt().getSExtValue(), ES.getFixedValue()});
    }
    if (Pieces.empty() || Step->isNegative() || Step->isZero() ||
        Step->getActiveBits() > 32)
      return nullptr;
    llvm::sort(Pieces, [](const Piece &X, const Piece &Y) {
      return X.Off < Y.Off;
    });
    // The block starts at the lowest piece and must be Step bytes long.
    int64_t Lo = Pieces.front().Off, End = Lo;
    for (const Piece &P : Pieces) {
      if (P.Off > End)
        break;
      End = std::max<int64_t>(End, P.Off + (int64_t)P.Size);
    }
    uint64_t Width = Step->getZExtValue();
    if (End - Lo < (int64_t)Width)
      return nullptr;
    const SCEV *Cur = SE.getAddExpr(Base, SE.getConstant(Base->getType(), Lo));
    for (const BasicBlock *Inner = nullptr; L;
         Inner = L->getHeader(), L = L->getParentLoop()) {
      if (Inner) { // an outer loop: its recurrence moves the inner block
        auto *AR = dyn_cast<SCEVAddRecExpr>(Cur);
        if (!AR || AR->getLoop() != L || !AR->isAffine())
          return nullptr;
        auto *C = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
        if (!C || C->getAPInt() != Width)
          return nullptr;
        Cur = AR->getStart();
      }
      // Entered, the loop runs all its iterations, and each one runs the
      // stores (or the inner loop).
      BasicBlock *Latch = L->getLoopLatch();
      unsigned TC = SE.getSmallConstantTripCount(L);
      if (!Latch || L->getExitingBlock() != Latch || !TC ||
          (Inner && !DT.dominates(Inner, Latch)))
        return nullptr;
      if (Width > (UINT64_MAX / 2) / TC)
        return nullptr;
      Width *= TC;
      if (auto *U = dyn_cast<SCEVUnknown>(Cur);
          U && isWholeObject(U->getValue()))
        return Width >= Size ? L : nullptr;
      // Cur is the block's start at the inner loop's entry: (recurrence of
      // the outer loop), continued above.
      if (!isa<SCEVAddRecExpr>(Cur))
        return nullptr;
    }
    return nullptr;
  }

  bool nestIsClean(const Loop *L) const {
    for (const BasicBlock *BB : L->blocks())
      for (const Instruction &I : *BB) {
        if (A.Reads.count(&I))
          return false;
        if (auto *CB = dyn_cast<CallBase>(&I); CB && SR.mayReach(*CB))
          return false;
      }
    return true;
  }

  void findKills() {
    MapVector<Loop *, SmallVector<StoreInst *, 4>> LoopStores;
    for (Instruction *W : A.Writes) {
      if (W->getFunction() != &F)
        continue;
      if (auto *S = dyn_cast<StoreInst>(W)) {
        TypeSize SS = DL.getTypeStoreSize(S->getValueOperand()->getType());
        if (!SS.isScalable() && SS.getFixedValue() >= Size &&
            isWholeObject(S->getPointerOperand())) {
          KillInsts.insert(S);
          continue;
        }
        // A loop's stores that run on every iteration.
        Loop *L = LI.getLoopFor(S->getParent());
        if (L && S->isSimple() && L->getLoopLatch() &&
            DT.dominates(S->getParent(), L->getLoopLatch()))
          LoopStores[L].push_back(S);
      } else if (auto *MI = dyn_cast<MemIntrinsic>(W)) {
        auto *Len = dyn_cast<ConstantInt>(MI->getLength());
        if (Len && Len->getZExtValue() >= Size &&
            isWholeObject(MI->getRawDest()))
          KillInsts.insert(MI);
      }
    }
    for (auto &[L, Stores] : LoopStores)
      if (Loop *Nest = nestCovering(L, Stores);
          Nest && Nest->getLoopPreheader() && nestIsClean(Nest))
        KillHeaders.insert(Nest->getHeader());
  }

  // Every path from From (the instruction after a site-reaching call, or
  // the entry) reaches a full overwrite before a read of the global, or
  // leaves F. Loop nests that overwrite the global are entered only through
  // their preheader, so reaching their header from outside is a kill.
  bool noReadBeforeKill(const Instruction *From,
                        const Instruction *Start = nullptr) {
    SmallPtrSet<const BasicBlock *, 32> Seen;
    SmallVector<const Instruction *, 16> Work{From};
    auto Follow = [&](const BasicBlock *BB, const BasicBlock *To) {
      if (KillHeaders.count(To) && !LI.getLoopFor(To)->contains(BB))
        return;
      if (Seen.insert(To).second)
        Work.push_back(&To->front());
    };
    if (Start && Start->isTerminator()) { // an invoke or callbr
      Work.clear();
      for (const BasicBlock *S : successors(Start->getParent()))
        Follow(Start->getParent(), S);
    }
    while (!Work.empty()) {
      const Instruction *I = Work.pop_back_val();
      bool Killed = false;
      for (; I; I = I->getNextNode()) {
        if (A.Reads.count(I))
          return false;
        if (KillInsts.count(I)) {
          Killed = true;
          break;
        }
        if (I->isTerminator())
          break;
      }
      if (Killed || !I)
        continue;
      for (const BasicBlock *S : successors(I->getParent()))
        Follow(I->getParent(), S);
    }
    return true;
  }
};

} // namespace

void ccc::findGlobalsDeadAtSites(Module &M, ModuleAnalysisManager &MAM,
                                 SmallPtrSetImpl<const GlobalVariable *> &Dead) {
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  const DataLayout &DL = M.getDataLayout();
  std::unique_ptr<SiteReach> SR;
  for (GlobalVariable &G : M.globals()) {
    if (!G.hasLocalLinkage() || G.isThreadLocal() || G.isConstant() ||
        G.isDeclaration() || G.isExternallyInitialized() || G.hasSection())
      continue;
    Accesses A;
    if (!collectAccesses(&G, A))
      continue;
    uint64_t Size = DL.getTypeAllocSize(G.getValueType()).getFixedValue();
    if (!SR)
      SR = std::make_unique<SiteReach>(M, FAM);
    bool IsDead = true;
    for (Function *F : A.Functions)
      if (!FunctionProof(*F, G, Size, A, *SR, FAM).deadAtEntryAndSites()) {
        IsDead = false;
        break;
      }
    if (IsDead)
      Dead.insert(&G);
  }
}

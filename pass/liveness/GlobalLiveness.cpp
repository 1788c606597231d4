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
#include "Overwrites.h"
#include "pass/CccPasses.h"

#include "ccc/abi.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;
using namespace ccc;

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
    ObjectAccesses A;
    if (!collectAccesses(&G, A))
      continue;
    if (!SR)
      SR = std::make_unique<SiteReach>(M, FAM);
    auto IsSite = [&](const CallBase &CB) { return SR->mayReach(CB); };
    uint64_t Size = DL.getTypeAllocSize(G.getValueType()).getFixedValue();
    bool IsDead = true;
    for (Function *F : A.Functions) {
      // setjmp/longjmp: control comes back along no edge of the CFG.
      if (F->callsFunctionThatReturnsTwice()) {
        IsDead = false;
        break;
      }
      auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(*F);
      OverwriteFlow Flow(*F, G, SE.getConstant(Type::getInt64Ty(M.getContext()), Size), A, IsSite,
                         /*NestMayHoldSites=*/false,
                         FAM.getResult<DominatorTreeAnalysis>(*F),
                         FAM.getResult<LoopAnalysis>(*F), SE);
      // From the entry, and from every call that may take a checkpoint.
      IsDead = Flow.deadFrom(&F->getEntryBlock().front());
      for (Instruction &I : instructions(*F)) {
        if (!IsDead)
          break;
        if (auto *CB = dyn_cast<CallBase>(&I); CB && IsSite(*CB))
          IsDead = Flow.deadFrom(CB->isTerminator() ? CB : CB->getNextNode());
      }
      if (!IsDead)
        break;
    }
    if (IsDead)
      Dead.insert(&G);
  }
}

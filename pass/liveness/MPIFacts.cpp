//===- MPIFacts.cpp - What the MPI standard says about some calls ---------===//
//
// MPI_Comm_size and MPI_Comm_rank write one int through their second
// argument and keep no pointer to it. Without that fact the int escapes:
// LLVM reloads `size` after every later call of the program (any call might
// write it), and the loop bounds computed from it are not known before a
// loop, so the heap liveness analysis cannot say at a site how much a
// transpose nest over the ranks writes. The pass marks the argument
// nocapture on the declarations (the C binding; Fortran passes everything
// by reference through other names) and, for a local variable written by
// one such call and otherwise only read, reads it once right after the
// call: the optimizer's own forwarding gives up in long loops full of calls
// (its memory walks are bounded).
//
//===----------------------------------------------------------------------===//
#include "pass/CccPasses.h"
#include "pass/Compat.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

// Replaces the loads of the local variable V that the call writes (its
// only writer) with one load right after the call.
static bool forwardResult(CallInst &Call, AllocaInst &V, DominatorTree &DT) {
  SmallVector<LoadInst *, 8> Loads;
  for (User *U : V.users()) {
    if (U == &Call)
      continue;
    if (auto *II = dyn_cast<IntrinsicInst>(U); II && II->isLifetimeStartOrEnd())
      continue;
    auto *L = dyn_cast<LoadInst>(U);
    if (!L || !L->isSimple() || L->getType() != V.getAllocatedType() ||
        !DT.dominates(&Call, L))
      return false;
    Loads.push_back(L);
  }
  if (Loads.empty() || llvm::count(Call.args(), &V) != 1)
    return false;
  // Already forwarded (the pass is idempotent).
  auto *Next = dyn_cast<LoadInst>(Call.getNextNode());
  if (Loads.size() == 1 && Loads.front() == Next)
    return false;
  auto *Once = new LoadInst(V.getAllocatedType(), &V, V.getName() + ".mpi",
                            Call.getNextNode());
  for (LoadInst *L : Loads) {
    L->replaceAllUsesWith(Once);
    L->eraseFromParent();
  }
  return true;
}

PreservedAnalyses ccc::MPIFactsPass::run(Module &M, ModuleAnalysisManager &) {
  bool Changed = false;
  // One tree per function (forwarding adds and removes loads, no blocks).
  DenseMap<Function *, std::unique_ptr<DominatorTree>> Trees;
  for (StringRef Name : {"MPI_Comm_size", "MPI_Comm_rank"}) {
    Function *F = M.getFunction(Name);
    if (!F || !F->isDeclaration() || F->arg_size() != 2 ||
        !F->getArg(1)->getType()->isPointerTy())
      continue;
    Changed |= addNoCapture(*F, 1);
    SmallVector<CallInst *, 4> Calls;
    for (User *U : F->users())
      if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getCalledFunction() == F)
        Calls.push_back(CI);
    for (CallInst *CI : Calls) {
      auto *V = dyn_cast<AllocaInst>(CI->getArgOperand(1));
      if (!V || !V->getAllocatedType()->isIntegerTy(32))
        continue;
      std::unique_ptr<DominatorTree> &DT = Trees[CI->getFunction()];
      if (!DT)
        DT = std::make_unique<DominatorTree>(*CI->getFunction());
      Changed |= forwardResult(*CI, *V, *DT);
    }
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

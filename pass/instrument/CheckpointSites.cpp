//===- CheckpointSites.cpp - Inline the fast path of checkpoint sites -----===//
//
// `ccc_checkpoint()` (C) / `ccc_checkpoint_` (Fortran) /
// `ccc_checkpoint_status` (Fortran module ccc) becomes
//   %p = load volatile i32, ptr @__ccc_pending
//   br (%p != 0), %slow, %cont        ; slow path marked unlikely
// slow: %r = call i32 @__ccc_checkpoint_slow(i32 0)
// so a site costs one load and one branch when no checkpoint is due.
// `ccc_checkpoint_force()` becomes a direct call of the slow path with 1.
// Invokes (C++ callers with cleanups) become invokes of the slow path with 0,
// which does the same test. Every site thus refers to the slow path, which is
// what links the runtime's main (rt/process/Entry.cpp) into the program.
//
//===----------------------------------------------------------------------===//
#include "pass/CccPasses.h"

#include "ccc/abi.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#define DEBUG_TYPE "ccc-sites"
STATISTIC(NumSites, "Number of ccc_checkpoint sites inlined");
STATISTIC(NumForcedSites, "Number of ccc_checkpoint_force sites");

using namespace llvm;

static void collectCalls(Module &M, StringRef Name,
                         SmallVectorImpl<CallBase *> &Out) {
  if (Function *F = M.getFunction(Name))
    for (User *U : F->users())
      if (auto *CB = dyn_cast<CallBase>(U))
        if (CB->getCalledOperand() == F && !isa<CallBrInst>(CB))
          Out.push_back(CB);
}

PreservedAnalyses ccc::CheckpointSitesPass::run(Module &M,
                                                ModuleAnalysisManager &) {
  SmallVector<CallBase *, 16> Maybe, Force;
  // C names, Fortran's implicit-interface names, and the `use ccc`
  // functions that return the status.
  for (StringRef N :
       {"ccc_checkpoint", "ccc_checkpoint_", "ccc_checkpoint_status"})
    collectCalls(M, N, Maybe);
  for (StringRef N : {"ccc_checkpoint_force", "ccc_checkpoint_force_",
                      "ccc_checkpoint_force_status"})
    collectCalls(M, N, Force);
  if (Maybe.empty() && Force.empty())
    return PreservedAnalyses::all();

  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C);
  FunctionCallee Slow = M.getOrInsertFunction(
      CCC_SLOW_PATH, FunctionType::get(I32, {I32}, false));
  GlobalVariable *Pending = M.getGlobalVariable(CCC_PENDING_FLAG);
  if (!Pending)
    Pending = new GlobalVariable(M, I32, false, GlobalValue::ExternalLinkage,
                                 nullptr, CCC_PENDING_FLAG);

  auto Replace = [](CallBase *CI, Value *V) {
    if (!CI->getType()->isVoidTy())
      CI->replaceAllUsesWith(
          CI->getType() == V->getType()
              ? V
              : IRBuilder<>(CI).CreateZExtOrTrunc(V, CI->getType()));
    CI->eraseFromParent();
  };

  // Invokes keep their unwind edge: the slow path called with the site's
  // kind does the pending test itself.
  auto ReplaceInvoke = [&](InvokeInst *II, int Kind) {
    IRBuilder<> B(II);
    InvokeInst *S =
        B.CreateInvoke(Slow, II->getNormalDest(), II->getUnwindDest(),
                       {ConstantInt::get(I32, Kind)});
    Replace(II, S);
  };
  for (CallBase *CB : Force) {
    if (auto *II = dyn_cast<InvokeInst>(CB)) {
      ReplaceInvoke(II, CCC_SITE_FORCE);
      ++NumForcedSites;
      continue;
    }
    IRBuilder<> B(CB);
    CallInst *S = B.CreateCall(Slow, {ConstantInt::get(I32, CCC_SITE_FORCE)});
    S->setTailCallKind(CallInst::TCK_NoTail);
    Replace(CB, S);
    ++NumForcedSites;
  }
  MDNode *Unlikely = MDBuilder(C).createBranchWeights(1, 100000);
  for (CallBase *CB : Maybe) {
    if (auto *II = dyn_cast<InvokeInst>(CB)) {
      ReplaceInvoke(II, CCC_SITE_MAYBE);
      ++NumSites;
      continue;
    }
    auto *CI = cast<CallInst>(CB);
    IRBuilder<> B(CI);
    LoadInst *P =
        B.CreateLoad(I32, Pending, /*isVolatile=*/true, "ccc.pending");
    Value *Due = B.CreateICmpNE(P, ConstantInt::get(I32, 0), "ccc.due");
    Instruction *Then =
        SplitBlockAndInsertIfThen(Due, CI, /*Unreachable=*/false, Unlikely);
    Then->getParent()->setName("ccc.slow");
    IRBuilder<> TB(Then);
    CallInst *S = TB.CreateCall(Slow, {ConstantInt::get(I32, CCC_SITE_MAYBE)});
    S->setTailCallKind(CallInst::TCK_NoTail);
    IRBuilder<> JB(CI);
    PHINode *Phi = JB.CreatePHI(I32, 2, "ccc.result");
    Phi->addIncoming(ConstantInt::get(I32, 0), P->getParent());
    Phi->addIncoming(S, S->getParent());
    Replace(CI, Phi);
    ++NumSites;
  }
  return PreservedAnalyses::none();
}

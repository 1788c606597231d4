//===- FrameLiveness.cpp - Locals of a site's callers dead in their frame -===//
//
// A checkpoint taken inside a call saves the frame of every function on the
// path to the site. A local of such a caller is dead in its frame when
// every path from the call's return overwrites it whole before reading it
// (a scratch array the caller refills after each step). Proven, per call
// that may reach a site (mayReachSite) and per local of 4 KiB or more, as
// for the site's own locals (HeapLiveness.cpp): its address goes nowhere
// but loads, stores and leaf calls (so the callee cannot read it), it owns
// its stack slot at the call (ownsSlotAt), and the overwrite needs no
// guard assumption (nothing is evaluated at run time in a caller's frame).
//
// This pass only records the proof, as metadata: the local gets
// !ccc.frame.local !{i32 K} and the call !ccc.dead.after !{i32 K, ...}.
// ccc-frame-table (FrameTable.cpp) turns it into the table the runtime
// reads, at OptimizerLast: the table takes the locals' addresses, which
// the optimizer must not see (every local would look escaped). Calls the
// optimizer later duplicates keep the metadata, and the proof holds for
// each copy; a local it rewrites loses it, and is then saved.
//
// Runs before the loop vectorizer, with ccc-heap-liveness, for the same
// reason: each overwriting loop is still one loop. x86-64 ELF only (the
// table's frame offsets are those of that target's frame lowering).
//
//===----------------------------------------------------------------------===//
#include "Locals.h"
#include "Overwrites.h"
#include "pass/CccPasses.h"

#include "ccc/abi.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

#define DEBUG_TYPE "ccc-frame-liveness"
STATISTIC(NumDeadAfterCall, "Locals found dead after a call that may "
                            "reach a site");

using namespace llvm;
using namespace ccc;

namespace {
// Whether a call of Callee may take a checkpoint before it returns. Only
// limits the table's size: a call wrongly said to reach none simply has no
// record, and its caller's locals are saved.
bool mayReachSite(const Function *Callee, const TargetLibraryInfo &TLI,
                  unsigned Depth = 0) {
  if (!Callee)
    return true; // an indirect call
  // A checkpoint writes memory (at least the runtime's).
  if (Callee->isIntrinsic() || Callee->onlyReadsMemory())
    return false;
  StringRef N = Callee->getName();
  if (N == CCC_SLOW_PATH)
    return true;
  if (N.starts_with("__ccc_") || N.starts_with("MPI_") ||
      N.starts_with("PMPI_"))
    return false;
  LibFunc LF;
  if (TLI.getLibFunc(*Callee, LF))
    return false;
  if (Callee->isDeclaration() || Depth > 4)
    return true;
  for (const Instruction &I : instructions(*Callee))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (CB->isInlineAsm() ||
          mayReachSite(CB->getCalledFunction(), TLI, Depth + 1))
        return true;
  return false;
}

// A call whose frame offsets the table can give: it passes nothing on the
// stack (so the stack pointer at the call is the one at the end of the
// prologue, which the offsets are relative to) and returns normally.
bool callKeepsStackPointer(const CallInst &C) {
  if (C.isMustTailCall() || C.isInlineAsm() || C.arg_size() > 6 ||
      (C.getCallingConv() != CallingConv::C &&
       C.getCallingConv() != CallingConv::Fast))
    return false;
  for (unsigned I = 0; I < C.arg_size(); ++I) {
    if (C.isByValArgument(I) || C.isInAllocaArgument(I) ||
        C.paramHasAttr(I, Attribute::Preallocated))
      return false;
    Type *T = C.getArgOperand(I)->getType();
    if (!T->isPointerTy() && !T->isIntegerTy(8) && !T->isIntegerTy(16) &&
        !T->isIntegerTy(32) && !T->isIntegerTy(64) && !T->isFloatTy() &&
        !T->isDoubleTy())
      return false;
  }
  return true;
}
} // namespace

PreservedAnalyses ccc::FrameLivenessPass::run(Function &F,
                                              FunctionAnalysisManager &FAM) {
  Triple T(F.getParent()->getTargetTriple());
  // setjmp/longjmp: control comes back along no edge of the CFG.
  if (T.getArch() != Triple::x86_64 || !T.isOSBinFormatELF() ||
      F.callsFunctionThatReturnsTwice())
    return PreservedAnalyses::all();
  auto &TLI = FAM.getResult<TargetLibraryAnalysis>(F);
  SmallVector<AllocaInst *, 4> Locals;
  SmallVector<CallInst *, 4> Calls;
  for (Instruction &I : instructions(F)) {
    if (auto *AI = dyn_cast<AllocaInst>(&I)) {
      // A dynamic alloca moves the stack pointer: no offsets then.
      if (!AI->isStaticAlloca())
        return PreservedAnalyses::all();
      uint64_t Bytes = largeLocalBytes(*AI);
      if (Bytes && Bytes <= UINT32_MAX && AI->getAlign() <= 16)
        Locals.push_back(AI);
    } else if (auto *CI = dyn_cast<CallInst>(&I)) {
      if (CI->getCalledFunction() &&
          CI->getCalledFunction()->getName() == CCC_SLOW_PATH)
        continue; // the site's own locals: HeapLiveness.cpp
      if (callKeepsStackPointer(*CI) &&
          mayReachSite(CI->getCalledFunction(), TLI))
        Calls.push_back(CI);
    }
  }
  if (Locals.empty() || Calls.empty())
    return PreservedAnalyses::all();

  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  MapVector<CallInst *, SmallVector<unsigned, 2>> DeadAfter;
  SmallVector<AllocaInst *, 4> Marked;
  for (AllocaInst *V : Locals) {
    ObjectAccesses A;
    if (!collectAccesses(V, A))
      continue;
    const SCEV *Bytes = localBytesSCEV(*V, SE);
    auto NoSite = [](const CallBase &) { return false; };
    OverwriteFlow Flow(F, *V, Bytes, A, NoSite, /*NestMayHoldSites=*/true, DT,
                       LI, SE);
    bool Any = false;
    for (CallInst *C : Calls)
      if (ownsSlotAt(*V, *C) && Flow.deadFrom(C->getNextNode())) {
        DeadAfter[C].push_back(Marked.size());
        Any = true;
        ++NumDeadAfterCall;
      }
    if (Any)
      Marked.push_back(V);
  }
  if (Marked.empty())
    return PreservedAnalyses::all();

  LLVMContext &Ctx = F.getContext();
  MDBuilder MDB(Ctx);
  Type *I32 = Type::getInt32Ty(Ctx);
  auto Id = [&](unsigned K) -> Metadata * {
    return MDB.createConstant(ConstantInt::get(I32, K));
  };
  for (unsigned K = 0; K < Marked.size(); ++K)
    Marked[K]->setMetadata(CCC_FRAME_LOCAL_MD, MDNode::get(Ctx, {Id(K)}));
  for (auto &[C, Ks] : DeadAfter) {
    SmallVector<Metadata *, 2> Ops;
    for (unsigned K : Ks)
      Ops.push_back(Id(K));
    C->setMetadata(CCC_DEAD_AFTER_MD, MDNode::get(Ctx, Ops));
  }
  // Metadata only: no analysis changes.
  return PreservedAnalyses::all();
}

//===- HeapLiveness.cpp - Heap objects dead at a checkpoint site ----------===//
//
// A heap object is dead at a site when whatever it holds there is never
// read afterwards: a scratch vector recomputed whole every step. Then the
// image taken at that site need not hold it. Proven, per site (a call of
// the slow path) and per allocation in the same function, when
//  1. the allocation (__ccc_malloc / __ccc_calloc, the pass has routed the
//     program's heap calls there) dominates the site, and its address goes
//     nowhere but loads, stores (as the address), memset/memcpy, compares
//     and __ccc_free of it: no other code can touch the object;
//  2. no free of it can come between the allocation and the site (its
//     memory could hold another object by then);
//  3. every path from the site overwrites the object whole before reading
//     it, or leaves the function (pass/liveness/Overwrites.cpp), or reaches the
//     allocation again (a new object). A loop that overwrites it under a
//     guard (`if (n > 0)` of a rotated loop) counts when the guard's
//     condition is computed from values that stay the same in the whole
//     call: the exclusion is then made only if that condition holds at
//     the site.
// Two allocations whose pointers a loop swaps every iteration (the header
// phis u and unew, entered with the two allocations and fed back crossed)
// are analysed as a pair: in every iteration the phis hold different
// objects, so at a site in the loop a read through u is not a read of
// unew's object. unew's object is dead over the range [off, off + len) of
// it that one loop nest rewrites when every path from the site reaches
// that nest before any read through anything but u, and before the loop's
// header (where the names swap). Blocking MPI calls count as accesses of
// their buffers (in both analyses), not as escapes.
// Locals of the site's function (static allocas of 4 KiB or more) are
// analysed as heap objects are, where they own their stack slot at the
// site (ownsSlotAt); the runtime leaves them out of the stack section.
// Before the site the pass adds `__ccc_dead_at_site(p, bytes, where)`
// (bytes 0 when a guard does not hold; where: the allocation's source
// location); the runtime leaves those bytes out of the image taken in that
// call and forgets them when the call returns.
//
// Runs before the loop vectorizer (VectorizerStart): loops are rotated and
// in SSA form, functions inlined into the time-step loop, and each loop is
// still one loop, not a vector body plus a remainder. Not at -O0.
//
//===----------------------------------------------------------------------===//
#include "Locals.h"
#include "Overwrites.h"
#include "pass/CccPasses.h"
#include "pass/Compat.h"

#include "ccc/abi.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#define DEBUG_TYPE "ccc-heap-liveness"
STATISTIC(NumDeadAtSite, "Heap objects found dead at a site");

using namespace llvm;
using namespace ccc;

namespace {
// The bytes an allocation call asks for, or null.
Value *allocationSize(CallInst &CI, IRBuilder<> &B) {
  const Function *F = CI.getCalledFunction();
  if (!F || CI.arg_size() < 1)
    return nullptr;
  Type *I64 = B.getInt64Ty();
  if (F->getName() == "__ccc_malloc" && CI.arg_size() == 1)
    return B.CreateZExtOrTrunc(CI.getArgOperand(0), I64);
  if (F->getName() == "__ccc_calloc" && CI.arg_size() == 2)
    return B.CreateMul(B.CreateZExtOrTrunc(CI.getArgOperand(0), I64),
                       B.CreateZExtOrTrunc(CI.getArgOperand(1), I64));
  return nullptr;
}

// "file:line in function" of an allocation (or the function alone without
// debug information), for `ckpt info`.
std::string allocationPlace(const CallInst &CI) {
  std::string S;
  raw_string_ostream OS(S);
  if (const DebugLoc &DL = CI.getDebugLoc())
    OS << DL->getFilename() << ":" << DL.getLine() << " in ";
  StringRef F = CI.getFunction()->getName();
  OS << (F == CCC_USER_MAIN ? "main" : F);
  return S;
}

// Whether a path leads from Free to S without passing the allocation P
// again (which would make a new object).
bool freeReaches(const Instruction *Free, const Instruction *S,
                 const Instruction *P) {
  const BasicBlock *FB = Free->getParent(), *PB = P->getParent();
  if (FB == PB && Free->comesBefore(P))
    return false;
  if (FB == S->getParent() && Free->comesBefore(S) &&
      !(FB == PB && P->comesBefore(S)))
    return true;
  // Entering P's block passes P before anything after it.
  SmallPtrSet<const BasicBlock *, 16> Seen;
  SmallVector<const BasicBlock *, 16> Work(succ_begin(FB), succ_end(FB));
  while (!Work.empty()) {
    const BasicBlock *BB = Work.pop_back_val();
    if (BB == PB || !Seen.insert(BB).second)
      continue;
    if (BB == S->getParent())
      return true;
    Work.append(succ_begin(BB), succ_end(BB));
  }
  return false;
}

// An object not proven dead whole may still be dead over the range that
// its overwriting nests write (all of them the same range, computed at the
// site): a transpose's target, a pack buffer whose length the pass cannot
// relate to the allocation's; then that range is left out, if the run-time
// checks the proof needs hold at the site.
// Two allocations whose pointers a loop swaps every iteration (u and unew
// of a Jacobi sweep): header phis P and Q entered with A and B and fed
// back crossed, so in every iteration they hold different objects.
struct SwapPair {
  CallInst *A, *B;
  PHINode *P, *Q;
  Loop *L;
};

SmallVector<SwapPair, 2> findSwapPairs(LoopInfo &LI,
                                       ArrayRef<CallInst *> Allocs) {
  SmallVector<SwapPair, 2> Pairs;
  auto IsAlloc = [&](Value *V) -> CallInst * {
    auto *CI = dyn_cast<CallInst>(V);
    return CI && llvm::is_contained(Allocs, CI) ? CI : nullptr;
  };
  for (Loop *L : LI.getLoopsInPreorder()) {
    // The one block outside the loop that enters it (a rotated loop's
    // guard, not always a dedicated preheader), and the one latch.
    BasicBlock *PH = L->getLoopPredecessor(), *Latch = L->getLoopLatch();
    if (!PH || !Latch)
      continue;
    for (PHINode &P : L->getHeader()->phis()) {
      auto *Q = dyn_cast<PHINode>(P.getIncomingValueForBlock(Latch));
      if (P.getNumIncomingValues() != 2 || !Q || Q == &P ||
          Q->getParent() != L->getHeader() ||
          Q->getIncomingValueForBlock(Latch) != &P)
        continue;
      CallInst *A = IsAlloc(P.getIncomingValueForBlock(PH));
      CallInst *B = IsAlloc(Q->getIncomingValueForBlock(PH));
      if (A && B && A != B && &P < Q) // each pair once
        Pairs.push_back({A, B, &P, Q, L});
    }
  }
  return Pairs;
}

// Bytes, or 0 when a loop guard the proof assumed does not hold at B's
// point (the site), or a pair of values it needs equal differs.
Value *unlessGuardFails(IRBuilder<> &B, Value *Bytes,
                        ArrayRef<GuardAssumption> Assume,
                        ArrayRef<std::pair<Value *, Value *>> Equal) {
  Value *Holds = nullptr;
  for (auto [X, Y] : Equal) {
    Value *Cond = B.CreateICmpEQ(X, Y);
    Holds = Holds ? B.CreateAnd(Holds, Cond) : Cond;
  }
  for (const GuardAssumption &G : Assume) {
    Value *Cond = B.CreateICmp(G.Cond->getPredicate(), G.Cond->getOperand(0),
                               G.Cond->getOperand(1));
    if (!G.Taken)
      Cond = B.CreateNot(Cond);
    Holds = Holds ? B.CreateAnd(Holds, Cond) : Cond;
  }
  return Holds ? B.CreateSelect(Holds, Bytes, B.getInt64(0)) : Bytes;
}

const SCEV *allocationSizeSCEV(CallInst &CI, ScalarEvolution &SE) {
  const Function *F = CI.getCalledFunction();
  Type *I64 = Type::getInt64Ty(CI.getContext());
  if (F->getName() == "__ccc_malloc")
    return SE.getTruncateOrZeroExtend(SE.getSCEV(CI.getArgOperand(0)), I64);
  return SE.getMulExpr(
      SE.getTruncateOrZeroExtend(SE.getSCEV(CI.getArgOperand(0)), I64),
      SE.getTruncateOrZeroExtend(SE.getSCEV(CI.getArgOperand(1)), I64));
}
} // namespace

PreservedAnalyses ccc::HeapLivenessPass::run(Function &F,
                                             FunctionAnalysisManager &FAM) {
  // setjmp/longjmp: control comes back along no edge of the CFG.
  if (F.callsFunctionThatReturnsTwice())
    return PreservedAnalyses::all();
  SmallVector<CallInst *, 4> Sites, Allocs;
  SmallVector<AllocaInst *, 4> Locals;
  for (Instruction &I : instructions(F)) {
    if (isSlowPath(I))
      Sites.push_back(cast<CallInst>(&I));
    else if (auto *AI = dyn_cast<AllocaInst>(&I)) {
      if (largeLocalBytes(*AI))
        Locals.push_back(AI);
    } else if (auto *CI = dyn_cast<CallInst>(&I))
      if (const Function *Callee = CI->getCalledFunction())
        if ((Callee->getName() == "__ccc_malloc" && CI->arg_size() == 1) ||
            (Callee->getName() == "__ccc_calloc" && CI->arg_size() == 2))
          Allocs.push_back(CI);
  }
  if (Sites.empty() || (Allocs.empty() && Locals.empty()))
    return PreservedAnalyses::all();

  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  std::unique_ptr<SCEVExpander> ExpOwner =
      makeExpander(SE, F.getParent()->getDataLayout(), "ccc.dead");
  SCEVExpander &Exp = *ExpOwner;
  struct Dead {
    CallInst *Site, *Alloc;
    SmallVector<GuardAssumption, 2> Assume;
  };
  SmallVector<Dead, 8> Found;
  // A range of an object left out: Ptr + Off, Width bytes, if the Checks
  // hold; Where names the allocation(s).
  struct DeadRange {
    CallInst *Site;
    Value *Ptr;
    std::string Where;
    const SCEV *Off, *Width;
    SmallVector<SCEVPair, 1> Checks;
    SmallVector<GuardAssumption, 2> Assume;
  };
  SmallVector<DeadRange, 4> FoundRanges;
  // Records the sites where the object at Ptr is dead over the range its
  // overwriting nests write (Flow in range mode), from every path on.
  auto FindRanges = [&](OverwriteFlow &Flow, Value *Ptr,
                        function_ref<bool(CallInst *)> Applies,
                        const std::string &Where) {
    const SCEV *Off, *Width;
    SmallVector<SCEVPair, 1> Checks;
    if (!Flow.rangeKill(Off, Width, Checks))
      return;
    for (CallInst *S : Sites) {
      auto Expandable = [&](const SCEV *X) {
        return Exp.isSafeToExpandAt(X, S);
      };
      if (!Applies(S) || !Expandable(Off) || !Expandable(Width) ||
          !llvm::all_of(Checks, [&](const SCEVPair &C) {
            return Expandable(C.first) && Expandable(C.second);
          }))
        continue;
      DeadRange D{S, Ptr, Where, Off, Width, Checks, {}};
      if (Flow.deadFrom(S->getNextNode(), S, &D.Assume))
        FoundRanges.push_back(std::move(D));
    }
  };

  // Per site where Applies holds: dead whole when every path from it
  // overwrites the object before reading it (Whole records that), or else
  // maybe dead over the range its nests rewrite (FindRanges). Reaching
  // NewObject, if given, makes a new object (an allocation reached again).
  auto FindDead =
      [&](Value &Obj, const SCEV *Size, const ObjectAccesses &A,
          Instruction *NewObject, function_ref<bool(CallInst *)> Applies,
          const std::string &Where,
          function_ref<void(CallInst *, ArrayRef<GuardAssumption>)> Whole) {
        auto NoSite = [](const CallBase &) { return false; };
        OverwriteFlow Flow(F, Obj, Size, A, NoSite,
                           /*NestMayHoldSites=*/true, DT, LI, SE);
        if (NewObject)
          Flow.addKill(NewObject);
        SmallVector<CallInst *, 4> NotWhole;
        for (CallInst *S : Sites) {
          if (!Applies(S))
            continue;
          SmallVector<GuardAssumption, 2> Assume;
          if (Flow.deadFrom(S->getNextNode(), S, &Assume))
            Whole(S, Assume);
          else
            NotWhole.push_back(S);
        }
        if (NotWhole.empty())
          return;
        // Not proven dead whole: maybe the range its nests rewrite (a
        // transpose target, a pack buffer whose length the pass cannot
        // relate to the object's).
        OverwriteFlow Ranges(F, Obj, /*Size=*/nullptr, A, NoSite,
                             /*NestMayHoldSites=*/true, DT, LI, SE);
        if (NewObject)
          Ranges.addKill(NewObject);
        FindRanges(
            Ranges, &Obj,
            [&](CallInst *S) { return llvm::is_contained(NotWhole, S); },
            Where);
      };

  // Locals of the site's function, where they own their stack slot.
  Type *I64 = Type::getInt64Ty(F.getContext());
  for (AllocaInst *V : Locals) {
    ObjectAccesses A;
    if (!collectAccesses(V, A))
      continue;
    const SCEV *Bytes = localBytesSCEV(*V, SE);
    std::string Where = localPlace(*V);
    FindDead(
        *V, Bytes, A, /*NewObject=*/nullptr,
        [&](CallInst *S) { return ownsSlotAt(*V, *S); }, Where,
        [&](CallInst *S, ArrayRef<GuardAssumption> Assume) {
          FoundRanges.push_back({S,
                                 V,
                                 Where,
                                 SE.getZero(I64),
                                 Bytes,
                                 {},
                                 {Assume.begin(), Assume.end()}});
        });
  }

  // Allocations of this function, at the sites they come before with no
  // free between them.
  for (CallInst *P : Allocs) {
    ObjectAccesses A;
    if (!collectAccesses(P, A, "__ccc_free"))
      continue;
    FindDead(
        *P, allocationSizeSCEV(*P, SE), A, /*NewObject=*/P,
        [&](CallInst *S) {
          return DT.dominates(P, S) &&
                 llvm::none_of(A.Frees, [&](CallBase *Free) {
                   return freeReaches(Free, S, P);
                 });
        },
        allocationPlace(*P),
        [&](CallInst *S, ArrayRef<GuardAssumption> Assume) {
          Found.push_back({S, P, {Assume.begin(), Assume.end()}});
        });
  }

  // Swapped pairs: at a site in the loop, the object one phi holds may be
  // dead while the other's is live. Only a range of it may be rewritten
  // (the interior of a grid with ghost planes), so that range is what is
  // left out.
  for (const SwapPair &SP : findSwapPairs(LI, Allocs)) {
    // Roots: 0 A, 1 B, 2 P, 3 Q; 4: through a phi joining them.
    SmallVector<ObjectAccesses, 5> ByRoot;
    if (!collectFamilyAccesses({SP.A, SP.B, SP.P, SP.Q}, ByRoot, "__ccc_free"))
      continue;
    bool FreedInLoop = false;
    for (const ObjectAccesses &A : ByRoot)
      for (CallBase *Free : A.Frees)
        FreedInLoop |= SP.L->contains(Free);
    if (FreedInLoop)
      continue;
    for (PHINode *Which : {SP.P, SP.Q}) {
      // Reads through anything but the other phi may reach this object;
      // only writes through this phi count as its overwrite.
      const ObjectAccesses &Other = ByRoot[Which == SP.P ? 3 : 2];
      ObjectAccesses A;
      for (unsigned I = 0; I < ByRoot.size(); ++I) {
        if (&ByRoot[I] == &Other)
          continue;
        for (const Instruction *R : ByRoot[I].Reads)
          A.Reads.insert(R);
      }
      A.Writes = ByRoot[Which == SP.P ? 2 : 3].Writes;
      auto NoSite = [](const CallBase &) { return false; };
      OverwriteFlow Flow(F, *Which, /*Size=*/nullptr, A, NoSite,
                         /*NestMayHoldSites=*/true, DT, LI, SE);
      // Past the loop's header the phis name each other's object. (After
      // an exit they keep their objects, and the exit phis joining them
      // count as reads.)
      Flow.addBarrier(SP.L->getHeader());
      FindRanges(
          Flow, Which,
          [&](CallInst *S) {
            return SP.L->contains(S) && DT.dominates(Which, S);
          },
          allocationPlace(*SP.A) + " or " + allocationPlace(*SP.B) +
              " (swapped each iteration)");
    }
  }
  if (Found.empty() && FoundRanges.empty())
    return PreservedAnalyses::all();

  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  PointerType *Ptr = PointerType::getUnqual(C);
  FunctionCallee Mark = M.getOrInsertFunction(
      CCC_DEAD_AT_SITE, Type::getVoidTy(C), Ptr, Type::getInt64Ty(C), Ptr);
  StringMap<Constant *> Where;
  auto WhereString = [&](IRBuilder<> &B, const std::string &S) {
    Constant *&W = Where[S];
    if (!W)
      W = B.CreateGlobalStringPtr(S, "ccc.alloc");
    return W;
  };
  for (Dead &D : Found) {
    IRBuilder<> B(D.Site);
    Value *Bytes = allocationSize(*D.Alloc, B);
    Bytes = unlessGuardFails(B, Bytes, D.Assume, {});
    B.CreateCall(Mark,
                 {D.Alloc, Bytes, WhereString(B, allocationPlace(*D.Alloc))});
    ++NumDeadAtSite;
  }
  for (DeadRange &D : FoundRanges) {
    Value *Off = Exp.expandCodeFor(D.Off, I64, D.Site);
    Value *Bytes = Exp.expandCodeFor(D.Width, I64, D.Site);
    SmallVector<std::pair<Value *, Value *>, 1> Equal;
    for (const SCEVPair &Chk : D.Checks)
      Equal.push_back({Exp.expandCodeFor(Chk.first, I64, D.Site),
                       Exp.expandCodeFor(Chk.second, I64, D.Site)});
    IRBuilder<> B(D.Site);
    Bytes = unlessGuardFails(B, Bytes, D.Assume, Equal);
    Value *At = B.CreateGEP(B.getInt8Ty(), D.Ptr, Off, "ccc.dead.at");
    B.CreateCall(Mark, {At, Bytes, WhereString(B, D.Where)});
    ++NumDeadAtSite;
  }
  return PreservedAnalyses::none();
}

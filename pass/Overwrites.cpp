//===- Overwrites.cpp - Where an object is overwritten whole --------------===//
//
// Whole overwrites are a store or memset/memcpy/memmove covering the object,
// or a loop nest that stores every byte of it each time it runs: one store
// per iteration of its innermost loop (or the interleaved stores of a
// vectorized loop) writing a contiguous block that moves by its own size,
// each outer loop moving the inner block by the inner loop's whole extent,
// every loop with one exit (its latch) and a computable trip count, and no
// read of the object inside. Scalar evolution gives the addresses and trip
// counts, so the extents may be symbolic (n elements of a malloc(n * 8)).
//
//===----------------------------------------------------------------------===//
#include "Overwrites.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace ccc {

// A function of this module that calls nothing but intrinsics and functions
// that only read memory (or are such functions themselves): it can neither
// free memory nor take a checkpoint.
static bool isLeaf(const Function &F, unsigned Depth = 0) {
  if (F.isDeclaration() || Depth > 4)
    return false;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        const Function *Callee = CB->getCalledFunction();
        if (CB->isInlineAsm() || !Callee)
          return false;
        if (Callee->isIntrinsic() || Callee->onlyReadsMemory())
          continue;
        if (!isLeaf(*Callee, Depth + 1))
          return false;
      }
  return true;
}

// A call that gets the object's address as an argument the callee does not
// capture, of a leaf function: it may read (and write) the object during
// the call only, and neither frees it nor checkpoints meanwhile.
static bool isLeafCallTaking(const CallBase &CB, const Value *V) {
  const Function *Callee = CB.getCalledFunction();
  if (!Callee || CB.getCalledOperand() == V || !isLeaf(*Callee))
    return false;
  for (unsigned I = 0; I < CB.arg_size(); ++I)
    if (CB.getArgOperand(I) == V &&
        (I >= Callee->arg_size() ||
         !Callee->hasParamAttribute(I, Attribute::NoCapture)))
      return false;
  return true;
}

// A blocking MPI call (C binding) that gets V as a buffer: MPI uses the
// buffer during the call only (the standard lets a program reuse or free it
// once the call returns) and a call never checkpoints, so like a leaf call
// it is an access of the object, counted as a read (a receive writes, but
// never counts as a whole overwrite).
static bool isBlockingMPICallTaking(const CallBase &CB, const Value *V) {
  const Function *Callee = CB.getCalledFunction();
  if (!Callee || CB.getCalledOperand() == V)
    return false;
  static const char *const Blocking[] = {
      "MPI_Send",      "MPI_Ssend",         "MPI_Bsend",
      "MPI_Rsend",     "MPI_Recv",          "MPI_Sendrecv",
      "MPI_Sendrecv_replace", "MPI_Bcast",  "MPI_Reduce",
      "MPI_Allreduce", "MPI_Gather",        "MPI_Gatherv",
      "MPI_Scatter",   "MPI_Scatterv",      "MPI_Allgather",
      "MPI_Allgatherv", "MPI_Alltoall",     "MPI_Alltoallv",
      "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan",
      "MPI_Exscan"};
  return llvm::is_contained(Blocking, Callee->getName());
}

// The family of pointers being followed (collectFamilyAccesses): values
// derived from its roots, and its phis.
struct Family {
  SmallPtrSet<const Value *, 8> Roots;
  SmallPtrSet<const PHINode *, 8> Phis;
  SmallVector<const Value *, 8> PhiWork;
};

static bool collect(const Value *V, ObjectAccesses &A, StringRef FreeName,
                    bool IsBase, unsigned Depth, Family *Fam = nullptr) {
  if (Depth > 8)
    return false;
  for (const Use &U : V->uses()) {
    const User *Usr = U.getUser();
    if (auto *CE = dyn_cast<ConstantExpr>(Usr)) {
      if ((CE->getOpcode() != Instruction::GetElementPtr && !CE->isCast()) ||
          CE->getOpcode() == Instruction::PtrToInt ||
          !collect(CE, A, FreeName, false, Depth + 1))
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
      if (MI->getRawDest() == V && U.getOperandNo() == 0)
        A.Writes.push_back(const_cast<MemIntrinsic *>(MI));
      else if (isa<MemTransferInst>(MI) && U.getOperandNo() == 1)
        A.Reads.insert(MI);
      else
        return false;
    } else if (auto *II = dyn_cast<IntrinsicInst>(I);
               II && II->isLifetimeStartOrEnd()) {
      continue;
    } else if (auto *CB = dyn_cast<CallBase>(I)) {
      const Function *Callee = CB->getCalledFunction();
      if (IsBase && !FreeName.empty() && Callee &&
          Callee->getName() == FreeName && CB->arg_size() == 1 &&
          CB->getArgOperand(0) == V)
        A.Frees.push_back(const_cast<CallBase *>(CB));
      else if (isLeafCallTaking(*CB, V) || isBlockingMPICallTaking(*CB, V))
        A.Reads.insert(CB); // and maybe writes: never a whole overwrite
      else
        return false;
    } else if (isa<ICmpInst>(I)) {
      continue;
    } else if (isa<GetElementPtrInst, BitCastInst, AddrSpaceCastInst>(I)) {
      if (!collect(I, A, FreeName, false, Depth + 1, Fam))
        return false;
    } else if (auto *Phi = dyn_cast<PHINode>(I); Phi && Fam) {
      // A root is followed on its own; another phi joins family pointers
      // (checked once all are known) and is followed later.
      if (!Fam->Roots.count(Phi) && Fam->Phis.insert(Phi).second)
        Fam->PhiWork.push_back(Phi);
    } else {
      return false; // a call argument, phi, select, ptrtoint, ...
    }
  }
  return true;
}

bool collectAccesses(const Value *Base, ObjectAccesses &A,
                     StringRef FreeName) {
  return collect(Base, A, FreeName, /*IsBase=*/true, 0);
}

// The base pointer a family value derives from through GEPs and casts.
static const Value *familyBase(const Value *V) {
  for (unsigned Depth = 0; Depth < 16; ++Depth) {
    if (auto *GEP = dyn_cast<GEPOperator>(V))
      V = GEP->getPointerOperand();
    else if (auto *C = dyn_cast<BitCastOperator>(V))
      V = C->getOperand(0);
    else if (auto *C = dyn_cast<AddrSpaceCastOperator>(V))
      V = C->getOperand(0);
    else
      return V;
  }
  return nullptr;
}

bool collectFamilyAccesses(ArrayRef<const Value *> Roots,
                           SmallVectorImpl<ObjectAccesses> &ByRoot,
                           StringRef FreeName) {
  Family Fam;
  for (const Value *R : Roots)
    Fam.Roots.insert(R);
  ByRoot.resize(Roots.size() + 1);
  for (unsigned I = 0; I < Roots.size(); ++I)
    if (!collect(Roots[I], ByRoot[I], FreeName, /*IsBase=*/true, 0, &Fam))
      return false;
  // Phis joining family pointers (exit values, a pointer moved along): their
  // accesses may reach either object.
  while (!Fam.PhiWork.empty()) {
    const Value *Phi = Fam.PhiWork.pop_back_val();
    if (!collect(Phi, ByRoot[Roots.size()], FreeName, /*IsBase=*/true, 0,
                 &Fam))
      return false;
  }
  for (const PHINode *Phi : Fam.Phis)
    for (const Value *In : Phi->incoming_values()) {
      const Value *B = familyBase(In);
      if (!B || (!Fam.Roots.count(B) &&
                 !(isa<PHINode>(B) && Fam.Phis.count(cast<PHINode>(B)))))
        return false; // it also joins a pointer from elsewhere
    }
  return true;
}

OverwriteFlow::OverwriteFlow(Function &F, const Value &Base, const SCEV *Size,
                             const ObjectAccesses &A,
                             function_ref<bool(const CallBase &)> IsSite,
                             bool NestMayHoldSites, DominatorTree &DT,
                             LoopInfo &LI, ScalarEvolution &SE)
    : F(F), Base(Base), Size(Size), A(A), IsSite(IsSite),
      NestMayHoldSites(NestMayHoldSites), DL(F.getParent()->getDataLayout()),
      DT(DT), LI(LI), SE(SE) {
  if (Size)
    this->Size = toI64(Size);
  findKills();
}

bool OverwriteFlow::rangeKill(const SCEV *&Off, const SCEV *&Width) const {
  if (Size || KillRanges.size() != 1 || !KillInsts.empty())
    return false;
  Off = KillRanges.front().Off;
  Width = KillRanges.front().Width;
  return true;
}

const SCEV *OverwriteFlow::toI64(const SCEV *S) const {
  Type *I64 = Type::getInt64Ty(F.getContext());
  if (S->getType()->isPointerTy())
    return S;
  return SE.getTruncateOrZeroExtend(S, I64);
}

bool OverwriteFlow::isBase(const SCEV *S) const {
  return SE.getMinusSCEV(S, SE.getSCEV(const_cast<Value *>(&Base)))->isZero();
}

// L is an innermost loop and Stores its stores run on every iteration.
Loop *OverwriteFlow::nestCovering(Loop *L, ArrayRef<StoreInst *> Stores) {
  struct Piece {
    int64_t Off;
    uint64_t Size;
  };
  SmallVector<Piece, 8> Pieces;
  const SCEV *Start = nullptr;
  const APInt *Step = nullptr;
  for (StoreInst *S : Stores) {
    TypeSize ES = DL.getTypeStoreSize(S->getValueOperand()->getType());
    auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(S->getPointerOperand()));
    if (ES.isScalable() || !AR || AR->getLoop() != L || !AR->isAffine())
      continue;
    auto *C = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
    if (!C || (Step && C->getAPInt() != *Step))
      continue;
    if (!Start) {
      Start = AR->getStart();
      Step = &C->getAPInt();
    }
    auto *D = dyn_cast<SCEVConstant>(SE.getMinusSCEV(AR->getStart(), Start));
    if (D && D->getAPInt().getSignificantBits() <= 32)
      Pieces.push_back({D->getAPInt().getSExtValue(), ES.getFixedValue()});
  }
  if (Pieces.empty() || Step->isNegative() || Step->isZero() ||
      Step->getActiveBits() > 32)
    return nullptr;
  // The block starts at the lowest piece and must be Step bytes long.
  llvm::sort(Pieces,
             [](const Piece &X, const Piece &Y) { return X.Off < Y.Off; });
  int64_t Lo = Pieces.front().Off, End = Lo;
  for (const Piece &P : Pieces) {
    if (P.Off > End)
      break;
    End = std::max<int64_t>(End, P.Off + (int64_t)P.Size);
  }
  if (End - Lo < (int64_t)Step->getZExtValue())
    return nullptr;
  Type *I64 = Type::getInt64Ty(F.getContext());
  const SCEV *Width = SE.getConstant(I64, Step->getZExtValue());
  const SCEV *Cur = SE.getAddExpr(
      Start, SE.getConstant(SE.getEffectiveSCEVType(Start->getType()), Lo));
  for (const BasicBlock *Inner = nullptr; L;
       Inner = L->getHeader(), L = L->getParentLoop()) {
    if (Inner) { // an outer loop: its recurrence moves the inner block
      auto *AR = dyn_cast<SCEVAddRecExpr>(Cur);
      if (!AR || AR->getLoop() != L || !AR->isAffine() ||
          !SE.getMinusSCEV(toI64(AR->getStepRecurrence(SE)), Width)->isZero())
        return nullptr;
      Cur = AR->getStart();
    }
    // Entered, the loop runs all its iterations, and each one runs the
    // stores (or the inner loop).
    BasicBlock *Latch = L->getLoopLatch();
    if (!Latch || L->getExitingBlock() != Latch ||
        (Inner && !DT.dominates(Inner, Latch)))
      return nullptr;
    const SCEV *Taken = SE.getExitCount(L, Latch);
    if (isa<SCEVCouldNotCompute>(Taken))
      return nullptr;
    const SCEV *Trips = SE.getAddExpr(toI64(Taken), SE.getConstant(I64, 1));
    Width = SE.getMulExpr(Width, Trips);
    if (!Size) {
      // Range mode: the nest writes [Base + Off, + Width) with Off and
      // Width fixed outside it.
      const SCEV *Off = SE.getMinusSCEV(Cur, SE.getSCEV(const_cast<Value *>(&Base)));
      auto Varies = [](const SCEV *X) { return isa<SCEVAddRecExpr>(X); };
      if (!isa<SCEVCouldNotCompute>(Off) && !SCEVExprContains(Off, Varies) &&
          !SCEVExprContains(Width, Varies)) {
        KillRanges.push_back({toI64(Off), Width});
        return L;
      }
      continue;
    }
    if (isBase(Cur))
      return SE.isKnownPredicate(ICmpInst::ICMP_UGE, Width, Size) ? L
                                                                   : nullptr;
  }
  return nullptr;
}

bool OverwriteFlow::nestIsClean(const Loop *L) const {
  for (const BasicBlock *BB : L->blocks())
    for (const Instruction &I : *BB) {
      if (A.Reads.count(&I))
        return false;
      if (auto *CB = dyn_cast<CallBase>(&I);
          CB && !NestMayHoldSites && IsSite(*CB))
        return false;
    }
  return true;
}

void OverwriteFlow::findKills() {
  MapVector<Loop *, SmallVector<StoreInst *, 4>> LoopStores;
  for (Instruction *W : A.Writes) {
    if (W->getFunction() != &F)
      continue;
    if (auto *S = dyn_cast<StoreInst>(W)) {
      TypeSize SS = DL.getTypeStoreSize(S->getValueOperand()->getType());
      if (Size && !SS.isScalable() &&
          isBase(SE.getSCEV(S->getPointerOperand())) &&
          SE.isKnownPredicate(
              ICmpInst::ICMP_UGE,
              SE.getConstant(Type::getInt64Ty(F.getContext()),
                             SS.getFixedValue()),
              Size)) {
        KillInsts.insert(S);
        continue;
      }
      // A loop's stores that run on every iteration.
      Loop *L = LI.getLoopFor(S->getParent());
      if (L && S->isSimple() && L->getLoopLatch() &&
          DT.dominates(S->getParent(), L->getLoopLatch()))
        LoopStores[L].push_back(S);
    } else if (auto *MI = dyn_cast<MemIntrinsic>(W)) {
      if (Size && isBase(SE.getSCEV(MI->getRawDest())) &&
          SE.isKnownPredicate(ICmpInst::ICMP_UGE,
                              toI64(SE.getSCEV(MI->getLength())), Size))
        KillInsts.insert(MI);
    }
  }
  // The guard of an overwrite (a rotated loop's `if (n > 0)`, or a memset
  // under one): a conditional branch that is the only way into the block
  // that leads to it.
  auto NoteGuard = [&](const BasicBlock *Into) {
    if (const BasicBlock *GB = Into->getSinglePredecessor())
      if (auto *Br = dyn_cast<BranchInst>(GB->getTerminator());
          Br && Br->isConditional() && isa<ICmpInst>(Br->getCondition()) &&
          Br->getSuccessor(0) != Br->getSuccessor(1))
        GuardedKill[GB] = Into;
  };
  for (const Instruction *K : KillInsts)
    NoteGuard(K->getParent());
  for (auto &[L, Stores] : LoopStores) {
    Loop *Nest = nestCovering(L, Stores);
    BasicBlock *PH = Nest ? Nest->getLoopPreheader() : nullptr;
    if (!PH || !nestIsClean(Nest)) {
      if (Nest && !Size)
        KillRanges.pop_back();
      continue;
    }
    KillHeaders.insert(Nest->getHeader());
    NoteGuard(PH);
  }
}

bool OverwriteFlow::stableAt(const Value *V, const Instruction *Anchor) const {
  if (isa<Constant, Argument>(V))
    return true;
  auto *I = dyn_cast<Instruction>(V);
  return I && !LI.getLoopFor(I->getParent()) && DT.dominates(I, Anchor);
}

bool OverwriteFlow::deadFrom(const Instruction *From, const Instruction *Anchor,
                             SmallVectorImpl<GuardAssumption> *Assume) {
  SmallPtrSet<const BasicBlock *, 32> Seen;
  SmallVector<const Instruction *, 16> Work;
  bool HitBarrier = false;
  // Loop nests that overwrite the object are entered only through their
  // preheader, so reaching their header from outside is a whole overwrite.
  auto Follow = [&](const BasicBlock *BB, const BasicBlock *To) {
    if (KillHeaders.count(To) && !LI.getLoopFor(To)->contains(BB))
      return;
    if (Barriers.count(To))
      HitBarrier = true;
    if (Seen.insert(To).second)
      Work.push_back(&To->front());
  };
  auto FollowSuccessors = [&](const BasicBlock *BB) {
    auto G = GuardedKill.find(BB);
    if (G != GuardedKill.end() && Assume) {
      auto *Br = cast<BranchInst>(BB->getTerminator());
      auto *Cond = cast<ICmpInst>(Br->getCondition());
      if (stableAt(Cond->getOperand(0), Anchor) &&
          stableAt(Cond->getOperand(1), Anchor)) {
        Assume->push_back({Cond, Br->getSuccessor(0) == G->second});
        Follow(BB, G->second);
        return;
      }
    }
    for (const BasicBlock *S : successors(BB))
      Follow(BB, S);
  };
  Work.push_back(From);
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
    if (!Killed)
      FollowSuccessors(I->getParent());
    if (HitBarrier)
      return false;
  }
  return true;
}

} // namespace ccc

//===- Overwrites.cpp - Where an object is overwritten whole --------------===//
//
// Whole overwrites are a store or memset/memcpy/memmove covering the object,
// or a loop nest that writes every byte of it each time it runs: per
// iteration of its innermost loop a block (stores side by side, or the
// interleaved stores of a vectorized loop, or one memcpy/memset whose
// length is the distance it moves by), and the loops of the nest moving
// that block so that together they tile the object: one loop moves the
// block by its width, another the result by its width, and so on, in any
// order of nesting (a transpose writes with its innermost loop striding).
// Every loop has one exit (its latch) and a computable trip count, runs its
// inner loop on every iteration (or under a guard that does not change in
// it, which the proof then assumes), and the nest reads nothing of the
// object. Scalar evolution gives the addresses and trip counts, so the
// extents may be symbolic (n elements of a malloc(n * 8)); where the tiling
// hangs on strides the pass cannot relate (NY = NYl * size), the last loop
// is assumed to fit and the equality is checked at run time. A collective
// that fills its receive buffer (MPI_Alltoall, MPI_Allgather,
// MPI_Allreduce) overwrites the range its count, predefined datatype and
// communicator size give.
//
//===----------------------------------------------------------------------===//
#include "Overwrites.h"

#include "ccc/abi.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace ccc {

bool isSlowPath(const Instruction &I) {
  auto *CI = dyn_cast<CallInst>(&I);
  const Function *F = CI ? CI->getCalledFunction() : nullptr;
  return F && F->getName() == CCC_SLOW_PATH;
}

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
         !Callee->getArg(I)->hasNoCaptureAttr()))
      return false;
  return true;
}

// A blocking MPI call (C binding, or the Fortran one: mpi_send_) that gets
// V as a buffer: MPI uses the
// buffer during the call only (the standard lets a program reuse or free it
// once the call returns) and a call never checkpoints, so like a leaf call
// it is an access of the object, counted as a read (a receive writes, but
// only the receive buffer of a filling collective counts as an overwrite).
static bool isBlockingMPICallTaking(const CallBase &CB, const Value *V) {
  const Function *Callee = CB.getCalledFunction();
  if (!Callee || CB.getCalledOperand() == V)
    return false;
  // clang-format off
  static const char *const Blocking[] = {
      "MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Recv",
      "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Bcast", "MPI_Reduce",
      "MPI_Allreduce", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter",
      "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall",
      "MPI_Alltoallv", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block",
      "MPI_Scan", "MPI_Exscan"};
  // clang-format on
  StringRef N = Callee->getName();
  if (N.starts_with("mpi_") && N.ends_with("_"))
    N = N.drop_back();
  return llvm::any_of(Blocking,
                      [&](const char *B) { return N.equals_insensitive(B); });
}

// Collectives that write their whole receive buffer and do not read it
// (C binding; argument 3 the receive buffer, 4 its count per rank or in
// all, 5 its datatype, 6 or 5 the communicator). An in-place call (the send
// buffer MPI_IN_PLACE, a constant address) reads it too.
struct FillingCollective {
  const char *Name;
  unsigned Buf, Count, Type, Comm;
  bool PerRank; // Count elements from each rank of Comm
};
static const FillingCollective *fillingCollective(const CallBase &CB) {
  static const FillingCollective Known[] = {
      {"MPI_Alltoall", 3, 4, 5, 6, true},
      {"MPI_Allgather", 3, 4, 5, 6, true},
      {"MPI_Allreduce", 1, 2, 3, 5, false}};
  const Function *Callee = CB.getCalledFunction();
  if (!Callee)
    return nullptr;
  for (const FillingCollective &C : Known)
    if (Callee->getName() == C.Name && CB.arg_size() == C.Comm + 1)
      return &C;
  return nullptr;
}

static bool isCollectiveFilling(const CallBase &CB, unsigned ArgNo) {
  const FillingCollective *C = fillingCollective(CB);
  return C && ArgNo == C->Buf && !isa<Constant>(CB.getArgOperand(0));
}

// The bytes of one element of a predefined MPI datatype given as a
// constant: Open MPI's are addresses of globals named for them, MPICH's
// builtin handles carry the size in bits 8-15. 0 if unknown.
static uint64_t predefinedTypeSize(const Value *T) {
  if (auto *CI = dyn_cast<ConstantInt>(T)) { // MPICH: int handles
    uint64_t H = CI->getZExtValue();
    bool Builtin = (H >> 30) == 1 && ((H >> 26) & 0xf) == 3;
    return Builtin ? (H >> 8) & 0xff : 0;
  }
  auto *G = dyn_cast<GlobalVariable>(T->stripPointerCasts());
  if (!G)
    return 0;
  static const std::pair<const char *, uint64_t> OpenMPI[] = {
      {"ompi_mpi_char", 1},
      {"ompi_mpi_signed_char", 1},
      {"ompi_mpi_unsigned_char", 1},
      {"ompi_mpi_byte", 1},
      {"ompi_mpi_short", 2},
      {"ompi_mpi_unsigned_short", 2},
      {"ompi_mpi_int", 4},
      {"ompi_mpi_unsigned", 4},
      {"ompi_mpi_long", 8},
      {"ompi_mpi_unsigned_long", 8},
      {"ompi_mpi_long_long_int", 8},
      {"ompi_mpi_unsigned_long_long", 8},
      {"ompi_mpi_float", 4},
      {"ompi_mpi_double", 8},
      {"ompi_mpi_int8_t", 1},
      {"ompi_mpi_uint8_t", 1},
      {"ompi_mpi_int16_t", 2},
      {"ompi_mpi_uint16_t", 2},
      {"ompi_mpi_int32_t", 4},
      {"ompi_mpi_uint32_t", 4},
      {"ompi_mpi_int64_t", 8},
      {"ompi_mpi_uint64_t", 8},
      {"ompi_mpi_c_float_complex", 8},
      {"ompi_mpi_c_double_complex", 16}};
  for (const auto &[Name, Bytes] : OpenMPI)
    if (G->getName() == Name)
      return Bytes;
  return 0;
}

// The size of communicator Comm as a value read at or before At: the
// local that MPI_Comm_size(Comm, &local) alone writes (ccc-mpi-facts reads
// it once after the call), read by a load that the call and At dominate.
static const SCEV *commSize(const Value *Comm, const Instruction &At,
                            const DominatorTree &DT, ScalarEvolution &SE) {
  const Function *F = At.getFunction();
  for (const BasicBlock &BB : *F)
    for (const Instruction &I : BB) {
      auto *CB = dyn_cast<CallBase>(&I);
      const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
      if (!Callee || Callee->getName() != "MPI_Comm_size" ||
          CB->arg_size() != 2 || CB->getArgOperand(0) != Comm ||
          !DT.dominates(CB, &At))
        continue;
      auto *Local = dyn_cast<AllocaInst>(CB->getArgOperand(1));
      if (!Local || !Local->getAllocatedType()->isIntegerTy(32))
        continue;
      const LoadInst *Read = nullptr;
      bool OnlyWriter = true;
      for (const User *U : Local->users()) {
        if (U == CB)
          continue;
        if (auto *II = dyn_cast<IntrinsicInst>(U);
            II && II->isLifetimeStartOrEnd())
          continue;
        auto *L = dyn_cast<LoadInst>(U);
        if (!L || !L->isSimple() || L->getType() != Local->getAllocatedType()) {
          OnlyWriter = false;
          break;
        }
        if (DT.dominates(CB, L) && DT.dominates(L, &At))
          Read = L;
      }
      if (OnlyWriter && Read && llvm::count(CB->args(), Local) == 1)
        return SE.getSignExtendExpr(SE.getSCEV(const_cast<LoadInst *>(Read)),
                                    Type::getInt64Ty(F->getContext()));
    }
  return nullptr;
}

// The family of pointers being followed (collectFamilyAccesses): values
// derived from its roots, and its phis.
struct Family {
  SmallPtrSet<const Value *, 8> Roots;
  SmallPtrSet<const PHINode *, 8> Phis;
  SmallVector<const Value *, 8> PhiWork;
};

static bool collect(const Value *V, ObjectAccesses &A, StringRef FreeName,
                    bool IsBase, unsigned Depth, Family *Fam = nullptr,
                    const Value *Holder = nullptr) {
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
      if (IsBase && Holder && SI->getValueOperand() == V &&
          SI->getPointerOperand() == Holder)
        continue; // into the cell that keeps it
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
      else if (isCollectiveFilling(*CB, U.getOperandNo()))
        A.Writes.push_back(const_cast<CallBase *>(CB)); // whole, see written
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

bool collectAccesses(const Value *Base, ObjectAccesses &A, StringRef FreeName,
                     const Value *Holder) {
  return collect(Base, A, FreeName, /*IsBase=*/true, 0, nullptr, Holder);
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
    if (!collect(Phi, ByRoot[Roots.size()], FreeName, /*IsBase=*/true, 0, &Fam))
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
                             LoopInfo &LI, ScalarEvolution &SE,
                             bool RangeFixedInNest)
    : F(F), Base(Base), Size(Size), A(A), IsSite(IsSite),
      NestMayHoldSites(NestMayHoldSites), RangeFixedInNest(RangeFixedInNest),
      DL(F.getParent()->getDataLayout()), DT(DT), LI(LI), SE(SE) {
  if (Size)
    this->Size = toI64(Size);
  findKills();
}

bool OverwriteFlow::rangeKill(const SCEV *&Off, const SCEV *&Width,
                              SmallVectorImpl<SCEVPair> &Checks) const {
  if (Size || KillRanges.empty())
    return false;
  const KillRange &First = KillRanges.front();
  for (const KillRange &R : KillRanges) {
    if (!SE.getMinusSCEV(R.Off, First.Off)->isZero() ||
        !SE.getMinusSCEV(R.Width, First.Width)->isZero())
      return false;
    Checks.append(R.Checks.begin(), R.Checks.end());
  }
  Off = First.Off;
  Width = First.Width;
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

// The address and bytes a store, memset/memcpy/memmove or collective
// filling its receive buffer writes (null if unknown).
static std::pair<const Value *, const SCEV *> written(const Instruction *W,
                                                      const DataLayout &DL,
                                                      ScalarEvolution &SE,
                                                      const DominatorTree &DT) {
  Type *I64 = Type::getInt64Ty(W->getContext());
  if (auto *CB = dyn_cast<CallBase>(W); CB && !isa<MemIntrinsic>(CB)) {
    const FillingCollective *C = fillingCollective(*CB);
    uint64_t Elem = C ? predefinedTypeSize(CB->getArgOperand(C->Type)) : 0;
    if (!Elem)
      return {nullptr, nullptr};
    const SCEV *Bytes = SE.getMulExpr(
        SE.getSignExtendExpr(SE.getSCEV(CB->getArgOperand(C->Count)), I64),
        SE.getConstant(I64, Elem));
    if (C->PerRank) {
      const SCEV *Ranks = commSize(CB->getArgOperand(C->Comm), *CB, DT, SE);
      if (!Ranks)
        return {nullptr, nullptr};
      Bytes = SE.getMulExpr(Bytes, Ranks);
    }
    return {CB->getArgOperand(C->Buf), Bytes};
  }
  if (auto *S = dyn_cast<StoreInst>(W)) {
    TypeSize Bytes = DL.getTypeStoreSize(S->getValueOperand()->getType());
    if (Bytes.isScalable())
      return {nullptr, nullptr};
    return {S->getPointerOperand(), SE.getConstant(I64, Bytes.getFixedValue())};
  }
  auto *MI = cast<MemIntrinsic>(W);
  return {MI->getRawDest(),
          SE.getTruncateOrZeroExtend(SE.getSCEV(MI->getLength()), I64)};
}

// The block that each iteration of the innermost loop L writes: the writes
// (run on every iteration) that move by the same Step, side by side from
// Start, Block bytes; or one memset/memcpy whose length is Step (symbolic).
bool OverwriteFlow::innerBlock(Loop *L, ArrayRef<Instruction *> Writes,
                               const SCEV *&Start, const SCEV *&Step,
                               const SCEV *&Block) const {
  struct Piece {
    int64_t Off;
    uint64_t Size;
  };
  SmallVector<Piece, 8> Pieces;
  Start = Step = nullptr;
  for (const Instruction *W : Writes) {
    auto [Addr, Bytes] = written(W, DL, SE, DT);
    auto *AR =
        Addr ? dyn_cast<SCEVAddRecExpr>(SE.getSCEV(const_cast<Value *>(Addr)))
             : nullptr;
    if (!AR || AR->getLoop() != L || !AR->isAffine())
      continue;
    const SCEV *S = toI64(AR->getStepRecurrence(SE));
    auto *C = dyn_cast<SCEVConstant>(Bytes);
    if (!C) { // a block copy per iteration, of the length it moves by
      if (!SE.getMinusSCEV(S, Bytes)->isZero() || !Pieces.empty())
        continue;
      Start = AR->getStart();
      Step = Block = S;
      return true;
    }
    if (Step && S != Step)
      continue;
    if (!Start) {
      Start = AR->getStart();
      Step = S;
    }
    auto *D = dyn_cast<SCEVConstant>(SE.getMinusSCEV(AR->getStart(), Start));
    if (D && D->getAPInt().getSignificantBits() <= 32 &&
        C->getAPInt().getActiveBits() <= 32)
      Pieces.push_back(
          {D->getAPInt().getSExtValue(), C->getAPInt().getZExtValue()});
  }
  if (Pieces.empty())
    return false;
  // The block starts at the lowest piece and runs as far as they touch; a
  // longer block than the step is the step (the next iteration's block).
  llvm::sort(Pieces,
             [](const Piece &X, const Piece &Y) { return X.Off < Y.Off; });
  int64_t Lo = Pieces.front().Off, End = Lo;
  for (const Piece &P : Pieces) {
    if (P.Off > End)
      break;
    End = std::max<int64_t>(End, P.Off + (int64_t)P.Size);
  }
  Type *I64 = Type::getInt64Ty(F.getContext());
  Block = SE.getConstant(I64, End - Lo);
  if (auto *C = dyn_cast<SCEVConstant>(Step)) {
    if (C->getAPInt().isNegative() || C->isZero())
      return false;
    if (End - Lo >= C->getAPInt().getSExtValue())
      Block = Step;
  }
  Start = SE.getAddExpr(
      Start, SE.getConstant(SE.getEffectiveSCEVType(Start->getType()), Lo));
  return true;
}

namespace {
// One loop of a nest: how far it moves the block, and how many times.
struct Dim {
  const SCEV *Stride, *Trips;
};
} // namespace

// The bytes a nest with these loops writes from its lowest address when
// its blocks tile a range: some loop moves the block by its own width, the
// next the result by its width, and so on, in any order of nesting (a
// transpose writes with its innermost loop striding). When no loop left
// provably fits and Checks is given, the last loop's stride may be assumed
// to fit (a pair in Checks); with Many, the innermost one's whenever none
// fits (a 3-D grid whose extents are read from a flang descriptor gets
// two). Null otherwise.
static const SCEV *coverage(const SCEV *Block, ArrayRef<Dim> Dims,
                            ScalarEvolution &SE,
                            SmallVectorImpl<SCEVPair> *Checks,
                            bool Many = false) {
  SmallVector<Dim, 4> Left(Dims.begin(), Dims.end());
  const SCEV *Width = Block;
  while (!Left.empty()) {
    auto *It = llvm::find_if(Left, [&](const Dim &D) {
      return SE.getMinusSCEV(D.Stride, Width)->isZero();
    });
    if (It == Left.end()) {
      if (!Checks || (Left.size() != 1 && !Many))
        return nullptr;
      // A check that cannot hold (constant strides that do not chain: rows
      // with ghost cells between them) leaves nothing to check.
      if (SE.isKnownPredicate(ICmpInst::ICMP_NE, Left.front().Stride, Width))
        return nullptr;
      Checks->push_back({Left.front().Stride, Width});
      It = Left.begin();
    }
    Width = SE.getMulExpr(Width, It->Trips);
    Left.erase(It);
  }
  return Width;
}

// L is an innermost loop and Writes its writes of the object that run on
// every iteration. The loop nest around it that writes the object whole
// (or, in range mode, a range fixed outside the nest), or null.
Loop *OverwriteFlow::nestCovering(Loop *L, ArrayRef<Instruction *> Writes) {
  const SCEV *Cur, *Step, *Block;
  if (!innerBlock(L, Writes, Cur, Step, Block))
    return nullptr;
  Type *I64 = Type::getInt64Ty(F.getContext());
  SmallVector<Dim, 4> Dims;
  SmallVector<GuardAssumption, 2> Guards;
  for (Loop *Inner = nullptr; L; Inner = L, L = L->getParentLoop()) {
    if (Inner) { // an outer loop: its recurrence moves the inner block
      auto *AR = dyn_cast<SCEVAddRecExpr>(Cur);
      if (!AR || AR->getLoop() != L || !AR->isAffine())
        return nullptr;
      Step = toI64(AR->getStepRecurrence(SE));
      Cur = AR->getStart();
    }
    // Entered, the loop runs all its iterations, and each one runs the
    // writes (or the inner loop, maybe under a guard that does not change
    // in the loop: then the guard must hold).
    BasicBlock *Latch = L->getLoopLatch();
    if (!Latch || L->getExitingBlock() != Latch)
      return nullptr;
    if (Inner && !DT.dominates(Inner->getHeader(), Latch)) {
      // The branch that enters the inner loop (from its predecessor, or
      // from the block before a preheader).
      BasicBlock *IP = Inner->getLoopPredecessor(), *To = Inner->getHeader();
      auto *Br = IP ? dyn_cast<BranchInst>(IP->getTerminator()) : nullptr;
      if (Br && !Br->isConditional()) {
        To = IP;
        IP = IP->getSinglePredecessor();
        Br = IP ? dyn_cast<BranchInst>(IP->getTerminator()) : nullptr;
      }
      auto *Cond = Br && Br->isConditional()
                       ? dyn_cast<ICmpInst>(Br->getCondition())
                       : nullptr;
      if (!Cond || Br->getSuccessor(0) == Br->getSuccessor(1) ||
          !L->contains(IP) || !DT.dominates(IP, Latch) ||
          !L->isLoopInvariant(Cond))
        return nullptr;
      Guards.push_back({Cond, Br->getSuccessor(0) == To});
    }
    const SCEV *Taken = SE.getExitCount(L, Latch);
    if (isa<SCEVCouldNotCompute>(Taken))
      return nullptr;
    Dims.push_back({Step, SE.getAddExpr(toI64(Taken), SE.getConstant(I64, 1))});
    if (!Size) {
      // Range mode: the nest writes [Base + Off, + Width) with Off and
      // Width fixed outside it.
      const SCEV *Off =
          SE.getMinusSCEV(Cur, SE.getSCEV(const_cast<Value *>(&Base)));
      if (isa<SCEVCouldNotCompute>(Off) || !fixedFor(Off, L))
        continue;
      KillRange R{toI64(Off), nullptr, {}};
      R.Width = coverage(Block, Dims, SE, &R.Checks, RangeFixedInNest);
      if (!R.Width || !fixedFor(R.Width, L) ||
          !llvm::all_of(R.Checks, [&](const SCEVPair &C) {
            return fixedFor(C.first, L) && fixedFor(C.second, L);
          }))
        return nullptr;
      KillRanges.push_back(std::move(R));
      NestGuards[L->getHeader()] = Guards;
      return L;
    }
    if (isBase(Cur)) {
      const SCEV *Width = coverage(Block, Dims, SE, nullptr);
      if (!Width || !SE.isKnownPredicate(ICmpInst::ICMP_UGE, Width, Size))
        return nullptr;
      NestGuards[L->getHeader()] = Guards;
      return L;
    }
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

// The guards of an overwrite (a rotated loop's `if (n > 0)`, a memset under
// one, the `if (size > 0)` before a nest over the ranks): conditional
// branches above it whose one side, entered from the branch alone (or a
// loop header entered from outside only there), every path to it takes (not a
// side that only skips a loop to a join).
void OverwriteFlow::noteGuards(const BasicBlock *Into) {
  unsigned Depth = 0;
  for (DomTreeNode *N = DT.getNode(Into); N && N->getIDom() && Depth < 16;
       N = N->getIDom(), ++Depth) {
    const BasicBlock *GB = N->getIDom()->getBlock();
    auto *Br = dyn_cast<BranchInst>(GB->getTerminator());
    if (!Br || !Br->isConditional() || !isa<ICmpInst>(Br->getCondition()) ||
        Br->getSuccessor(0) == Br->getSuccessor(1))
      continue;
    for (unsigned I = 0; I < 2; ++I) {
      const BasicBlock *S = Br->getSuccessor(I);
      const Loop *L = LI.getLoopFor(S);
      bool OnlyFromGB =
          S->getSinglePredecessor() == GB ||
          (L && L->getHeader() == S && L->getLoopPredecessor() == GB);
      if (OnlyFromGB && DT.dominates(S, Into))
        GuardedKill.try_emplace(GB, S);
    }
  }
}

void OverwriteFlow::findKills() {
  MapVector<Loop *, SmallVector<Instruction *, 4>> LoopWrites;
  for (Instruction *W : A.Writes) {
    if (W->getFunction() != &F)
      continue;
    auto *S = dyn_cast<StoreInst>(W);
    auto *MI = dyn_cast<MemIntrinsic>(W);
    if ((S && !S->isSimple()) || (MI && MI->isVolatile()))
      continue;
    auto [Addr, Bytes] = written(W, DL, SE, DT);
    if (!Addr)
      continue;
    if (Size && isBase(SE.getSCEV(const_cast<Value *>(Addr))) &&
        SE.isKnownPredicate(ICmpInst::ICMP_UGE, Bytes, Size)) {
      KillInsts.insert(W);
      continue;
    }
    // Range mode: a collective fills a range fixed outside loops.
    if (!Size && isa<CallBase>(W) && !isa<MemIntrinsic>(W)) {
      const SCEV *Off = SE.getMinusSCEV(SE.getSCEV(const_cast<Value *>(Addr)),
                                        SE.getSCEV(const_cast<Value *>(&Base)));
      if (!isa<SCEVCouldNotCompute>(Off) && fixedOutsideLoops(Off) &&
          fixedOutsideLoops(Bytes)) {
        KillRanges.push_back({toI64(Off), Bytes, {}});
        KillInsts.insert(W);
      }
      continue;
    }
    // A loop's writes that run on every iteration.
    Loop *L = LI.getLoopFor(W->getParent());
    if (L && L->getLoopLatch() &&
        DT.dominates(W->getParent(), L->getLoopLatch()))
      LoopWrites[L].push_back(W);
  }
  for (const Instruction *K : KillInsts)
    noteGuards(K->getParent());
  for (auto &[L, Writes] : LoopWrites) {
    Loop *Nest = nestCovering(L, Writes);
    // Entered from one block outside (a preheader, or the guard of a
    // rotated loop before LoopSimplify makes one).
    BasicBlock *PH = Nest ? Nest->getLoopPredecessor() : nullptr;
    if (!PH || !nestIsClean(Nest)) {
      if (Nest && !Size)
        KillRanges.pop_back();
      continue;
    }
    KillHeaders.insert(Nest->getHeader());
    noteGuards(Nest->getHeader());
  }
}

// S has one value in the whole call of the function: no recurrence, and
// every value it reads is defined outside all loops (a value defined in a
// loop may differ between the site and the overwrite, a trip later).
bool OverwriteFlow::fixedOutsideLoops(const SCEV *S) const {
  return !SCEVExprContains(S, [&](const SCEV *X) {
    if (isa<SCEVAddRecExpr>(X))
      return true;
    auto *U = dyn_cast<SCEVUnknown>(X);
    auto *I = U ? dyn_cast<Instruction>(U->getValue()) : nullptr;
    return I && LI.getLoopFor(I->getParent());
  });
}

bool OverwriteFlow::fixedFor(const SCEV *S, const Loop *L) const {
  if (!RangeFixedInNest)
    return fixedOutsideLoops(S);
  return !SCEVExprContains(S, [&](const SCEV *X) {
    if (isa<SCEVAddRecExpr>(X))
      return true;
    auto *U = dyn_cast<SCEVUnknown>(X);
    auto *I = U ? dyn_cast<Instruction>(U->getValue()) : nullptr;
    return I && L->contains(I);
  });
}

bool OverwriteFlow::stableAt(const Value *V, const Instruction *Anchor) const {
  if (isa<Constant, Argument>(V))
    return true;
  auto *I = dyn_cast<Instruction>(V);
  return I && !LI.getLoopFor(I->getParent()) && DT.dominates(I, Anchor);
}

bool OverwriteFlow::deadFrom(const Instruction *From, const Instruction *Anchor,
                             SmallVectorImpl<GuardAssumption> *Assume,
                             function_ref<bool(const Value *)> Stable) {
  SmallPtrSet<const BasicBlock *, 32> Seen;
  SmallVector<const Instruction *, 16> Work;
  bool HitBarrier = false;
  // Loop nests that overwrite the object are entered only through their
  // preheader, so reaching their header from outside is a whole overwrite.
  auto Holds = [&](const GuardAssumption &G) {
    auto Fixed = [&](const Value *V) {
      return stableAt(V, Anchor) || (Stable && Stable(V));
    };
    return Assume && Fixed(G.Cond->getOperand(0)) &&
           Fixed(G.Cond->getOperand(1));
  };
  auto Assumed = [&](const GuardAssumption &G) {
    if (!llvm::is_contained(*Assume, G))
      Assume->push_back(G);
  };
  auto Follow = [&](const BasicBlock *BB, const BasicBlock *To) {
    if (KillHeaders.count(To) && !LI.getLoopFor(To)->contains(BB)) {
      // Its inner guards must hold (and are then assumed), or it is
      // entered as any loop.
      const auto &Guards = NestGuards.lookup(To);
      if (llvm::all_of(Guards, Holds)) {
        llvm::for_each(Guards, Assumed);
        return;
      }
    }
    if (Barriers.count(To))
      HitBarrier = true;
    if (Seen.insert(To).second)
      Work.push_back(&To->front());
  };
  auto FollowSuccessors = [&](const BasicBlock *BB) {
    auto G = GuardedKill.find(BB);
    if (G != GuardedKill.end() && Assume) {
      auto *Br = cast<BranchInst>(BB->getTerminator());
      GuardAssumption Guard{cast<ICmpInst>(Br->getCondition()),
                            Br->getSuccessor(0) == G->second};
      if (Holds(Guard)) {
        Assumed(Guard);
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

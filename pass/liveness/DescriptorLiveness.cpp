//===- DescriptorLiveness.cpp - flang allocatables dead at a site ---------===//
//
// flang keeps an allocatable array's address in a descriptor (a global for
// module and main-program arrays, a local for a procedure's own) and
// reloads it wherever the array is used, so the heap liveness of
// HeapLiveness.cpp, which follows one allocation's address, never sees
// these arrays. This pass names the object by its descriptor instead: O,
// the object descriptor D holds when the site (a call of the slow path, C)
// is executed, is dead over a range at C when
//  1. D's own address goes nowhere but loads of its fields, stores to them
//     (allocate: of a new allocation or null, deallocate) and the Fortran
//     runtime (move_alloc links D with another descriptor: the family of
//     descriptors that pass objects among them), and the address loaded
//     from any descriptor of the family, or an allocation stored there,
//     anywhere in the module, goes nowhere but loads, stores (as the
//     address), blocking MPI calls and a free: no other memory holds O's
//     address, so only code loading it from D reaches O;
//  2. every path from C reaches an overwrite of the range before any
//     access of O, any change of D (a store to it, move_alloc), any call
//     that could run unseen code (an indirect call, an external function
//     that is not a library that never calls back: MPI, the Fortran
//     runtime, ccc's runtime, or one that touches no memory) and, unless C
//     is in the program's main, before returning. The overwrite is a loop
//     nest after C, through an address loaded after C (Overwrites.cpp, range
//     mode), or a call of a function of the module that overwrites the range
//     on every path from its entry, before any access of O (its summary);
//     functions called on the way must not touch D or O at all;
//  3. the range (and the run-time checks the proof needs) is computed from
//     loads of globals that nothing on the way stores to (their address goes
//     nowhere else), so the pass recomputes it right before C.
// Before C the pass adds `__ccc_dead_at_site(O + off, bytes, where)` (bytes
// 0 when a check fails or D holds nothing), as HeapLiveness does. A swapped
// grid (move_alloc(u, tmp); move_alloc(unew, u); move_alloc(tmp, unew)) is
// handled because the overwrite comes before the swap, which is a change of
// D: what unew holds at the site is rewritten before it becomes u's.
//
// A module pass at OptimizerEarly: after inlining, before the loop
// vectorizer splits the loops (which a function pass at VectorizerStart
// would see in callees already processed). Not at -O0.
//
//===----------------------------------------------------------------------===//
#include "Overwrites.h"
#include "pass/CccPasses.h"
#include "pass/Compat.h"

#include "ccc/abi.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#define DEBUG_TYPE "ccc-descriptor-liveness"
STATISTIC(NumDeadAtSite, "Allocatables found dead at a site");

using namespace llvm;
using namespace ccc;

namespace {

bool isSlowPathCall(const CallBase &CB) { return isSlowPath(CB); }

// Returning from it ends the program (flang's main program, C's main).
bool isProgramMain(const Function &F) {
  StringRef N = F.getName();
  return N == "_QQmain" || N == CCC_USER_MAIN || N == "main";
}

// Whether every path from Site to one of Writes passes Load (so that the
// address Load gives is the one D holds after the site).
bool loadedOnEveryPath(const Instruction &Site, const LoadInst &Load,
                       ArrayRef<Instruction *> Writes) {
  const BasicBlock *SB = Site.getParent(), *LB = Load.getParent();
  if (SB == LB && Site.comesBefore(&Load))
    return true;
  SmallPtrSet<const BasicBlock *, 16> WriteBlocks;
  for (const Instruction *W : Writes)
    WriteBlocks.insert(W->getParent());
  if (WriteBlocks.count(SB))
    return false;
  SmallPtrSet<const BasicBlock *, 32> Seen;
  SmallVector<const BasicBlock *, 16> Work(succ_begin(SB), succ_end(SB));
  while (!Work.empty()) {
    const BasicBlock *BB = Work.pop_back_val();
    if (BB == LB || !Seen.insert(BB).second)
      continue;
    if (WriteBlocks.count(BB))
      return false;
    Work.append(succ_begin(BB), succ_end(BB));
  }
  return true;
}

// flang's descriptor of an allocatable or pointer array: the data address,
// element size, version, rank, type, attribute, extra, then per dimension
// {lower bound, extent, byte stride}.
bool isFlangArrayDescriptor(const Type *T) {
  auto *ST = dyn_cast<StructType>(T);
  return ST && ST->getNumElements() == 8 &&
         ST->getElementType(0)->isPointerTy() &&
         isa<ArrayType>(ST->getElementType(7));
}

// A descriptor in memory: a global of flang's (module, main program,
// saved local; or what is left of one when the optimizer splits a
// main-program descriptor that nothing else sees into its fields: a
// global holding the data address alone), or a local of a procedure's own.
bool isDescriptorCell(const Value &V) {
  if (auto *G = dyn_cast<GlobalVariable>(&V))
    return !G->isDeclaration() && G->getName().starts_with("_Q") &&
           (isFlangArrayDescriptor(G->getValueType()) ||
            (G->hasLocalLinkage() && G->getValueType()->isPointerTy()));
  auto *A = dyn_cast<AllocaInst>(&V);
  return A && A->isStaticAlloca() &&
         isFlangArrayDescriptor(A->getAllocatedType());
}

bool isAllocation(const Value &V) {
  auto *CB = dyn_cast<CallBase>(&V);
  const Function *F = CB ? CB->getCalledFunction() : nullptr;
  return F &&
         (F->getName() == "__ccc_malloc" || F->getName() == "__ccc_calloc" ||
          F->getName() == "malloc" || F->getName() == "calloc");
}

// External functions that never run code of the program (no callbacks are
// passed to them here): MPI, the Fortran runtime, ccc's runtime, and
// functions that touch no memory (libm's).
bool isLibrary(const Function &F) {
  StringRef N = F.getName();
  return F.isIntrinsic() || F.doesNotAccessMemory() || N.starts_with("MPI_") ||
         N.starts_with("PMPI_") ||
         (N.starts_with("mpi_") && N.ends_with("_")) ||
         N.starts_with("_Fortran") || N.starts_with("__ccc_");
}

// The global or local (a memory cell) an address lies in at a constant
// offset, or null.
const Value *cellOf(const Value *P, const DataLayout &DL) {
  APInt Off(64, 0);
  const Value *B =
      P->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true);
  return isa<GlobalVariable, AllocaInst>(B) ? B : nullptr;
}

// What the module does with one cell (a global or a local): the loads of
// its first pointer (descriptors: the data address), the allocations
// stored there, and the instructions that may change it.
struct CellUses {
  bool Escapes = false;
  SmallVector<LoadInst *, 8> AddressLoads;
  SmallVector<const Value *, 4> Allocations;
  SmallPtrSet<const Instruction *, 8> Changes;
  SmallVector<std::pair<const Value *, const Value *>, 2> MoveAllocs;
};

void collectCellUses(const Value *V, const DataLayout &DL, CellUses &U,
                     unsigned Depth = 0) {
  if (Depth > 4) {
    U.Escapes = true;
    return;
  }
  for (const Use &Us : V->uses()) {
    const User *Usr = Us.getUser();
    if (auto *CE = dyn_cast<ConstantExpr>(Usr)) {
      if (CE->getOpcode() == Instruction::GetElementPtr || CE->isCast())
        collectCellUses(CE, DL, U, Depth + 1);
      else
        U.Escapes = true;
      continue;
    }
    if (auto *GEP = dyn_cast<GetElementPtrInst>(Usr)) {
      if (GEP->hasAllConstantIndices() && GEP->getPointerOperand() == V)
        collectCellUses(GEP, DL, U, Depth + 1);
      else
        U.Escapes = true;
      continue;
    }
    if (auto *II = dyn_cast<IntrinsicInst>(Usr);
        II && II->isLifetimeStartOrEnd())
      continue;
    if (auto *LI = dyn_cast<LoadInst>(Usr)) {
      APInt Off(64, 0);
      LI->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true);
      if (!LI->isSimple())
        U.Escapes = true;
      else if (Off.isZero() && LI->getType()->isPointerTy())
        U.AddressLoads.push_back(const_cast<LoadInst *>(LI));
      continue;
    }
    if (auto *SI = dyn_cast<StoreInst>(Usr);
        SI && Us.getOperandNo() == SI->getPointerOperandIndex()) {
      U.Changes.insert(SI);
      // The data address: null or a new allocation (which then may be
      // reached through that value too), nothing known elsewhere.
      const Value *Val = SI->getValueOperand();
      APInt Off(64, 0);
      SI->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true);
      if (Val->getType()->isAggregateType())
        U.Escapes = true;
      else if (Off.isZero() && Val->getType()->isPointerTy() &&
               !isa<ConstantPointerNull>(Val)) {
        if (isAllocation(*Val))
          U.Allocations.push_back(Val);
        else
          U.Escapes = true;
      }
      continue;
    }
    if (auto *CB = dyn_cast<CallBase>(Usr); CB && CB->isArgOperand(&Us)) {
      const Function *Callee = CB->getCalledFunction();
      if (!Callee || !Callee->getName().starts_with("_FortranA")) {
        U.Escapes = true;
        continue;
      }
      U.Changes.insert(CB); // allocate, deallocate, assign: any may change it
      if (Callee->getName() == "_FortranAMoveAlloc" && CB->arg_size() >= 2)
        U.MoveAllocs.push_back({CB->getArgOperand(0), CB->getArgOperand(1)});
      continue;
    }
    U.Escapes = true;
  }
}

// A value at the site computed from constants and loads of memory cells
// (globals; locals of the site's function) or, in the site's function,
// values defined before it: readable collects the cells read, clone
// rebuilds the value right before the site.
class SiteValues {
public:
  // Site null: values of a callee, which must be recomputed whole.
  SiteValues(const DataLayout &DL, Instruction *Site = nullptr,
             DominatorTree *SiteDT = nullptr, LoopInfo *SiteLI = nullptr)
      : Site(Site), SiteDT(SiteDT), SiteLI(SiteLI), DL(DL) {}

  bool readable(const Value *V, SmallPtrSetImpl<const Value *> &Gs,
                unsigned Depth = 0) const {
    if (isa<Constant>(V))
      return true;
    auto *I = dyn_cast<Instruction>(V);
    if (!I || Depth > 12)
      return false;
    if (atSite(I))
      return true;
    if (auto *LI = dyn_cast<LoadInst>(I)) {
      // A global at a constant address, or a local of the site's function
      // whose address (a constant offset from it) is there at the site.
      const Value *Ptr = LI->getPointerOperand();
      const Value *G = LI->isSimple() ? cellOf(Ptr, DL) : nullptr;
      auto *A = dyn_cast_or_null<AllocaInst>(G);
      if (!G || (!A && !isa<Constant>(Ptr)))
        return false;
      if (A && (!Site || A->getFunction() != Site->getFunction() ||
                !(Ptr == A || atSite(cast<Instruction>(Ptr)))))
        return false;
      Gs.insert(G);
      return true;
    }
    if (!isa<CastInst, BinaryOperator, ICmpInst, SelectInst>(I))
      return false;
    return llvm::all_of(I->operands(), [&](const Use &Op) {
      return readable(Op.get(), Gs, Depth + 1);
    });
  }

  bool readable(const SCEV *S, SmallPtrSetImpl<const Value *> &Gs) {
    return !SCEVExprContains(S, [&](const SCEV *X) {
      if (isa<SCEVAddRecExpr, SCEVCouldNotCompute>(X))
        return true;
      auto *U = dyn_cast<SCEVUnknown>(X);
      return U && !readable(U->getValue(), Gs);
    });
  }

  Value *clone(Value *V, IRBuilder<> &B) {
    if (isa<Constant>(V))
      return V;
    auto *I = cast<Instruction>(V);
    if (atSite(I))
      return I;
    Value *&Done = Cloned[I];
    if (Done)
      return Done;
    Instruction *New = I->clone();
    for (Use &Op : New->operands())
      if (!isa<LoadInst>(I))
        Op.set(clone(Op.get(), B));
    New->setName(I->getName() + ".ccc");
    B.Insert(New);
    return Done = New;
  }

  Value *expand(const SCEV *S, IRBuilder<> &B) {
    Type *T = S->getType();
    if (auto *C = dyn_cast<SCEVConstant>(S))
      return C->getValue();
    if (auto *U = dyn_cast<SCEVUnknown>(S))
      return clone(U->getValue(), B);
    if (auto *C = dyn_cast<SCEVCastExpr>(S)) {
      Value *Op = expand(C->getOperand(0), B);
      switch (S->getSCEVType()) {
      case scTruncate:
        return B.CreateTrunc(Op, T);
      case scZeroExtend:
        return B.CreateZExt(Op, T);
      case scSignExtend:
        return B.CreateSExt(Op, T);
      default:
        return B.CreatePtrToInt(Op, T);
      }
    }
    if (auto *D = dyn_cast<SCEVUDivExpr>(S))
      return B.CreateUDiv(expand(D->getLHS(), B), expand(D->getRHS(), B));
    auto *N = cast<SCEVNAryExpr>(S);
    Value *R = expand(N->getOperand(0), B);
    for (const SCEV *Op : drop_begin(N->operands())) {
      Value *X = expand(Op, B);
      switch (S->getSCEVType()) {
      case scAddExpr:
        R = B.CreateAdd(R, X);
        break;
      case scMulExpr:
        R = B.CreateMul(R, X);
        break;
      case scSMaxExpr:
        R = B.CreateSelect(B.CreateICmpSGT(R, X), R, X);
        break;
      case scUMaxExpr:
        R = B.CreateSelect(B.CreateICmpUGT(R, X), R, X);
        break;
      case scSMinExpr:
        R = B.CreateSelect(B.CreateICmpSLT(R, X), R, X);
        break;
      default: // umin, sequential umin
        R = B.CreateSelect(B.CreateICmpULT(R, X), R, X);
        break;
      }
    }
    return R;
  }

private:
  // Defined before the site, in its function, outside loops: usable there
  // as it is (a value of a loop may be another one when the overwrite
  // comes a trip later).
  bool atSite(const Instruction *I) const {
    return Site && I->getFunction() == Site->getFunction() &&
           SiteDT->dominates(I, Site) && !SiteLI->getLoopFor(I->getParent());
  }

  Instruction *Site;
  DominatorTree *SiteDT;
  LoopInfo *SiteLI;
  const DataLayout &DL;
  DenseMap<Instruction *, Value *> Cloned;
};

// The range an overwrite proof found: Off and Width (i64, from the object's
// start), checks that must hold at run time, and the guards it assumed.
struct KillProof {
  const SCEV *Off = nullptr, *Width = nullptr;
  SmallVector<SCEVPair, 1> Checks;
  SmallVector<GuardAssumption, 2> Assume;
  SmallPtrSet<const Value *, 8> Globals; // cells read by all of these
};

class Analysis {
public:
  Analysis(Module &M, FunctionAnalysisManager &FAM)
      : M(M), FAM(FAM), DL(M.getDataLayout()) {}
  bool run();

private:
  struct Descriptor {
    Value *G; // the global or local holding it
    CellUses Uses;
    SmallPtrSet<const Instruction *, 16> Accesses; // of its objects
    bool Usable = false;
  };

  CellUses &usesOf(const Value *G);
  // Whether one of Gs may change through its address held elsewhere.
  bool anyEscapes(const SmallPtrSetImpl<const Value *> &Gs) {
    return llvm::any_of(Gs, [&](const Value *G) { return usesOf(G).Escapes; });
  }
  bool touches(const Function &F, const Descriptor &D,
               const SmallPtrSetImpl<const Value *> &Gs,
               SmallPtrSetImpl<const Function *> &Seen);
  void addStops(Function &F, const Descriptor &D,
                const SmallPtrSetImpl<const Value *> &Gs,
                const SmallPtrSetImpl<const Instruction *> &Kills,
                ObjectAccesses &A);
  const KillProof *calleeKill(Function &F, Descriptor &D);
  bool deadAtSite(CallInst &Site, Descriptor &D);
  static std::string place(const Value &G);

  Module &M;
  FunctionAnalysisManager &FAM;
  const DataLayout &DL;
  std::vector<Descriptor> Descriptors;
  DenseMap<const Value *, std::unique_ptr<CellUses>> OtherUses;
  DenseMap<std::pair<Function *, Value *>, std::unique_ptr<KillProof>>
      CalleeKills;
  struct Found {
    CallInst *Site;
    Descriptor *D;
    KillProof P;
  };
  SmallVector<Found, 4> Results;
};

CellUses &Analysis::usesOf(const Value *G) {
  for (Descriptor &D : Descriptors)
    if (D.G == G)
      return D.Uses;
  std::unique_ptr<CellUses> &U = OtherUses[G];
  if (!U) {
    U = std::make_unique<CellUses>();
    collectCellUses(G, DL, *U);
  }
  return *U;
}

// Whether F (or a function it calls) may touch D's object, change D or
// one of Gs, or run code the pass does not see.
bool Analysis::touches(const Function &F, const Descriptor &D,
                       const SmallPtrSetImpl<const Value *> &Gs,
                       SmallPtrSetImpl<const Function *> &Seen) {
  if (F.isDeclaration())
    return !isLibrary(F);
  if (!Seen.insert(&F).second)
    return false; // being checked further up
  for (const Instruction &I : instructions(F)) {
    if (D.Accesses.count(&I) || D.Uses.Changes.count(&I) ||
        llvm::any_of(D.Uses.AddressLoads,
                     [&](const LoadInst *L) { return L == &I; }))
      return true;
    for (const Value *G : Gs)
      if (usesOf(G).Changes.count(&I))
        return true;
    if (auto *CB = dyn_cast<CallBase>(&I)) {
      const Function *Callee = CB->getCalledFunction();
      if (CB->isInlineAsm() || !Callee || touches(*Callee, D, Gs, Seen))
        return true;
    }
  }
  return false;
}

// Makes everything in F that the proof must not pass before an overwrite a
// read in A: accesses of D's objects, changes of D or of Gs, calls that may
// touch them (but the calls in Kills).
void Analysis::addStops(Function &F, const Descriptor &D,
                        const SmallPtrSetImpl<const Value *> &Gs,
                        const SmallPtrSetImpl<const Instruction *> &Kills,
                        ObjectAccesses &A) {
  for (Instruction &I : instructions(F)) {
    if (Kills.count(&I))
      continue;
    bool Stop = D.Uses.Changes.count(&I) ||
                (D.Accesses.count(&I) && !is_contained(A.Writes, &I));
    for (const Value *G : Gs)
      Stop = Stop || usesOf(G).Changes.count(&I);
    if (auto *CB = dyn_cast<CallBase>(&I); CB && !isa<IntrinsicInst>(CB)) {
      SmallPtrSet<const Function *, 8> Seen;
      const Function *Callee = CB->getCalledFunction();
      Stop = Stop || CB->isInlineAsm() || !Callee ||
             (!isSlowPath(I) && touches(*Callee, D, Gs, Seen));
    }
    if (Stop)
      A.Reads.insert(&I);
  }
}

// The proof that F, on every path from its entry, overwrites a range of
// the object D holds at the call before any access of it, change of D or
// return; null if there is none. Computed once per pair.
const KillProof *Analysis::calleeKill(Function &F, Descriptor &D) {
  auto Key = std::make_pair(&F, D.G);
  if (auto It = CalleeKills.find(Key); It != CalleeKills.end())
    return It->second.get(); // null: no proof
  CalleeKills[Key] = nullptr;
  if (F.isDeclaration())
    return nullptr;
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  // The overwriting nest writes through one load of the address (any load
  // here gives the object D holds at the call: a change of D before the
  // nest is a stop); accesses through the others are stops.
  std::unique_ptr<ObjectAccesses> AP;
  std::unique_ptr<OverwriteFlow> FlowP;
  auto P = std::make_unique<KillProof>();
  SmallPtrSet<const Instruction *, 1> NoKills;
  SmallPtrSet<const Value *, 8> Gs;
  for (LoadInst *L : D.Uses.AddressLoads) {
    if (L->getFunction() != &F)
      continue;
    AP = std::make_unique<ObjectAccesses>();
    if (!collectAccesses(L, *AP, "__ccc_free"))
      return nullptr;
    addStops(F, D, Gs, NoKills, *AP); // inside a nest too
    FlowP = std::make_unique<OverwriteFlow>(
        F, *L, /*Size=*/nullptr, *AP, isSlowPathCall,
        /*NestMayHoldSites=*/false, DT, LI, SE, /*RangeFixedInNest=*/true);
    if (FlowP->rangeKill(P->Off, P->Width, P->Checks))
      break;
    FlowP.reset();
  }
  if (!FlowP)
    return nullptr;
  ObjectAccesses &A = *AP;
  OverwriteFlow &Flow = *FlowP;
  // The range and checks read globals only (recomputed at the site).
  SiteValues Probe(DL);
  bool OK = Probe.readable(P->Off, Gs) && Probe.readable(P->Width, Gs);
  for (const SCEVPair &C : P->Checks)
    OK = OK && Probe.readable(C.first, Gs) && Probe.readable(C.second, Gs);
  if (!OK)
    return nullptr;
  Instruction *Entry = F.getEntryBlock().getTerminator();
  for (BasicBlock &BB : F)
    if (isa<ReturnInst>(BB.getTerminator()))
      Flow.addBarrier(&BB);
  // The guards assumed read globals too, which then must not change
  // either: again with those as stops (twice at most).
  for (unsigned Round = 0;; ++Round) {
    addStops(F, D, Gs, NoKills, A);
    P->Assume.clear();
    if (Round == 2 ||
        !Flow.deadFrom(&F.getEntryBlock().front(), Entry, &P->Assume))
      return nullptr;
    size_t Before = Gs.size();
    for (const GuardAssumption &G : P->Assume)
      if (!Probe.readable(G.Cond->getOperand(0), Gs) ||
          !Probe.readable(G.Cond->getOperand(1), Gs))
        return nullptr;
    if (Gs.size() == Before)
      break;
  }
  if (anyEscapes(Gs))
    return nullptr;
  P->Globals.insert(Gs.begin(), Gs.end());
  CalleeKills[Key] = std::move(P);
  return CalleeKills[Key].get();
}

// A Fortran procedure's name: _QM<module>P<name>, _QQmain, <name>_.
static std::string procedureName(const Function &F) {
  StringRef N = F.getName();
  if (N == "_QQmain")
    return "the main program";
  if (N.starts_with("_QM") && N.contains('P'))
    return N.substr(N.rfind('P') + 1).str();
  return N.ends_with("_") ? N.drop_back().str() : N.str();
}

std::string Analysis::place(const Value &G) {
  if (auto *A = dyn_cast<AllocaInst>(&G)) {
    // The variable's name where debug information gives it.
    std::string In = " (in " + procedureName(*A->getFunction()) + ")";
    StringRef Var = debugVariableName(*const_cast<AllocaInst *>(A));
    if (!Var.empty())
      return Var.str() + In;
    return "an allocatable" + In;
  }
  // flang's names: _QM<module>E<name>, _QFE<name> (main program),
  // _QF<procedure>E<name>.
  StringRef N = G.getName();
  N = N.take_front(N.find('.')); // _QFEa.0: a field of a split descriptor
  size_t E = N.rfind('E');
  std::string Var = E == StringRef::npos ? N.str() : N.substr(E + 1).str();
  if (N.starts_with("_QM") && E != StringRef::npos)
    return Var + " (module " + N.substr(3, E - 3).str() + ")";
  if (N.starts_with("_QFE"))
    return Var + " (main program)";
  if (N.starts_with("_QF") && E != StringRef::npos)
    return Var + " (in " + N.substr(3, E - 3).str() + ")";
  return N.str();
}
} // namespace

namespace {
// Whether the object D holds at Site is dead there over a range: a nest in
// Site's function after it, or calls of one function whose summary is such
// an overwrite, before any stop (addStops) on every path from it.
bool Analysis::deadAtSite(CallInst &Site, Descriptor &D) {
  Function &F = *Site.getFunction();
  if (auto *A = dyn_cast<AllocaInst>(D.G); A && A->getFunction() != &F)
    return false; // another procedure's local
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  SiteValues SV(DL, &Site, &DT, &LI);
  KillProof P;
  std::unique_ptr<ObjectAccesses> A;
  std::unique_ptr<OverwriteFlow> Flow;
  // A nest of this function, through an address loaded after the site.
  for (LoadInst *L : D.Uses.AddressLoads) {
    if (L->getFunction() != &F)
      continue;
    auto AL = std::make_unique<ObjectAccesses>();
    if (!collectAccesses(L, *AL, "__ccc_free"))
      return false;
    // Stops inside a nest keep it from counting as an overwrite.
    SmallPtrSet<const Value *, 1> NoGlobals;
    SmallPtrSet<const Instruction *, 1> NoKills;
    addStops(F, D, NoGlobals, NoKills, *AL);
    auto FL = std::make_unique<OverwriteFlow>(
        F, *L, /*Size=*/nullptr, *AL, isSlowPathCall,
        /*NestMayHoldSites=*/false, DT, LI, SE, /*RangeFixedInNest=*/true);
    KillProof Q;
    if (!FL->rangeKill(Q.Off, Q.Width, Q.Checks) ||
        !loadedOnEveryPath(Site, *L, AL->Writes))
      continue;
    bool OK = SV.readable(Q.Off, Q.Globals) && SV.readable(Q.Width, Q.Globals);
    for (const SCEVPair &C : Q.Checks)
      OK = OK && SV.readable(C.first, Q.Globals) &&
           SV.readable(C.second, Q.Globals);
    if (!OK)
      continue;
    P = std::move(Q);
    A = std::move(AL);
    Flow = std::move(FL);
    break;
  }
  // Or calls of one function that overwrites the range.
  SmallPtrSet<const Instruction *, 4> Kills;
  if (!Flow) {
    const Function *KillCallee = nullptr;
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallInst>(&I);
      Function *Callee = CB ? CB->getCalledFunction() : nullptr;
      const KillProof *K = Callee ? calleeKill(*Callee, D) : nullptr;
      if (!K)
        continue;
      if (KillCallee && KillCallee != Callee)
        return false;
      KillCallee = Callee;
      Kills.insert(CB);
      P.Off = K->Off;
      P.Width = K->Width;
      P.Checks = K->Checks;
      P.Assume = K->Assume;
      P.Globals = K->Globals;
    }
    if (!KillCallee)
      return false;
    A = std::make_unique<ObjectAccesses>();
    Flow = std::make_unique<OverwriteFlow>(
        F, *D.G, /*Size=*/nullptr, *A, isSlowPathCall,
        /*NestMayHoldSites=*/false, DT, LI, SE);
    for (const Instruction *K : Kills)
      Flow->addKill(K);
  }
  if (!isProgramMain(F))
    for (BasicBlock &BB : F)
      if (isa<ReturnInst>(BB.getTerminator()))
        Flow->addBarrier(&BB);
  // Guards of a nest here: their operands are defined before the site or
  // recomputed there (then their globals must not change either: again
  // with those as stops, twice at most).
  SmallVector<GuardAssumption, 2> Assume;
  SmallPtrSet<const Value *, 8> GuardGs(P.Globals.begin(), P.Globals.end());
  auto Stable = [&](const Value *V) { return SV.readable(V, GuardGs); };
  for (unsigned Round = 0;; ++Round) {
    if (Round == 2 || anyEscapes(P.Globals))
      return false;
    addStops(F, D, P.Globals, Kills, *A);
    Assume.clear();
    if (!Flow->deadFrom(Site.getNextNode(), &Site, &Assume, Stable))
      return false;
    if (GuardGs.size() == P.Globals.size())
      break;
    P.Globals.insert(GuardGs.begin(), GuardGs.end());
  }
  P.Assume.append(Assume.begin(), Assume.end());
  Results.push_back({&Site, &D, std::move(P)});
  return true;
}

bool Analysis::run() {
  for (GlobalVariable &G : M.globals())
    if (isDescriptorCell(G))
      Descriptors.push_back({&G, {}, {}, false});
  for (Function &F : M)
    if (!F.isDeclaration())
      for (Instruction &I : F.getEntryBlock())
        if (isDescriptorCell(I))
          Descriptors.push_back({&I, {}, {}, false});
  for (Descriptor &D : Descriptors)
    collectCellUses(D.G, DL, D.Uses);
  if (Descriptors.empty())
    return false;
  // Families: descriptors that move_alloc links. A family with a member
  // whose objects' address may be anywhere else is not analysed (an object
  // of it may have been that member's).
  EquivalenceClasses<const Value *> Families;
  SmallPtrSet<const Value *, 8> Bad;
  for (Descriptor &D : Descriptors) {
    Families.insert(D.G);
    for (auto [To, From] : D.Uses.MoveAllocs) {
      const Value *T = cellOf(To, DL), *S = cellOf(From, DL);
      auto IsDescriptor = [&](const Value *G) {
        return G && llvm::any_of(Descriptors,
                                 [&](const Descriptor &X) { return X.G == G; });
      };
      if (!IsDescriptor(T) || !IsDescriptor(S)) {
        Bad.insert(D.G);
        continue;
      }
      Families.unionSets(T, S);
    }
    // Its objects are reached through loads of the address and through
    // the allocations stored there (whose value the optimizer may use
    // instead of a load).
    SmallVector<const Value *, 8> Sources(D.Uses.AddressLoads.begin(),
                                          D.Uses.AddressLoads.end());
    Sources.append(D.Uses.Allocations.begin(), D.Uses.Allocations.end());
    for (const Value *V : Sources) {
      ObjectAccesses A;
      if (!collectAccesses(V, A, "__ccc_free", /*Holder=*/D.G)) {
        Bad.insert(D.G);
        break;
      }
      D.Accesses.insert(A.Reads.begin(), A.Reads.end());
      D.Accesses.insert(A.Writes.begin(), A.Writes.end());
    }
    if (D.Uses.Escapes)
      Bad.insert(D.G);
  }
  for (Descriptor &D : Descriptors) {
    bool FamilyBad = false;
    for (auto It = Families.findLeader(D.G); It != Families.member_end(); ++It)
      FamilyBad = FamilyBad || Bad.count(*It);
    D.Usable = !FamilyBad;
  }
  SmallVector<CallInst *, 8> Sites;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (isSlowPath(I))
        Sites.push_back(cast<CallInst>(&I));
  for (CallInst *S : Sites)
    for (Descriptor &D : Descriptors)
      if (D.Usable)
        deadAtSite(*S, D);
  if (Results.empty())
    return false;

  LLVMContext &C = M.getContext();
  PointerType *Ptr = PointerType::getUnqual(C);
  FunctionCallee Mark = M.getOrInsertFunction(
      CCC_DEAD_AT_SITE, Type::getVoidTy(C), Ptr, Type::getInt64Ty(C), Ptr);
  for (Found &R : Results) {
    Function &F = *R.Site->getFunction();
    SiteValues SV(DL, R.Site, &FAM.getResult<DominatorTreeAnalysis>(F),
                  &FAM.getResult<LoopAnalysis>(F));
    IRBuilder<> B(R.Site);
    Value *Base = B.CreateLoad(Ptr, R.D->G, "ccc.desc.addr");
    Value *Off = SV.expand(R.P.Off, B);
    Value *Bytes = SV.expand(R.P.Width, B);
    Value *Holds = B.CreateIsNotNull(Base);
    for (const SCEVPair &Chk : R.P.Checks)
      Holds = B.CreateAnd(Holds, B.CreateICmpEQ(SV.expand(Chk.first, B),
                                                SV.expand(Chk.second, B)));
    for (const GuardAssumption &G : R.P.Assume) {
      Value *Cond = B.CreateICmp(G.Cond->getPredicate(),
                                 SV.clone(G.Cond->getOperand(0), B),
                                 SV.clone(G.Cond->getOperand(1), B));
      Holds = B.CreateAnd(Holds, G.Taken ? Cond : B.CreateNot(Cond));
    }
    Bytes = B.CreateSelect(Holds, Bytes, B.getInt64(0));
    Value *At = B.CreateGEP(B.getInt8Ty(), Base, Off, "ccc.dead.at");
    B.CreateCall(
        Mark, {At, Bytes, B.CreateGlobalStringPtr(place(*R.D->G), "ccc.desc")});
    ++NumDeadAtSite;
  }
  return true;
}
} // namespace

PreservedAnalyses ccc::DescriptorLivenessPass::run(Module &M,
                                                   ModuleAnalysisManager &MAM) {
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  if (!Analysis(M, FAM).run())
    return PreservedAnalyses::all();
  return PreservedAnalyses::none();
}

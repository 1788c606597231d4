//===- GlobalTable.cpp - Register writable globals for checkpointing ------===//
//
// For each writable global the module defines, emits one record
//   { ptr addr, i64 size, ptr name, i32 flags, i32 0 }   (ccc_global_record)
// in the ELF section "ccc_globals"; the linker concatenates the records of
// all modules and the runtime walks __start_/__stop_ccc_globals. No
// constructor runs, so static libraries and link order need nothing special.
// Thread-locals get a getter function, since their address is per thread.
// A global already described by a record is skipped: running twice, or on
// an LTO-merged module, adds nothing.
//
// Liveness, the part that needs no flow analysis: a global of this module
// only (local linkage) whose address is only ever loaded from (through
// GEPs and casts), compared, or copied from by memcpy/memmove is never
// written after initialisation; its record says so and images leave it out
// (the binary brings it back). Anything else its address reaches (a store
// of the address, a call, an initializer, a phi) counts as a write.
// Globals that are written but whose value no site needs are found by the
// flow analysis in GlobalLiveness.cpp.
//
//===----------------------------------------------------------------------===//
#include "pass/CccPasses.h"

#include "ccc/abi.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#define DEBUG_TYPE "ccc-globals"
STATISTIC(NumGlobalsRegistered, "Number of globals registered");
STATISTIC(NumTlsRegistered, "Number of thread-locals registered");
STATISTIC(NumNeverWritten, "Number of globals never written (not saved)");
STATISTIC(NumDeadAtSites, "Number of globals dead at every site (not saved)");

using namespace llvm;

static bool isOurs(const GlobalVariable &G) {
  return G.getName().starts_with("llvm.") ||
         G.getName().starts_with("__ccc_") ||
         G.getSection() == CCC_GLOBALS_SECTION ||
         G.getSection().starts_with("llvm.");
}

// The global a record's first field refers to (through a TLS getter too).
static const GlobalValue *describedBy(const GlobalVariable &Rec) {
  if (!Rec.hasInitializer())
    return nullptr;
  auto *CS = dyn_cast<ConstantStruct>(Rec.getInitializer());
  if (!CS || CS->getNumOperands() < 1)
    return nullptr;
  const Value *V = CS->getOperand(0)->stripPointerCasts();
  if (auto *F = dyn_cast<Function>(V)) {
    // TLS getter: its returned value names the variable.
    for (const Instruction &I : F->getEntryBlock())
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if (II->getIntrinsicID() == Intrinsic::threadlocal_address)
          return dyn_cast<GlobalValue>(II->getArgOperand(0));
    return nullptr;
  }
  return dyn_cast<GlobalValue>(V);
}

// Whether every use of the address V (a global, or derived from it) only
// reads the memory.
static bool onlyReadThrough(const Value *V, unsigned Depth = 0) {
  if (Depth > 8)
    return false;
  for (const Use &U : V->uses()) {
    const User *Usr = U.getUser();
    if (auto *LI = dyn_cast<LoadInst>(Usr)) {
      if (LI->getPointerOperand() == V)
        continue;
      return false;
    }
    if (isa<ICmpInst>(Usr))
      continue;
    if (auto *MT = dyn_cast<MemTransferInst>(Usr)) {
      if (U.getOperandNo() == 1 && MT->getRawDest() != V)
        continue; // the source of a copy
      return false;
    }
    if (isa<GetElementPtrInst, BitCastInst, AddrSpaceCastInst>(Usr)) {
      if (!onlyReadThrough(Usr, Depth + 1))
        return false;
      continue;
    }
    if (auto *CE = dyn_cast<ConstantExpr>(Usr)) {
      if ((CE->getOpcode() == Instruction::GetElementPtr || CE->isCast()) &&
          CE->getOpcode() != Instruction::PtrToInt &&
          onlyReadThrough(CE, Depth + 1))
        continue;
      return false;
    }
    return false; // stores, calls, phis, selects, initializers, ...
  }
  return true;
}

static bool neverWritten(const GlobalVariable &G) {
  return G.hasLocalLinkage() && G.hasInitializer() && !G.isThreadLocal() &&
         !G.isExternallyInitialized() && !G.hasSection() &&
         onlyReadThrough(&G);
}

// A lock word or threadprivate cache that libomp fills with pointers into
// its own memory (see CCC_GLOBAL_OPENMP_STATE): clang and flang name the
// locks .gomp_critical_user_*, and pass both to these entry points (in
// the argument given; the threadprivate variable itself, an argument too,
// is the program's).
static bool openMPState(const GlobalVariable &G) {
  if (G.getName().starts_with(".gomp_critical_user_"))
    return true;
  for (const Use &U : G.uses()) {
    const auto *CB = dyn_cast<CallBase>(U.getUser());
    const Function *F = CB ? CB->getCalledFunction() : nullptr;
    if (!F || !CB->isArgOperand(&U))
      continue;
    unsigned Arg = CB->getArgOperandNo(&U);
    unsigned Want =
        StringSwitch<unsigned>(F->getName())
            .Case("__kmpc_threadprivate_cached", 4)
            .Cases("__kmpc_critical", "__kmpc_critical_with_hint",
                   "__kmpc_end_critical", 2)
            .Cases("__kmpc_reduce", "__kmpc_reduce_nowait", 6)
            .Cases("__kmpc_end_reduce", "__kmpc_end_reduce_nowait", 2)
            .Default(~0u);
    if (Arg == Want)
      return true;
  }
  return false;
}

PreservedAnalyses ccc::GlobalTablePass::run(Module &M,
                                            ModuleAnalysisManager &MAM) {
  SmallPtrSet<const GlobalValue *, 32> Done;
  for (GlobalVariable &G : M.globals())
    if (G.getSection() == CCC_GLOBALS_SECTION)
      if (const GlobalValue *D = describedBy(G))
        Done.insert(D);

  SmallVector<GlobalVariable *, 32> Todo;
  const DataLayout &DL = M.getDataLayout();
  for (GlobalVariable &G : M.globals()) {
    if (G.isDeclaration() || G.hasAvailableExternallyLinkage() ||
        G.isConstant() || isOurs(G) || Done.count(&G))
      continue;
    if (DL.getTypeAllocSize(G.getValueType()).getKnownMinValue() == 0)
      continue;
    Todo.push_back(&G);
  }
  if (Todo.empty())
    return PreservedAnalyses::all();
  SmallPtrSet<const GlobalVariable *, 8> Dead;
  findGlobalsDeadAtSites(M, MAM, Dead);

  LLVMContext &C = M.getContext();
  PointerType *Ptr = PointerType::getUnqual(C);
  Type *I64 = Type::getInt64Ty(C), *I32 = Type::getInt32Ty(C);
  StructType *RecTy = StructType::get(C, {Ptr, I64, Ptr, I32, I32});
  SmallVector<GlobalValue *, 32> Used;
  for (GlobalVariable *G : Todo) {
    uint64_t Size = DL.getTypeAllocSize(G->getValueType()).getFixedValue();
    Constant *Addr = G;
    uint32_t Flags = 0;
    if (G->isThreadLocal()) {
      Function *Get = Function::Create(FunctionType::get(Ptr, false),
                                       GlobalValue::InternalLinkage,
                                       "__ccc_tls_get." + G->getName(), M);
      IRBuilder<> B(BasicBlock::Create(C, "entry", Get));
      B.CreateRet(B.CreateThreadLocalAddress(G));
      Addr = Get;
      Flags = CCC_GLOBAL_TLS;
      ++NumTlsRegistered;
    } else {
      ++NumGlobalsRegistered;
      if (openMPState(*G)) {
        Flags = CCC_GLOBAL_OPENMP_STATE;
      } else if (neverWritten(*G)) {
        Flags = CCC_GLOBAL_NEVER_WRITTEN;
        ++NumNeverWritten;
      } else if (Dead.count(G)) {
        Flags = CCC_GLOBAL_DEAD_AT_SITES;
        ++NumDeadAtSites;
      }
    }
    Constant *NameStr = ConstantDataArray::getString(C, G->getName());
    auto *Name = new GlobalVariable(M, NameStr->getType(), true,
                                    GlobalValue::PrivateLinkage, NameStr,
                                    "__ccc_gname." + G->getName());
    Name->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    Constant *Init = ConstantStruct::get(
        RecTy, {Addr, ConstantInt::get(I64, Size), Name,
                ConstantInt::get(I32, Flags), ConstantInt::get(I32, 0)});
    auto *Rec = new GlobalVariable(M, RecTy, false, GlobalValue::PrivateLinkage,
                                   Init, "__ccc_gr." + G->getName());
    Rec->setSection(CCC_GLOBALS_SECTION);
    Rec->setAlignment(Align(8));
    // Dropped with the global when the linker discards its comdat copy.
    if (Comdat *CD = G->getComdat())
      Rec->setComdat(CD);
    Used.push_back(Rec);
  }
  appendToCompilerUsed(M, Used);
  return PreservedAnalyses::none();
}

//===- HeapCalls.cpp - Route heap calls to the runtime --------------------===//
//
// Every call of the module to a libc function that returns heap memory (the
// list is CCC_HEAP_FUNCTIONS in ccc/abi.h) is redirected, with all other
// uses such as `&malloc`, to the runtime's __ccc_ version, which allocates
// in the fixed-address region that a checkpoint saves. A module that
// defines one of these functions itself (its own allocator) is left alone.
// Calls that open and close files (CCC_FILE_FUNCTIONS) go to the runtime
// too, which keeps the table of open files that a restart reopens. A module
// that uses C++ file streams gets a definition of fopen64 that sends
// libstdc++'s calls for them to the runtime too (CCC_CXX_FOPEN64).
// Running at PipelineStart means LLVM has not yet folded anything into these
// calls; the runtime names are not library builtins, so it never will.
//
//===----------------------------------------------------------------------===//
#include "pass/CccPasses.h"

#include "ccc/abi.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

#define DEBUG_TYPE "ccc-heap"
STATISTIC(NumHeapFunctionsRouted, "Number of heap functions routed");

using namespace llvm;

namespace {
struct Route {
  const char *From, *To;
};
#define CCC_ROUTE(From, To) {#From, #To},
const Route Routes[] = {CCC_HEAP_FUNCTIONS(CCC_ROUTE)
                            CCC_FILE_FUNCTIONS(CCC_ROUTE)};
#undef CCC_ROUTE

bool usesFileStreams(const Module &M) {
  for (const Function &F : M)
    if (F.getName().contains("13basic_filebuf"))
      return true;
  return false;
}

// fopen64(path, mode) { return CCC_CXX_FOPEN64(path, mode, return address); }
// weak, so that the modules that define it make one; the executable exports
// it, as libstdc++.so refers to fopen64, and so serves libstdc++'s calls.
// (The module's own calls were routed above.) A module that defines
// fopen64 itself keeps its own.
bool defineFopen64(Module &M) {
  LLVMContext &C = M.getContext();
  PointerType *Ptr = PointerType::getUnqual(C);
  FunctionType *FT = FunctionType::get(Ptr, {Ptr, Ptr}, false);
  Function *F = M.getFunction("fopen64");
  if (F && !F->isDeclaration())
    return false;
  if (F && F->getFunctionType() != FT)
    return false;
  if (!F)
    F = Function::Create(FT, GlobalValue::ExternalLinkage, "fopen64", M);
  F->setLinkage(GlobalValue::WeakAnyLinkage);
  F->addFnAttr(Attribute::NoInline);
  IRBuilder<> B(BasicBlock::Create(C, "", F));
  Value *Caller =
      B.CreateIntrinsic(Intrinsic::returnaddress, {}, {B.getInt32(0)});
  FunctionCallee Impl = M.getOrInsertFunction(
      CCC_CXX_FOPEN64, FunctionType::get(Ptr, {Ptr, Ptr, Ptr}, false));
  B.CreateRet(B.CreateCall(Impl, {F->getArg(0), F->getArg(1), Caller}));
  return true;
}
} // namespace

PreservedAnalyses ccc::HeapCallsPass::run(Module &M, ModuleAnalysisManager &) {
  bool Changed = false;
  for (const Route &R : Routes) {
    Function *F = M.getFunction(R.From);
    if (!F || !F->isDeclaration() || F->use_empty())
      continue;
    FunctionCallee To = M.getOrInsertFunction(R.To, F->getFunctionType());
    if (auto *ToF = dyn_cast<Function>(To.getCallee())) {
      // Keep only attributes that say nothing about libc semantics.
      ToF->setCallingConv(F->getCallingConv());
      if (F->doesNotThrow())
        ToF->setDoesNotThrow();
    }
    F->replaceAllUsesWith(To.getCallee());
    F->eraseFromParent();
    ++NumHeapFunctionsRouted;
    Changed = true;
  }
  if (usesFileStreams(M))
    Changed |= defineFopen64(M);
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

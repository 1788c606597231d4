//===- HeapCalls.cpp - Route heap calls to the runtime --------------------===//
//
// Every call of the module to a libc function that returns heap memory (the
// list is CCC_HEAP_FUNCTIONS in ccc/abi.h) is redirected, with all other
// uses such as `&malloc`, to the runtime's __ccc_ version, which allocates
// in the fixed-address region that a checkpoint saves. A module that
// defines one of these functions itself (its own allocator) is left alone.
// Calls that open and close files (CCC_FILE_FUNCTIONS) go to the runtime
// too, which keeps the table of open files that a restart reopens. A module
// that uses C++ file streams gets a reference to CCC_CXX_FILE_STREAMS, which
// links the runtime's handling of the FILEs libstdc++ opens for them.
// Running at PipelineStart means LLVM has not yet folded anything into these
// calls; the runtime names are not library builtins, so it never will.
//
//===----------------------------------------------------------------------===//
#include "CccPasses.h"

#include "ccc/abi.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

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
} // namespace

PreservedAnalyses ccc::HeapCallsPass::run(Module &M, ModuleAnalysisManager &) {
  bool Changed = false;
  if (usesFileStreams(M) && !M.getNamedValue(CCC_CXX_FILE_STREAMS)) {
    auto *Anchor = new GlobalVariable(M, Type::getInt8Ty(M.getContext()), true,
                                      GlobalValue::ExternalLinkage, nullptr,
                                      CCC_CXX_FILE_STREAMS);
    auto *Ref = new GlobalVariable(M, Anchor->getType(), true,
                                   GlobalValue::PrivateLinkage, Anchor,
                                   "ccc.cxx_file_streams.ref");
    appendToCompilerUsed(M, {Ref});
    Changed = true;
  }
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
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

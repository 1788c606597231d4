//===- EntryRename.cpp - Let the runtime's main run first -----------------===//
//
// The module that defines `main` gets it renamed to an internal
// __ccc_main_orig, plus an external __ccc_user_main(i32, ptr, ptr) that calls
// it with as many arguments as it takes. The runtime's own `main` (linked
// from libccc_rt.a because the program's is gone) sets up the heap region
// and the fixed stack, or restarts, and then calls __ccc_user_main.
//
//===----------------------------------------------------------------------===//
#include "CccPasses.h"

#include "ccc/abi.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#define DEBUG_TYPE "ccc-entry"
STATISTIC(NumMainsRenamed, "Number of main functions renamed");

using namespace llvm;

PreservedAnalyses ccc::EntryRenamePass::run(Module &M,
                                            ModuleAnalysisManager &) {
  Function *Main = M.getFunction("main");
  // Already renamed (second run), or not the module with main.
  if (!Main || Main->isDeclaration() || M.getFunction(CCC_USER_MAIN))
    return PreservedAnalyses::all();
  LLVMContext &C = M.getContext();
  Main->setName("__ccc_main_orig");
  Main->setLinkage(GlobalValue::InternalLinkage);

  Type *I32 = Type::getInt32Ty(C);
  PointerType *Ptr = PointerType::getUnqual(C);
  FunctionType *FT = FunctionType::get(I32, {I32, Ptr, Ptr}, false);
  Function *Wrapper =
      Function::Create(FT, GlobalValue::ExternalLinkage, CCC_USER_MAIN, M);
  IRBuilder<> B(BasicBlock::Create(C, "entry", Wrapper));
  SmallVector<Value *, 3> Args;
  FunctionType *OrigTy = Main->getFunctionType();
  for (unsigned I = 0; I < OrigTy->getNumParams() && I < 3; ++I) {
    Value *A = Wrapper->getArg(I);
    Type *Want = OrigTy->getParamType(I);
    if (A->getType() != Want)
      A = Want->isIntegerTy() ? B.CreateZExtOrTrunc(A, Want)
                              : B.CreateBitOrPointerCast(A, Want);
    Args.push_back(A);
  }
  CallInst *Call = B.CreateCall(Main, Args);
  Value *Ret = ConstantInt::get(I32, 0);
  if (Call->getType()->isIntegerTy())
    Ret = B.CreateZExtOrTrunc(Call, I32);
  B.CreateRet(Ret);
  ++NumMainsRenamed;
  return PreservedAnalyses::none();
}

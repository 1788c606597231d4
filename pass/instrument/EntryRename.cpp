//===- EntryRename.cpp - Let the runtime's main run first -----------------===//
//
// The module that defines `main` gets it renamed to an internal
// __ccc_main_orig, plus an external __ccc_user_main(i32, ptr, ptr) that calls
// it with as many arguments as it takes. The runtime's own `main` (linked
// from libccc_rt.a because the program's is gone) sets up the heap region
// and the fixed stack, or restarts, and then calls __ccc_user_main.
//
// The module also gets a weak `main` that just calls __ccc_user_main: a
// program linked without the runtime (CMake's compiler check, which compiles
// with CMAKE_C_FLAGS but links without CMAKE_C_STANDARD_LIBRARIES) still
// links and runs, without checkpoints. Whenever the runtime is linked, its
// strong main wins: every checkpoint site pulls in Runtime.o, which pulls in
// Entry.o.
//
// A restarted process resumes inside main and never runs its prologue, so a
// language runtime that main initialises (flang's main calls
// _FortranAProgramStart, which records argv and reads the environment)
// would stay uninitialised. For such a main the pass also defines
// __ccc_restart_init, repeating that call, which the runtime makes on
// restart.
//
//===----------------------------------------------------------------------===//
#include "pass/CccPasses.h"

#include "ccc/abi.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#define DEBUG_TYPE "ccc-entry"
STATISTIC(NumMainsRenamed, "Number of main functions renamed");

using namespace llvm;

// Language runtimes' start calls, made by main with (argc, argv, envp, ...)
// where every further argument is a constant.
static const char *const RuntimeStarts[] = {"_FortranAProgramStart"};

static CallInst *findRuntimeStart(Function &Main) {
  for (Instruction &I : Main.getEntryBlock()) {
    auto *CI = dyn_cast<CallInst>(&I);
    Function *Callee = CI ? CI->getCalledFunction() : nullptr;
    if (!Callee || !is_contained(RuntimeStarts, Callee->getName()))
      continue;
    if (CI->arg_size() < 3)
      return nullptr;
    for (unsigned A = 0; A < CI->arg_size(); ++A) {
      Value *V = CI->getArgOperand(A);
      bool Ok = A < 3 ? V == Main.getArg(A) : isa<Constant>(V);
      if (!Ok)
        return nullptr;
    }
    return CI;
  }
  return nullptr;
}

static void defineRestartInit(Module &M, CallInst *Start) {
  LLVMContext &C = M.getContext();
  FunctionType *FT = FunctionType::get(
      Type::getVoidTy(C),
      {Type::getInt32Ty(C), PointerType::getUnqual(C),
       PointerType::getUnqual(C)},
      false);
  Function *Init =
      Function::Create(FT, GlobalValue::ExternalLinkage, CCC_RESTART_INIT, M);
  IRBuilder<> B(BasicBlock::Create(C, "entry", Init));
  SmallVector<Value *, 4> Args;
  for (unsigned A = 0; A < Start->arg_size(); ++A)
    Args.push_back(A < 3 ? B.CreateZExtOrBitCast(
                               Init->getArg(A),
                               Start->getArgOperand(A)->getType())
                         : Start->getArgOperand(A));
  B.CreateCall(Start->getFunctionType(), Start->getCalledOperand(), Args);
  B.CreateRetVoid();
}

PreservedAnalyses ccc::EntryRenamePass::run(Module &M,
                                            ModuleAnalysisManager &) {
  Function *Main = M.getFunction("main");
  // Already renamed (second run), or not the module with main.
  if (!Main || Main->isDeclaration() || M.getFunction(CCC_USER_MAIN))
    return PreservedAnalyses::all();
  LLVMContext &C = M.getContext();
  if (Main->arg_size() >= 3 && !M.getFunction(CCC_RESTART_INIT))
    if (CallInst *Start = findRuntimeStart(*Main))
      defineRestartInit(M, Start);
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

  Function *Fallback = Function::Create(FT, GlobalValue::WeakAnyLinkage,
                                        "main", M);
  IRBuilder<> FB(BasicBlock::Create(C, "entry", Fallback));
  FB.CreateRet(FB.CreateCall(Wrapper, {Fallback->getArg(0),
                                       Fallback->getArg(1),
                                       Fallback->getArg(2)}));
  ++NumMainsRenamed;
  return PreservedAnalyses::none();
}

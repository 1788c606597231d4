//===- FrameTable.cpp - The table of callers' dead locals -----------------===//
//
// Turns what ccc-frame-liveness proved (FrameLiveness.cpp: metadata on a
// call and on the locals dead after it) into records the runtime reads
// (struct ccc_dead_local_record in ccc/abi.h), without a single instruction
// on any path: the runtime finds the frames by unwinding the stack at a
// checkpoint. Per function:
//   call (...) @llvm.localescape(ptr %local0, ...)     ; in the entry block
// which makes codegen define .L<function>$frame_escape_K, the offset of
// local K from the stack pointer at the end of the prologue; and around
// each call, inline asm that emits no instruction, only labels and data:
//   7771:                         ; before the call
//   call @step(...)
//   7772:                         ; after it
//   .section ccc_dead_locals: .long 7771b-., 7772b-.,
//                             .L<function>$frame_escape_K, bytes, name-.
// Numeric labels stay correct if codegen duplicates a block (each copy
// gets its own record). The stack pointer at such a call is the one at the
// end of the prologue: the function has no dynamic alloca and the call
// passes nothing on the stack (FrameLiveness.cpp checks both); the runtime
// also checks that each local lies inside its frame. Runs at OptimizerLast,
// after every optimization that could read the escape as a capture.
//
//===----------------------------------------------------------------------===//
#include "CccPasses.h"
#include "Locals.h"

#include "ccc/abi.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "ccc-frame-table"
STATISTIC(NumRecords, "Records of callers' dead locals");

using namespace llvm;
using namespace ccc;

namespace {
// The symbol codegen names local K's frame offset by (AsmPrinter's
// getOrCreateFrameAllocSymbol), `$` doubled for inline asm; empty if the
// function's name would need quoting in assembly.
std::string escapeSymbol(StringRef Fn, unsigned K) {
  std::string S = ".L";
  for (char C : GlobalValue::dropLLVMManglingEscape(Fn)) {
    if (!isAlnum(C) && C != '_' && C != '.' && C != '$')
      return "";
    S += C;
    if (C == '$')
      S += '$';
  }
  return S + "$$frame_escape_" + std::to_string(K);
}

// A string for an assembler .asciz, `$` doubled for inline asm.
std::string asmString(StringRef Text) {
  std::string S = "\"";
  for (char C : Text) {
    if (C == '"' || C == '\\')
      S += '\\';
    if (C == '$')
      S += '$';
    S += isPrint(C) ? C : '?';
  }
  return S + "\"";
}

unsigned idOf(const MDNode *N, unsigned I) {
  return mdconst::extract<ConstantInt>(N->getOperand(I))->getZExtValue();
}

bool buildTable(Function &F) {
  DenseMap<unsigned, AllocaInst *> LocalOf;
  SmallVector<CallInst *, 4> Calls;
  for (Instruction &I : instructions(F)) {
    if (auto *AI = dyn_cast<AllocaInst>(&I)) {
      if (!AI->isStaticAlloca())
        return false;
      if (MDNode *N = AI->getMetadata(CCC_FRAME_LOCAL_MD))
        LocalOf[idOf(N, 0)] = AI;
    } else if (auto *CI = dyn_cast<CallInst>(&I)) {
      if (CI->getMetadata(CCC_DEAD_AFTER_MD))
        Calls.push_back(CI);
      if (auto *II = dyn_cast<IntrinsicInst>(CI);
          II && II->getIntrinsicID() == Intrinsic::localescape)
        return false; // somebody else's escape: one per function
    }
  }
  if (Calls.empty() || LocalOf.empty() || escapeSymbol(F.getName(), 0).empty())
    return false;

  // The escaped locals, in the order of their K; the escape index is the
  // position in this list.
  SmallVector<AllocaInst *, 4> Escaped;
  DenseMap<AllocaInst *, unsigned> EscapeIndex;
  struct Record {
    CallInst *Call;
    SmallVector<AllocaInst *, 2> Dead;
  };
  SmallVector<Record, 4> Records;
  for (CallInst *C : Calls) {
    Record R{C, {}};
    MDNode *N = C->getMetadata(CCC_DEAD_AFTER_MD);
    for (unsigned I = 0; I < N->getNumOperands(); ++I) {
      AllocaInst *V = LocalOf.lookup(idOf(N, I));
      // Optimizations since the proof may have moved lifetime markers.
      if (!V || !ownsSlotAt(*V, *C))
        continue;
      if (EscapeIndex.try_emplace(V, Escaped.size()).second)
        Escaped.push_back(V);
      R.Dead.push_back(V);
    }
    if (!R.Dead.empty())
      Records.push_back(std::move(R));
  }
  if (Records.empty())
    return false;

  LLVMContext &Ctx = F.getContext();
  Module &M = *F.getParent();
  const DataLayout &DL = M.getDataLayout();
  Function *Escape = Intrinsic::getDeclaration(&M, Intrinsic::localescape);
  // localescape must follow the static allocas in the entry block.
  Instruction *At = &*F.getEntryBlock().getFirstNonPHIOrDbgOrAlloca();
  CallInst::Create(Escape->getFunctionType(), Escape,
                   SmallVector<Value *, 4>(Escaped.begin(), Escaped.end()), "",
                   At);

  FunctionType *AsmTy = FunctionType::get(Type::getVoidTy(Ctx), false);
  auto EmitAsm = [&](const std::string &Text, Instruction *Before) {
    InlineAsm *IA = InlineAsm::get(AsmTy, Text, "", /*hasSideEffects=*/true);
    CallInst *CI = CallInst::Create(AsmTy, IA, "", Before);
    CI->addFnAttr(Attribute::NoUnwind);
  };
  for (Record &R : Records) {
    std::string Text;
    raw_string_ostream OS(Text);
    OS << "7772:\n";
    for (AllocaInst *V : R.Dead) {
      OS << ".pushsection " CCC_DEAD_LOCALS_SECTION ",\"a\",@progbits\n"
         << ".p2align 2\n"
         << ".long 7771b - .\n"
         << ".long 7772b - .\n"
         << ".long " << escapeSymbol(F.getName(), EscapeIndex[V]) << "\n"
         << ".long " << V->getAllocationSize(DL)->getFixedValue() << "\n"
         << ".long 7773f - .\n"
         << ".popsection\n"
         << ".pushsection .rodata\n"
         << "7773:\n"
         << ".asciz " << asmString(localPlace(*V)) << "\n"
         << ".popsection\n";
      ++NumRecords;
    }
    EmitAsm("7771:", R.Call);
    EmitAsm(Text, R.Call->getNextNode());
    R.Call->setMetadata(CCC_DEAD_AFTER_MD, nullptr);
  }
  for (AllocaInst *V : Escaped)
    V->setMetadata(CCC_FRAME_LOCAL_MD, nullptr);
  return true;
}
} // namespace

PreservedAnalyses ccc::FrameTablePass::run(Module &M, ModuleAnalysisManager &) {
  bool Changed = false;
  for (Function &F : M)
    if (!F.isDeclaration())
      Changed |= buildTable(F);
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

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
// Writing an object file parses inline asm with the target's assembler
// parser, which clang registers and flang-new (19) does not: flang aborted
// ("we don't have an asm parser for this target"). The pass registers the
// parsers itself; a compiler where that fails gets no records (the locals
// stay in the images). Why inline asm still: nothing else in LLVM IR puts
// a label at a call's return address and a record naming it in a section
// of our layout. A block address is not one (codegen puts the copies of
// the call's results, or spills, between the call and the next block), and
// llvm.experimental.stackmap would need the runtime to read the version-
// dependent .llvm_stackmaps format instead of one array of records.
//
//===----------------------------------------------------------------------===//
#include "pass/CccPasses.h"
#include "pass/Compat.h"
#include "pass/liveness/Locals.h"

#include "ccc/abi.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <dlfcn.h>

#define DEBUG_TYPE "ccc-frame-table"
STATISTIC(NumRecords, "Records of callers' dead locals");
STATISTIC(NumNoAsmParser,
          "Modules left without records: no assembler parser for the target");

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

// Registers every assembler parser the host process has, once. Looked up by
// name rather than called: a host without one (a compiler built for other
// targets, or not exporting it) then still loads the plugin. Registering
// stores the same constructor again, so a host that has registered them
// (clang) is not harmed; it does not get here anyway. Registration must not
// race a lookup on another thread: compilers run the optimizer and code
// generation of a module on one thread, and this runs before code
// generation. LLVM 19 to 22 keep these names and AsmParsers.def.
void registerAsmParsers() {
  static const bool Done = [] {
#define LLVM_ASM_PARSER(TargetName) "LLVMInitialize" #TargetName "AsmParser",
    static const char *const Names[] = {
#include "llvm/Config/AsmParsers.def"
    };
    for (const char *Name : Names)
      if (void *Init = dlsym(RTLD_DEFAULT, Name))
        reinterpret_cast<void (*)()>(Init)();
    return true;
  }();
  (void)Done;
}

// Whether inline asm in M can become machine code in this process: its
// target has an assembler parser, after registering them if needed. A
// target this process does not know (opt writing IR, no triple) means no
// code generator runs here: whichever compiles the IR later parses it.
bool canAssembleInlineAsm(const Module &M) {
  Triple TT(M.getTargetTriple());
  std::string Error;
  const Target *T = TargetRegistry::lookupTarget("", TT, Error);
  if (!T)
    return true;
  if (!T->hasMCAsmParser())
    registerAsmParsers();
  return T->hasMCAsmParser();
}

// Without records the liveness metadata has no reader: dropped.
bool dropFrameMetadata(Function &F) {
  bool Changed = false;
  for (Instruction &I : instructions(F))
    for (unsigned Kind : {I.getContext().getMDKindID(CCC_DEAD_AFTER_MD),
                          I.getContext().getMDKindID(CCC_FRAME_LOCAL_MD)})
      if (I.getMetadata(Kind)) {
        I.setMetadata(Kind, nullptr);
        Changed = true;
      }
  return Changed;
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
  Function *Escape = intrinsicDeclaration(M, Intrinsic::localescape);
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
  bool Records = canAssembleInlineAsm(M);
  if (!Records)
    ++NumNoAsmParser;
  for (Function &F : M)
    if (!F.isDeclaration())
      Changed |= Records ? buildTable(F) : dropFrameMetadata(F);
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

//===- Locals.cpp - Facts about a function's locals -----------------------===//
#include "Locals.h"
#include "pass/Compat.h"

#include "ccc/abi.h"

#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ccc {
uint64_t largeLocalBytes(const AllocaInst &V) {
  std::optional<TypeSize> Bytes = V.getAllocationSize(V.getDataLayout());
  return V.isStaticAlloca() && Bytes && !Bytes->isScalable() &&
                 Bytes->getFixedValue() >= kMinDeadLocal
             ? Bytes->getFixedValue()
             : 0;
}

const SCEV *localBytesSCEV(const AllocaInst &V, ScalarEvolution &SE) {
  return SE.getConstant(
      Type::getInt64Ty(V.getContext()),
      V.getAllocationSize(V.getDataLayout())->getFixedValue());
}

std::string localPlace(AllocaInst &V) {
  std::string S;
  raw_string_ostream OS(S);
  // Assignment tracking (clang -O -g) marks the alloca with dbg_assign.
  StringRef Name = debugVariableName(V);
  if (Name.empty())
    Name = V.getName();
  if (Name.empty())
    OS << "a local of " << *V.getAllocationSize(V.getDataLayout()) << " bytes";
  else
    OS << Name;
  StringRef F = V.getFunction()->getName();
  OS << " in " << (F == CCC_USER_MAIN ? "main" : F);
  return S;
}

bool ownsSlotAt(const AllocaInst &V, const Instruction &S) {
  SmallPtrSet<const Instruction *, 4> Starts;
  SmallVector<const Instruction *, 2> Ends;
  for (const User *U : V.users())
    if (const auto *II = dyn_cast<IntrinsicInst>(U)) {
      if (II->getIntrinsicID() == Intrinsic::lifetime_start)
        Starts.insert(II);
      else if (II->getIntrinsicID() == Intrinsic::lifetime_end)
        Ends.push_back(II);
    }
  if (Starts.empty() && Ends.empty())
    return true;
  // Whether walking forward from I (inclusive) reaches S before a start.
  SmallPtrSet<const BasicBlock *, 32> Seen;
  SmallVector<const Instruction *, 16> Work;
  auto Reaches = [&](const Instruction *From) {
    Seen.clear();
    Work.assign(1, From);
    while (!Work.empty()) {
      const Instruction *I = Work.pop_back_val();
      for (; I; I = I->getNextNode()) {
        if (I == &S)
          return true;
        if (Starts.count(I))
          break;
        if (I->isTerminator()) {
          for (const BasicBlock *B : successors(I->getParent()))
            if (Seen.insert(B).second)
              Work.push_back(&B->front());
          break;
        }
      }
    }
    return false;
  };
  if (Reaches(&S.getFunction()->getEntryBlock().front()))
    return false;
  return llvm::none_of(
      Ends, [&](const Instruction *E) { return Reaches(E->getNextNode()); });
}
} // namespace ccc

//===- Compat.h - The LLVM APIs that differ between 19 and 22 ---*- C++ -*-===//
//
// The same sources build one plugin per LLVM major (libccc.so for 19,
// libccc-22.so for 22). The few APIs that changed in between are wrapped
// here so that the passes read the same under both:
//  * 20 renamed Intrinsic::getDeclaration to getOrInsertDeclaration;
//  * 21 replaced the nocapture attribute by captures(none);
//  * 21 dropped SCEVExpander's DataLayout argument (it asks SE);
//  * 22 dropped the debug intrinsics (dbg.declare, dbg.assign) for good:
//    only DbgVariableRecords remain, which 19 already has beside them.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_PASS_COMPAT_H
#define CCC_PASS_COMPAT_H

#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <memory>

namespace ccc {

inline llvm::Function *intrinsicDeclaration(llvm::Module &M,
                                            llvm::Intrinsic::ID ID) {
#if LLVM_VERSION_MAJOR >= 20
  return llvm::Intrinsic::getOrInsertDeclaration(&M, ID);
#else
  return llvm::Intrinsic::getDeclaration(&M, ID);
#endif
}

// Marks parameter ArgNo of F as not captured; false if it already was.
inline bool addNoCapture(llvm::Function &F, unsigned ArgNo) {
  if (F.getArg(ArgNo)->hasNoCaptureAttr())
    return false;
#if LLVM_VERSION_MAJOR >= 21
  F.addParamAttr(ArgNo, llvm::Attribute::getWithCaptureInfo(
                            F.getContext(), llvm::CaptureInfo::none()));
#else
  F.addParamAttr(ArgNo, llvm::Attribute::NoCapture);
#endif
  return true;
}

inline std::unique_ptr<llvm::SCEVExpander>
makeExpander(llvm::ScalarEvolution &SE, const llvm::DataLayout &DL,
             const char *Name) {
#if LLVM_VERSION_MAJOR >= 21
  (void)DL;
  return std::make_unique<llvm::SCEVExpander>(SE, Name);
#else
  return std::make_unique<llvm::SCEVExpander>(SE, DL, Name);
#endif
}

// The name debug information gives the variable at V (declared or, under
// assignment tracking, assigned), or an empty one.
inline llvm::StringRef debugVariableName(llvm::AllocaInst &V) {
  llvm::StringRef Name;
  for (llvm::DbgVariableRecord *R : llvm::findDVRDeclares(&V))
    Name = R->getVariable()->getName();
  for (llvm::DbgVariableRecord *R : llvm::at::getDVRAssignmentMarkers(&V))
    Name = R->getVariable()->getName();
#if LLVM_VERSION_MAJOR < 22
  // Modules still in the intrinsic form (read from old .ll or bitcode).
  for (llvm::DbgDeclareInst *D : llvm::findDbgDeclares(&V))
    Name = D->getVariable()->getName();
  for (llvm::DbgAssignIntrinsic *D : llvm::at::getAssignmentMarkers(&V))
    Name = D->getVariable()->getName();
#endif
  return Name;
}

} // namespace ccc

#endif

//===- Plugin.cpp - Registration of the ccc pass plugin -------------------===//
//
// Load with `clang -fpass-plugin=libccc.so` (entry, heap calls and sites
// at PipelineStart, at every -O level; the globals table at OptimizerLast,
// so that the optimizer never sees the records take the globals' addresses:
// registered at the start, every global escaped and the demo's hot loop
// ran 6.6 % more instructions, bench/overhead; heap liveness before the
// loop vectorizer, which would split the loops it reads; the allocatables'
// descriptors at OptimizerEarly, before the vectorizer too) or with
// `opt -load-pass-plugin=libccc.so -passes=ccc` (also ccc-entry, ccc-heap,
// ccc-globals, ccc-sites, ccc-mpi-facts, ccc-heap-liveness,
// ccc-descriptor-liveness,
// ccc-frame-liveness, ccc-frame-table one by one, for tests). The frame
// table at OptimizerLast too: it takes the addresses of the locals it
// describes.
//
//===----------------------------------------------------------------------===//
#include "CccPasses.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Config/llvm-config.h"
#if LLVM_VERSION_MAJOR >= 22
#include "llvm/Plugins/PassPlugin.h"
#else
#include "llvm/Passes/PassPlugin.h"
#endif

using namespace llvm;

static void addAll(ModulePassManager &MPM) {
  MPM.addPass(ccc::EntryRenamePass());
  MPM.addPass(ccc::HeapCallsPass());
  MPM.addPass(ccc::GlobalTablePass());
  MPM.addPass(ccc::CheckpointSitesPass());
  MPM.addPass(ccc::MPIFactsPass());
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ccc", "0.1", [](PassBuilder &PB) {
            PB.registerPipelineStartEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) {
                  MPM.addPass(ccc::EntryRenamePass());
                  MPM.addPass(ccc::HeapCallsPass());
                  MPM.addPass(ccc::CheckpointSitesPass());
                  MPM.addPass(ccc::MPIFactsPass());
                });
            // The optimizer's callbacks also get the LTO phase since LLVM
            // 20: `auto...` takes it there and nothing under 19.
            PB.registerOptimizerEarlyEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel, auto...) {
                  MPM.addPass(ccc::DescriptorLivenessPass());
                });
            PB.registerVectorizerStartEPCallback(
                [](FunctionPassManager &FPM, OptimizationLevel) {
                  FPM.addPass(ccc::HeapLivenessPass());
                  FPM.addPass(ccc::FrameLivenessPass());
                });
            PB.registerOptimizerLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel, auto...) {
                  MPM.addPass(ccc::GlobalTablePass());
                  MPM.addPass(ccc::FrameTablePass());
                });
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name == "ccc")
                    addAll(MPM);
                  else if (Name == "ccc-entry")
                    MPM.addPass(ccc::EntryRenamePass());
                  else if (Name == "ccc-heap")
                    MPM.addPass(ccc::HeapCallsPass());
                  else if (Name == "ccc-globals")
                    MPM.addPass(ccc::GlobalTablePass());
                  else if (Name == "ccc-sites")
                    MPM.addPass(ccc::CheckpointSitesPass());
                  else if (Name == "ccc-frame-table")
                    MPM.addPass(ccc::FrameTablePass());
                  else if (Name == "ccc-mpi-facts")
                    MPM.addPass(ccc::MPIFactsPass());
                  else if (Name == "ccc-descriptor-liveness")
                    MPM.addPass(ccc::DescriptorLivenessPass());
                  else
                    return false;
                  return true;
                });
            PB.registerPipelineParsingCallback(
                [](StringRef Name, FunctionPassManager &FPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name == "ccc-heap-liveness")
                    FPM.addPass(ccc::HeapLivenessPass());
                  else if (Name == "ccc-frame-liveness")
                    FPM.addPass(ccc::FrameLivenessPass());
                  else
                    return false;
                  return true;
                });
          }};
}

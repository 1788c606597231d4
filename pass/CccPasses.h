//===- CccPasses.h - The ccc instrumentation passes -------------*- C++ -*-===//
//
// Five module passes, each idempotent, run in this order by `-passes=ccc`
// and by -fpass-plugin at PipelineStart (ccc-globals at OptimizerLast):
//   ccc-entry      renames main so the runtime's main runs first
//   ccc-heap       routes heap calls to the runtime's fixed-address allocator
//   ccc-globals    registers writable globals and thread-locals for saving
//   ccc-sites      inlines the fast path of each ccc_checkpoint() site
//   ccc-mpi-facts  tells LLVM what MPI_Comm_size/rank do with their result
// Names and layouts they share with the runtime are in include/ccc/abi.h.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_PASS_CCCPASSES_H
#define CCC_PASS_CCCPASSES_H

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/PassManager.h"

namespace llvm {
class GlobalVariable;
}

namespace ccc {
struct EntryRenamePass : llvm::PassInfoMixin<EntryRenamePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
struct HeapCallsPass : llvm::PassInfoMixin<HeapCallsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
struct GlobalTablePass : llvm::PassInfoMixin<GlobalTablePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
struct CheckpointSitesPass : llvm::PassInfoMixin<CheckpointSitesPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
// ccc-mpi-facts: MPI_Comm_size/MPI_Comm_rank keep no pointer to their
// result (MPIFacts.cpp), so the optimizer may keep it in a register.
struct MPIFactsPass : llvm::PassInfoMixin<MPIFactsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
};
// ccc-heap-liveness (a function pass, before the loop vectorizer): marks
// heap objects dead at a site for that site's image (HeapLiveness.cpp).
struct HeapLivenessPass : llvm::PassInfoMixin<HeapLivenessPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

// ccc-descriptor-liveness (a module pass, at OptimizerEarly): marks flang
// allocatables dead at a site for that site's image, named by their
// descriptors (DescriptorLiveness.cpp).
struct DescriptorLivenessPass : llvm::PassInfoMixin<DescriptorLivenessPass> {
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
};

// ccc-frame-liveness (a function pass, with ccc-heap-liveness): marks the
// locals a call that may reach a site leaves dead in its caller's frame
// (FrameLiveness.cpp), as metadata that ccc-frame-table (a module pass, at
// OptimizerLast) turns into the runtime's table (FrameTable.cpp).
struct FrameLivenessPass : llvm::PassInfoMixin<FrameLivenessPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};
struct FrameTablePass : llvm::PassInfoMixin<FrameTablePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};
// The metadata between them: !{i32 K} on a local, !{i32 K, ...} on a call.
#define CCC_FRAME_LOCAL_MD "ccc.frame.local"
#define CCC_DEAD_AFTER_MD "ccc.dead.after"

// Local globals whose value at any checkpoint is never read afterwards
// (GlobalLiveness.cpp); the globals table marks them CCC_GLOBAL_DEAD_AT_SITES.
void findGlobalsDeadAtSites(
    llvm::Module &M, llvm::ModuleAnalysisManager &MAM,
    llvm::SmallPtrSetImpl<const llvm::GlobalVariable *> &Dead);
} // namespace ccc
#endif

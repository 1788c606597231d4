//===- FuzzCommon.h - Shared parts of the reader fuzzers --------*- C++ -*-===//
//
// A private scratch directory the inputs are written into (the readers take
// paths, and incremental images find older ones by name beside them), the
// `ckpt` tool's main (tools/ckpt.cpp compiled with -Dmain=ckpt_main), and
// libc's allocator names routed to malloc so the sanitizers see the
// readers' buffers (rt/common/LibcHeap.h: the runtime bypasses malloc on
// purpose).
//
//===----------------------------------------------------------------------===//
#ifndef CCC_FUZZ_FUZZCOMMON_H
#define CCC_FUZZ_FUZZCOMMON_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

int ckpt_main(int Argc, char **Argv);

namespace fuzz {
// The scratch directory (created once, emptied by clearDir()).
const std::string &workDir();
// Removes every file of workDir().
void clearDir();
// Writes Len bytes to workDir()/Name; false if it cannot.
bool writeFile(const std::string &Name, const void *Data, size_t Len);
// Runs the ckpt tool with these arguments (stdout goes to /dev/null).
int ckpt(std::vector<std::string> Args);
} // namespace fuzz
#endif

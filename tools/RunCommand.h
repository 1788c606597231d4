//===- RunCommand.h - ckpt run ----------------------------------*- C++ -*-===//
#ifndef CCC_TOOLS_RUNCOMMAND_H
#define CCC_TOOLS_RUNCOMMAND_H
// `ckpt run [options] -- COMMAND...` (Argv[0] "ckpt", Argv[1] "run"):
// returns the exit status for ckpt: 0 the job finished, 75 it checkpointed
// and stopped on SIGTERM, 2 usage, else the failed job's status.
int cmdRun(int Argc, char **Argv);
#endif

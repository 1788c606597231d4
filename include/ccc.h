/*===- ccc.h - ccc checkpoint/restart: the application API ---------------===*\
 *
 * Include this header, call ccc_checkpoint() where a checkpoint may be taken
 * (typically once per time step), and build with the ccc pass
 * (-fpass-plugin=libccc.so, or the ckpt-cc wrapper). Configuration is by
 * environment variables; see docs/configuration.md or `ckpt config`.
 *
\*===----------------------------------------------------------------------===*/
#ifndef CCC_H
#define CCC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values returned by ccc_checkpoint() and ccc_checkpoint_force(). */
enum {
  CCC_NONE = 0,      /* no checkpoint was taken at this call */
  CCC_TAKEN = 1,     /* a checkpoint was taken; execution simply continues */
  CCC_RESTARTED = 2  /* the process was restarted from this checkpoint */
};

/*! ccc_checkpoint() :
 *  A checkpoint site. Takes a checkpoint if one is pending: the CCC_INTERVAL
 *  timer expired, SIGUSR1 was received, or (MPI) another rank started one.
 *  Otherwise costs about one load and one branch (the pass inlines that test).
 *  @return CCC_NONE, CCC_TAKEN, or CCC_RESTARTED when execution resumes here
 *  after a restart. */
int ccc_checkpoint(void);

/*! ccc_checkpoint_force() :
 *  A checkpoint site that always takes a checkpoint.
 *  @return CCC_TAKEN, or CCC_RESTARTED when execution resumes here. */
int ccc_checkpoint_force(void);

/*! ccc_exclude() :
 *  The program's promise that the `bytes` bytes at `ptr` (heap memory or a
 *  global variable) need not be saved: it recomputes them before reading
 *  them again after any later site. Checkpoints leave them out; after a
 *  restart they hold unspecified bytes. The promise lasts until
 *  ccc_include(ptr), or until the heap block holding them is freed.
 *  @return 0, or -1 (with a ccc: message) for memory that cannot be
 *  excluded: stack memory (reused when its function returns). */
int ccc_exclude(const void *ptr, size_t bytes);

/*! ccc_include() :
 *  Withdraws the exclusions that start at `ptr`.
 *  @return 0, or -1 if none started there. */
int ccc_include(const void *ptr);

/*! ccc_restarted() :
 *  @return 1 if this process was restarted from an image, else 0. */
int ccc_restarted(void);

/*! Hooks: what a program does around checkpoints for state ccc cannot
 *  save or restore itself (a socket, a device, a file it wants flushed).
 *  ccc_on_checkpoint(fn, arg): fn(arg) runs before each checkpoint of this
 *  process, before its output is flushed; ccc_on_continue: after this
 *  process's image was written, as the program goes on; ccc_on_restart: in
 *  a restarted process, after its memory and files are back and before it
 *  resumes at its site. Registrations are part of the saved state (register
 *  once, at start). Hooks run on the main thread inside the site and must
 *  not call MPI nor ccc_checkpoint. Fortran: `call ccc_on_checkpoint(sub)`
 *  with a module or external subroutine without arguments.
 *  @return 0, or -1 (at most 32 hooks; fn null). */
typedef void (*ccc_hook)(void *arg);
int ccc_on_checkpoint(ccc_hook fn, void *arg);
int ccc_on_continue(ccc_hook fn, void *arg);
int ccc_on_restart(ccc_hook fn, void *arg);

/* Exit status of a process that checkpointed and stopped because it was
 * sent SIGTERM (every rank of an MPI job; `ckpt run` exits with it too). */
#define CCC_EXIT_STOPPED 75

#ifdef __cplusplus
}
#endif

#endif /* CCC_H */

/* stub/ccc.h - the baseline build of bench/overhead: the program without
 * ccc at all (sites compile to nothing). */
#ifndef CCC_H
#define CCC_H
#include <stddef.h>
enum { CCC_NONE = 0, CCC_TAKEN = 1, CCC_RESTARTED = 2 };
static inline int ccc_checkpoint(void) { return CCC_NONE; }
static inline int ccc_checkpoint_force(void) { return CCC_NONE; }
static inline int ccc_restarted(void) { return 0; }
static inline int ccc_exclude(const void *p, size_t n) { (void)p, (void)n; return 0; }
static inline int ccc_include(const void *p) { (void)p; return 0; }
#endif

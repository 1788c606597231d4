/* gcc12_era.c - C that gcc 12 builds with warnings and clang 16 and later
 * reject by default: a call to a function declared only later (implicit
 * declaration), an integer stored into a pointer, a function pointer of
 * another type. Real codes of that age (MPICH's tests, miniGhost) have
 * such lines; ckpt-cc keeps these diagnostics warnings, as gcc did, unless
 * asked to be strict (--strict).
 */
#include <stdio.h>

typedef int (*Compare)(const void *, const void *);

static int byValue(const int *A, const int *B) { return *A - *B; }

int main(void) {
  long Address = 0;
  int *Nothing = Address; /* int-conversion */
  Compare C = byValue;    /* incompatible-function-pointer-types */
  int Values[2] = {2, 1};
  printf("%d %d\n", C(&Values[0], &Values[1]) > 0, Nothing == 0);
  return later(0); /* implicit-function-declaration */
}

int later(int X) { return X; }

#ifndef GRID_H
#define GRID_H
typedef struct {
  int N;
  double *U, *Next;
} Grid;
Grid *gridNew(int N);
void gridStep(Grid *G, double Alpha);
double gridSum(const Grid *G);
extern long StepsDone;
#endif

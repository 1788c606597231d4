#ifndef STATS_H
#define STATS_H
void observe(double X);
double runningMean(void);
double runningVar(void);
unsigned long histogramDigest(void);
void histogramAdd(double X);
#endif

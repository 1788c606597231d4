#ifndef PASS_LIBRARY_H
#define PASS_LIBRARY_H
struct wave;
struct wave *wave_create(int n, const char *log_path);
double wave_step(struct wave *w);
double wave_summary(void);
void wave_destroy(struct wave *w);
#endif

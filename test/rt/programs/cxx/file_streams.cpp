// file_streams.cpp - C++ file streams open across checkpoints: an
// std::ofstream log written at every step (its filebuf buffers output that
// no fflush reaches), an std::ifstream read line by line (its read-ahead
// crosses checkpoints), and an std::fstream opened for appending (what a
// killed run appended after the checkpoint must be cut away). libstdc++
// opens their FILEs itself; after kills and restarts the files must be
// byte-identical to an uninterrupted run's and closing them must not crash.
#include "ccc.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <string>

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 20000;
  {
    std::ofstream In("input.txt");
    for (long I = 0; I < Steps; ++I)
      In << I << ' ' << (I * 7919) % 1009 << '\n';
  }
  std::ifstream In("input.txt");
  std::ofstream Log("log.txt");
  std::remove("append.txt");
  std::fstream App("append.txt", std::ios::out | std::ios::app);
  if (!In || !Log || !App)
    return std::fprintf(stderr, "cannot open the files\n"), 1;
  Log << std::setprecision(12);
  double Acc = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    long A, B;
    if (!(In >> A >> B))
      return std::fprintf(stderr, "input ended at step %ld\n", S), 1;
    for (int K = 0; K < 2000; ++K)
      Acc += 1.0 / (1.0 + A + B + K + Acc * 1e-9);
    Log << "step " << S << " input " << A << ' ' << B << " acc " << Acc
        << '\n';
    App << S << '\n';
  }
  In.close();
  Log << "done\n";
  Log.close();
  App.close();
  std::printf("acc %.9f\n", Acc);
  return 0;
}

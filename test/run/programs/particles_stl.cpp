// particles_stl.cpp - a serial C++ particle code in the STL style: particles
// in a std::vector of structs, a std::map histogram, names in std::string,
// arguments checked with exceptions. It prints progress on std::cout and
// writes particles.csv at the end. The three hooks count their calls in
// globals (saved with everything else); the last line on std::cerr reports
// them, so a test can see that the restart hook ran in a restarted process.
//   usage: particles_stl STEPS PARTICLES
#include "ccc.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace {
struct Particle {
  double X, Y, Vx, Vy;
  std::string Name;
};

long Checkpoints, Continues, Restarts;

long parsePositive(const char *S, const char *What) {
  size_t End = 0;
  long V = std::stol(S, &End);
  if (S[End] || V <= 0)
    throw std::invalid_argument(std::string(What) + " must be positive");
  return V;
}
} // namespace

int main(int argc, char **argv) {
  long Steps = 20000, N = 2000;
  try {
    if (argc > 1)
      Steps = parsePositive(argv[1], "STEPS");
    if (argc > 2)
      N = parsePositive(argv[2], "PARTICLES");
  } catch (const std::exception &E) {
    std::cerr << "particles_stl: " << E.what() << "\n";
    return 2;
  }
  ccc_on_checkpoint([](void *) { ++Checkpoints; }, nullptr);
  ccc_on_continue([](void *) { ++Continues; }, nullptr);
  ccc_on_restart([](void *) { ++Restarts; }, nullptr);

  std::vector<Particle> Ps;
  for (long I = 0; I < N; ++I)
    Ps.push_back({std::cos(I * 0.1), std::sin(I * 0.3), 0.01 * (I % 7),
                  -0.01 * (I % 5), "p" + std::to_string(I)});
  std::map<int, long> Histogram;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (Particle &P : Ps) {
      double R2 = P.X * P.X + P.Y * P.Y + 0.01;
      P.Vx -= 1e-4 * P.X / R2;
      P.Vy -= 1e-4 * P.Y / R2;
      P.X += P.Vx;
      P.Y += P.Vy;
    }
    if (S % 50 == 0) {
      Histogram.clear();
      for (const Particle &P : Ps)
        Histogram[(int)std::floor(std::sqrt(P.X * P.X + P.Y * P.Y) * 4)]++;
      std::cout << "step " << S << " shells " << Histogram.size() << " inner "
                << Histogram.begin()->second << "\n";
    }
  }
  std::ofstream Out("particles.csv");
  Out.precision(17);
  for (const Particle &P : Ps)
    Out << P.Name << "," << P.X << "," << P.Y << "\n";
  std::cout << "done " << Steps << " steps\n";
  std::fprintf(stderr, "hooks: checkpoint=%ld continue=%ld restart=%ld\n",
               Checkpoints, Continues, Restarts);
  return 0;
}

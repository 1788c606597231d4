#include "body.h"

#include <ccc.h>
#include <cstdio>
#include <map>

int main(int argc, char **argv) {
  int Steps = argc > 1 ? atoi(argv[1]) : 2000;
  std::vector<std::unique_ptr<Body>> Bodies;
  std::map<std::string, double> Peak;
  unsigned long Rng = 88172645463325252UL;
  for (int S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    Rng ^= Rng << 13, Rng ^= Rng >> 7, Rng ^= Rng << 17;
    if (Bodies.size() < 300 || Rng % 4 == 0)
      Bodies.push_back(makeBody(Rng));
    if (Bodies.size() > 200 && Rng % 5 == 0)
      Bodies.erase(Bodies.begin() + Rng % Bodies.size());
    for (auto &B : Bodies) {
      B->step(0.01);
      double &P = Peak[B->Name];
      if (B->energy() > P)
        P = B->energy();
    }
  }
  double Sum = 0;
  for (auto &[Name, E] : Peak)
    Sum += E * (double)Name.size();
  std::printf("particles: %zu bodies %zu names %.17g\n", Bodies.size(),
              Peak.size(), Sum);
  return 0;
}

#include "body.h"

namespace {
class Rock : public Body {
public:
  void step(double Dt) override {
    for (int I = 0; I < 3; ++I) {
      Vel[I] -= Pos[I] * Dt;
      Pos[I] += Vel[I] * Dt;
    }
  }
  double energy() const override {
    double E = 0;
    for (int I = 0; I < 3; ++I)
      E += Vel[I] * Vel[I] + Pos[I] * Pos[I];
    return E;
  }
};
class Comet : public Rock {
public:
  void step(double Dt) override {
    Rock::step(Dt);
    Trail.push_back(Pos[0]);
    if (Trail.size() > 64)
      Trail.erase(Trail.begin());
  }
  double energy() const override { return Rock::energy() + Trail.size(); }
  std::vector<double> Trail;
};
} // namespace

std::unique_ptr<Body> makeBody(unsigned long Seed) {
  std::unique_ptr<Body> B;
  if (Seed % 3 == 0)
    B = std::make_unique<Comet>();
  else
    B = std::make_unique<Rock>();
  B->Name = "body-number-" + std::to_string(Seed) + "-with-a-long-name";
  for (int I = 0; I < 3; ++I) {
    B->Pos[I] = (double)((Seed >> (I * 7)) % 100) / 50 - 1;
    B->Vel[I] = (double)((Seed >> (I * 5)) % 64) / 64;
  }
  return B;
}

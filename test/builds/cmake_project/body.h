#ifndef BODY_H
#define BODY_H
#include <memory>
#include <string>
#include <vector>

class Body {
public:
  virtual ~Body() = default;
  virtual void step(double Dt) = 0;
  virtual double energy() const = 0;
  std::string Name;
  std::vector<double> Pos = std::vector<double>(3), Vel = std::vector<double>(3);
};

std::unique_ptr<Body> makeBody(unsigned long Seed);
#endif

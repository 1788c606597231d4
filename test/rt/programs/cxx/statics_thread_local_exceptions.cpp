// statics_thread_local_exceptions.cpp - proves C++ static and thread-local
// state and exception handling survive restart: globals built by static
// constructors (a std::map, a registry object, a long std::string) keep
// their contents and are not rebuilt by the restarted process's
// constructors; function-local statics keep their guard (one initialized
// before the first checkpoint, one first used late in the run, after a
// restart, and each initialized exactly once); thread_local variables of the
// main thread (trivial, array and ones with constructors and destructors)
// mutated every step keep their values; exceptions of classes derived from
// std::runtime_error are thrown, caught, rethrown and nested every few steps,
// also unwinding through frames restored from the image; std::string and
// std::ostringstream formatting works with the restored state.
#include "ccc.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

uint64_t Rng = 0x2545f4914f6cdd1dULL;
uint64_t next() {
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return Rng;
}

uint64_t mix(uint64_t H, uint64_t V) { return (H ^ V) * 1099511628211ULL; }
uint64_t mixS(uint64_t H, const std::string &S) {
  for (char C : S)
    H = mix(H, static_cast<unsigned char>(C));
  return mix(H, S.size());
}
uint64_t mixD(uint64_t H, double D) {
  uint64_t B;
  std::memcpy(&B, &D, sizeof B);
  return mix(H, B);
}

// Counts how often each static initializer ran in this process's history:
// the restored value must say "once", whatever the restarted process's own
// constructors did before the image was loaded.
int GlobalCtorRuns = 0;
int EarlyInitRuns = 0;
int LateInitRuns = 0;

std::map<std::string, long> buildOpcodes() {
  ++GlobalCtorRuns;
  std::map<std::string, long> M;
  const char *Names[] = {
      "add-with-carry-and-saturation", "sub", "mul",
      "fused-multiply-add-extended",   "div", "shift-left",
      "rotate-right-through-carry",    "xor",
  };
  long V = 11;
  for (const char *N : Names)
    M[N] = V = V * 31 + 7;
  return M;
}

// A global std::map built by a static constructor, mutated every step.
std::map<std::string, long> Opcodes = buildOpcodes();

// A global object with a user-defined constructor and destructor.
class Registry {
public:
  Registry() : Banner("registry-constructed-before-main-with-a-long-banner") {
    ++GlobalCtorRuns;
    for (int I = 0; I < 32; ++I)
      Slots.push_back(I * 3 + 1);
  }
  ~Registry() { Slots.clear(); }
  void bump(uint64_t R) {
    Slots[R % Slots.size()] += static_cast<long>(R % 1000);
    if (Slots.size() < 200 && R % 7 == 0)
      Slots.push_back(static_cast<long>(R % 4096));
    Banner[R % Banner.size()] = static_cast<char>('a' + R % 26);
  }
  uint64_t digest(uint64_t H) const {
    for (long S : Slots)
      H = mix(H, static_cast<uint64_t>(S));
    return mixS(H, Banner);
  }
  size_t size() const { return Slots.size(); }

private:
  std::string Banner;
  std::vector<long> Slots;
};
Registry TheRegistry;

std::string GlobalText = std::string(40, 'g') + "-global-string-from-ctor";

// Function-local statics, initialized on first call.
std::vector<std::string> &earlyTable() {
  static std::vector<std::string> Table = [] {
    ++EarlyInitRuns;
    std::vector<std::string> T;
    for (int I = 0; I < 16; ++I)
      T.push_back("early-table-entry-number-" + std::to_string(I));
    return T;
  }();
  return Table;
}

struct LateState {
  LateState() : Text("late-static-initialized-only-near-the-end-of-run") {
    ++LateInitRuns;
    for (int I = 0; I < 64; ++I)
      Vals.push_back(I * 0.5);
  }
  std::string Text;
  std::vector<double> Vals;
};
LateState &lateState() {
  static LateState S;
  return S;
}

// Thread-locals of the main thread: trivial, arrays, and ones with dynamic
// initialization and destructors (reached through TLS wrapper functions).
thread_local uint64_t TlsCounter = 5;
thread_local double TlsArr[64];
thread_local std::string TlsName =
    "thread-local-string-beyond-sso-" + std::to_string(GlobalText.size());
thread_local std::vector<int> TlsVec(10, 3);

uint64_t tlsLocalStatic() {
  static thread_local uint64_t Hidden = 77;
  Hidden = Hidden * 6364136223846793005ULL + 1442695040888963407ULL;
  return Hidden;
}

// Custom exceptions carrying a std::string message and extra data.
class SimError : public std::runtime_error {
public:
  SimError(const std::string &Msg, long Step)
      : std::runtime_error(Msg), Step(Step) {}
  long Step;
};

class ConvergenceError : public SimError {
public:
  ConvergenceError(const std::string &Msg, long Step, double Residual)
      : SimError(Msg, Step), Residual(Residual) {}
  double Residual;
};

class Guard {
public:
  explicit Guard(uint64_t &Count) : Count(Count) {}
  ~Guard() { ++Count; } // runs during unwinding
private:
  uint64_t &Count;
};

uint64_t Unwound = 0;
uint64_t ExcDigest = 1469598103934665603ULL;
long Caught[4];

std::string describe(long Step, double X) {
  std::ostringstream OS;
  OS << "step " << Step << " x=" << std::setprecision(17) << X << " hex=0x"
     << std::hex << std::setw(12) << std::setfill('0') << (Step * 2654435761L);
  return OS.str();
}

double solve(long Step, int Depth, double X) {
  Guard G(Unwound);
  std::vector<double> Scratch(8, X);
  if (Depth == 0) {
    uint64_t R = next() % 4;
    if (R == 0)
      throw ConvergenceError(describe(Step, X), Step, X * 1e-3);
    if (R == 1)
      throw SimError("diverged-while-solving-" + std::to_string(Step), Step);
    if (R == 2)
      throw std::out_of_range("index-out-of-range-at-step-" +
                              std::to_string(Step));
    return X;
  }
  return solve(Step, Depth - 1, Scratch[Depth % 8] * 0.5 + 1.0);
}

// Catches, annotates and rethrows; wraps some in a nested exception.
double attempt(long Step, double X) {
  try {
    return solve(Step, 3 + static_cast<int>(Step % 5), X);
  } catch (ConvergenceError &E) {
    ExcDigest = mixD(mixS(ExcDigest, E.what()), E.Residual);
    if (E.Step % 2)
      throw; // rethrow the same object
    std::throw_with_nested(SimError("wrapped-convergence-failure", Step));
  } catch (const std::logic_error &E) {
    ExcDigest = mixS(ExcDigest, E.what());
    throw SimError(std::string("converted: ") + E.what(), Step);
  }
}

void handle(long Step, double &X) {
  try {
    try {
      X = attempt(Step, X);
      ++Caught[0];
    } catch (const ConvergenceError &E) {
      ++Caught[1];
      ExcDigest = mix(ExcDigest, static_cast<uint64_t>(E.Step));
      throw std::runtime_error("outer: " + std::string(E.what()));
    } catch (const SimError &E) {
      ++Caught[2];
      ExcDigest = mixS(ExcDigest, E.what());
      try {
        std::rethrow_if_nested(E);
      } catch (const ConvergenceError &Inner) {
        ExcDigest = mixD(ExcDigest, Inner.Residual);
      }
    }
  } catch (const std::runtime_error &E) {
    ++Caught[3];
    ExcDigest = mixS(ExcDigest, E.what());
    X += 0.5;
  }
}

// A site inside a try block, a few frames down: after a restart the
// exception thrown next unwinds through frames that were restored.
double siteThenThrow(long Step, int Depth, double X) {
  Guard G(Unwound);
  if (Depth > 0)
    return siteThenThrow(Step, Depth - 1, X + 1.0) * 0.5;
  ccc_checkpoint();
  if (Step % 3 == 0)
    throw SimError("thrown-after-the-checkpoint-site-" + std::to_string(Step),
                   Step);
  return X;
}

} // namespace

int main(int argc, char **argv) {
  long Steps = argc > 1 ? std::atol(argv[1]) : 20000;
  earlyTable()[0] += "-touched"; // initialized before the first checkpoint
  double X = 1.0;
  uint64_t FmtDigest = 1469598103934665603ULL;
  long SiteThrows = 0;
  for (long S = 0; S < Steps; ++S) {
    double Y = 0;
    try {
      Y = siteThenThrow(S, 4, X);
    } catch (const SimError &E) {
      ++SiteThrows;
      ExcDigest = mixS(ExcDigest, E.what());
      Y = static_cast<double>(E.Step);
    }
    X = X * 0.999 + Y * 1e-6;

    // Globals built by static constructors.
    std::string Key =
        "dyn-opcode-with-long-name-" + std::to_string(next() % 50);
    Opcodes[Key] += S;
    if (Opcodes.size() > 40)
      Opcodes.erase(Key);
    TheRegistry.bump(next());
    GlobalText[S % GlobalText.size()] = static_cast<char>('A' + S % 26);

    // Function-local statics.
    auto &ET = earlyTable();
    ET[S % ET.size()] += static_cast<char>('a' + S % 26);
    if (ET[S % ET.size()].size() > 60)
      ET[S % ET.size()].resize(30);
    if (S >= Steps - Steps / 8) {
      LateState &L = lateState(); // first call late in the run
      L.Vals[S % L.Vals.size()] += X;
      L.Text.push_back(static_cast<char>('0' + S % 10));
    }

    // Thread-locals.
    TlsCounter = TlsCounter * 3 + static_cast<uint64_t>(S);
    TlsArr[S % 64] += X;
    TlsName[S % TlsName.size()] = static_cast<char>('a' + TlsCounter % 26);
    TlsVec.push_back(static_cast<int>(TlsCounter % 1000));
    if (TlsVec.size() > 100)
      TlsVec.erase(TlsVec.begin(), TlsVec.begin() + 50);
    uint64_t Hidden = tlsLocalStatic();

    // Exceptions every few steps.
    if (S % 3 == 1)
      handle(S, X);

    // Formatting.
    std::ostringstream OS;
    OS << describe(S, X) << ' ' << std::scientific << std::setprecision(10)
       << TlsArr[S % 64] << ' ' << std::hex << Hidden;
    FmtDigest = mixS(FmtDigest, OS.str());
  }

  uint64_t HO = 1469598103934665603ULL;
  for (const auto &[K, V] : Opcodes)
    HO = mix(mixS(HO, K), static_cast<uint64_t>(V));
  uint64_t HE = 1469598103934665603ULL;
  for (const auto &E : earlyTable())
    HE = mixS(HE, E);
  const LateState &L = lateState();
  uint64_t HL = mixS(1469598103934665603ULL, L.Text);
  for (double V : L.Vals)
    HL = mixD(HL, V);
  uint64_t HT = mixS(mix(1469598103934665603ULL, TlsCounter), TlsName);
  for (double V : TlsArr)
    HT = mixD(HT, V);
  for (int V : TlsVec)
    HT = mix(HT, static_cast<uint64_t>(V));
  HT = mix(HT, tlsLocalStatic());

  std::printf("inits global %d early %d late %d\n", GlobalCtorRuns,
              EarlyInitRuns, LateInitRuns);
  std::printf("opcodes %zu digest %016llx registry %zu digest %016llx "
              "text %016llx\n",
              Opcodes.size(), static_cast<unsigned long long>(HO),
              TheRegistry.size(),
              static_cast<unsigned long long>(
                  TheRegistry.digest(1469598103934665603ULL)),
              static_cast<unsigned long long>(
                  mixS(1469598103934665603ULL, GlobalText)));
  std::printf("early %016llx late %016llx tls %016llx\n",
              static_cast<unsigned long long>(HE),
              static_cast<unsigned long long>(HL),
              static_cast<unsigned long long>(HT));
  std::printf("caught %ld/%ld/%ld/%ld site-throws %ld unwound %llu "
              "exc %016llx\n",
              Caught[0], Caught[1], Caught[2], Caught[3], SiteThrows,
              static_cast<unsigned long long>(Unwound),
              static_cast<unsigned long long>(ExcDigest));
  std::printf("x %.17g fmt %016llx rng %016llx\n", X,
              static_cast<unsigned long long>(FmtDigest),
              static_cast<unsigned long long>(Rng));
  return 0;
}

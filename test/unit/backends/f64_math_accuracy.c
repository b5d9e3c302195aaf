/*
 * Accuracy test for backends/spirv/math/f64.c, the double-precision
 * transcendentals that Vulkan kernels link in. Every function is compared
 * with glibc's (within about half an ulp of the exact result, but for exp10
 * and log10 up to 1.9 ulp: backends/spirv/math/gen/true_error.py measures
 * both) on IEEE special values, the edges of each function's range and
 * deterministic pseudo-random sweeps; the program fails if a result is more
 * than 2 ulp from glibc's or a special result (NaN, infinity, the sign of a
 * zero) differs. It prints a checksum of all the library's results, so that two
 * builds can be seen to compute the same bits.
 *
 *   cd test/unit/backends
 *   clang-19 -O2 -ffp-contract=off f64_math_accuracy.c \
 *       ../../../backends/spirv/math/f64.c -lm -o acc && ./acc
 *   ./acc -v    # also prints the worst input of each function
 *   ./acc -d    # inputs for backends/spirv/math/gen/true_error.py
 *
 * The same with gcc (the CTest may use the system compiler) must print the
 * same table and checksum:
 *
 *   gcc -O2 -ffp-contract=off f64_math_accuracy.c \
 *       ../../../backends/spirv/math/f64.c -lm -o acc-gcc && ./acc-gcc
 *
 * A Vulkan device need not fuse GLSL.std.450 Fma (lavapipe does not), and its
 * double division may be 2.5 ulp off. Two builds stand in for such a device;
 * they compile f64.c into this file (do not list it again), with each
 * __builtin_fma replaced by a product and a sum rounded apart, or with each
 * division up to 2 ulp off:
 *
 *   clang-19 -O2 -ffp-contract=off -DHPVM_EMULATE_UNFUSED_FMA \
 *       f64_math_accuracy.c -lm -o acc-unfused && ./acc-unfused
 *   clang-19 -O2 -ffp-contract=off -DHPVM_EMULATE_LOOSE_DIVISION \
 *       f64_math_accuracy.c -lm -o acc-loose-div && ./acc-loose-div
 *
 * The library uses no fma at all, so the first prints the same checksum as
 * the plain build; it fails if the library calls fma even once. The second
 * may round a few results that lie near a halfway case the other way, and
 * must pass all the same. The library's IR, built as
 * backends/spirv/CMakeLists.txt does, must not contain fma either (run from
 * the repository root):
 *
 *   clang-19 -O2 -ffp-contract=off -fno-math-errno -ffreestanding \
 *       -fno-builtin -fno-slp-vectorize -fno-vectorize -S -emit-llvm \
 *       backends/spirv/math/f64.c -o - | grep -c 'llvm.fma'   # must print 0
 *
 * (llvm.fmuladd cannot appear either: f64.c turns contraction off.)
 *
 * The ulp distance is the number of doubles between the two results (the
 * distance of their ordered bit patterns), so it also works for subnormals;
 * -0 and +0 count as the same there, and their signs are compared apart.
 */
#define _GNU_SOURCE /* exp10 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static uint64_t toBits(double X) {
  uint64_t Bits;
  memcpy(&Bits, &X, sizeof Bits);
  return Bits;
}

static double fromBits(uint64_t Bits) {
  double X;
  memcpy(&X, &Bits, sizeof X);
  return X;
}

/* -------------------------------------------- emulated device builds --- */

/* How often the library called fma; only counted in the unfused build. */
static uint64_t FmaCalls;

#ifdef HPVM_EMULATE_UNFUSED_FMA
/* A*B + C as Vulkan allows Fma to be computed: two roundings (the build has
   -ffp-contract=off). Unused as long as the library uses no fma. */
__attribute__((unused)) static double unfusedFma(double A, double B, double C) {
  ++FmaCalls;
  double Product = A * B;
  return Product + C;
}
#define __builtin_fma(A, B, C) unfusedFma(A, B, C)
#endif

#ifdef HPVM_EMULATE_LOOSE_DIVISION
/* A / B up to 2 ulp from the correctly rounded quotient, so within the
   2.5 ulp that Vulkan allows, the error picked from the operands' bits so
   that it is the same in every run. Zero, infinite and NaN quotients are
   left alone: a device divides those exactly. */
static double looseDivision(double A, double B) {
  double Quotient = A / B;
  if (Quotient == 0.0 || !isfinite(Quotient))
    return Quotient;
  uint64_t Hash = toBits(A) * 0x9e3779b97f4a7c15ull ^ toBits(B);
  Hash = (Hash ^ (Hash >> 31)) * 0xbf58476d1ce4e5b9ull;
  int Ulps = (int)((Hash >> 40) % 5) - 2;
  for (; Ulps > 0; --Ulps)
    Quotient = nextafter(Quotient, INFINITY);
  for (; Ulps < 0; ++Ulps)
    Quotient = nextafter(Quotient, -INFINITY);
  return Quotient;
}
#define HPVM_F64_DIV(A, B) looseDivision(A, B)
#endif

#if defined(HPVM_EMULATE_UNFUSED_FMA) || defined(HPVM_EMULATE_LOOSE_DIVISION)
/* The library itself, so that the definitions above apply to it. */
#include "../../../backends/spirv/math/f64.c"
#else
double __hpvm_f64_exp(double);
double __hpvm_f64_exp2(double);
double __hpvm_f64_exp10(double);
double __hpvm_f64_log(double);
double __hpvm_f64_log2(double);
double __hpvm_f64_log10(double);
double __hpvm_f64_sin(double);
double __hpvm_f64_cos(double);
double __hpvm_f64_tan(double);
double __hpvm_f64_pow(double, double);
#endif

enum { MaxUlps = 2, MaxReportedFailures = 8 };

typedef struct {
  const char *Name;
  double (*Ours)(double);
  double (*Reference)(double);
  double (*Ours2)(double, double); /* pow only */
  double (*Reference2)(double, double);
  uint64_t Points, Failures, MaxUlp;
  uint64_t Differ; /* results not bit-identical to the reference */
  double WorstX, WorstY;
} Function;

static int Verbose, Dump;

/* FNV-1a over the bits of every result of the library, in test order. */
static uint64_t Checksum = 0xcbf29ce484222325ull;

/* The position of X among all doubles in increasing order (-0 == +0). */
static int64_t orderedIndex(double X) {
  uint64_t Bits = toBits(X);
  return (Bits >> 63) ? -(int64_t)(Bits & 0x7fffffffffffffffull)
                      : (int64_t)Bits;
}

/* ulp distance of two finite doubles. */
static uint64_t ulpDistance(double A, double B) {
  int64_t IndexA = orderedIndex(A), IndexB = orderedIndex(B);
  return IndexA > IndexB ? (uint64_t)(IndexA - IndexB)
                         : (uint64_t)(IndexB - IndexA);
}

/* Returns nonzero when Ours is acceptable as Reference; *Ulps gets the
   distance for two finite results and 0 otherwise. */
static int acceptable(double Ours, double Reference, uint64_t *Ulps) {
  *Ulps = 0;
  if (isnan(Ours) || isnan(Reference))
    return isnan(Ours) && isnan(Reference);
  if (isinf(Ours) || isinf(Reference))
    return Ours == Reference;
  if (Ours == 0.0 && Reference == 0.0)
    return signbit(Ours) == signbit(Reference);
  *Ulps = ulpDistance(Ours, Reference);
  return *Ulps <= MaxUlps;
}

static void record(Function *F, double X, double Y, double Ours,
                   double Reference) {
  uint64_t Ulps;
  int Ok = acceptable(Ours, Reference, &Ulps);
  int Differs =
      toBits(Ours) != toBits(Reference) && !(isnan(Ours) && isnan(Reference));
  Checksum = (Checksum ^ toBits(Ours)) * 0x100000001b3ull;
  /* Every finite result that is not glibc's, and a sample of the others,
     for gen/true_error.py to compare with mpmath. */
  if (Dump && isfinite(Ours) && isfinite(Reference) &&
      (Differs || F->Points % 1024 == 0))
    printf("D %s %a %a %a %a\n", F->Name, X, Y, Ours, Reference);
  F->Points++;
  F->Differ += Differs;
  if (Ulps > F->MaxUlp || (!Ok && F->Failures == 0)) {
    F->MaxUlp = Ulps > F->MaxUlp ? Ulps : F->MaxUlp;
    F->WorstX = X;
    F->WorstY = Y;
  }
  if (Ok)
    return;
  if (F->Failures++ < MaxReportedFailures) {
    if (F->Ours2)
      printf("FAIL %s(%a, %a) = %a, glibc %a\n", F->Name, X, Y, Ours,
             Reference);
    else
      printf("FAIL %s(%a) = %a, glibc %a\n", F->Name, X, Ours, Reference);
  }
}

static void check(Function *F, double X) {
  record(F, X, 0.0, F->Ours(X), F->Reference(X));
}

/* X and its Count neighbours on either side. */
static void checkAround(Function *F, double X, int Count) {
  check(F, X);
  double Up = X, Down = X;
  for (int I = 0; I < Count; ++I) {
    Up = nextafter(Up, INFINITY);
    Down = nextafter(Down, -INFINITY);
    check(F, Up);
    check(F, Down);
  }
}

static void checkPow(Function *F, double X, double Y) {
  record(F, X, Y, F->Ours2(X, Y), F->Reference2(X, Y));
}

/* ---------------------------------------------- deterministic inputs --- */

static uint64_t RandomState = 0x9e3779b97f4a7c15ull;

/* splitmix64 */
static uint64_t randomBits(void) {
  uint64_t Z = (RandomState += 0x9e3779b97f4a7c15ull);
  Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
  Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
  return Z ^ (Z >> 31);
}

/* Uniform in [0, 1). */
static double randomUnit(void) { return (randomBits() >> 11) * 0x1p-53; }

static double randomIn(double Low, double High) {
  return Low + (High - Low) * randomUnit();
}

/* Positive, with a binary exponent uniform in [MinExp, MaxExp] and a random
   mantissa; MinExp below -1022 gives subnormals. */
static double randomMagnitude(int MinExp, int MaxExp) {
  int Exp = MinExp + (int)(randomBits() % (uint64_t)(MaxExp - MinExp + 1));
  double Mantissa = 1.0 + randomUnit();
  return ldexp(Mantissa, Exp);
}

static double randomSign(double X) { return (randomBits() & 1) ? -X : X; }

/* Any double, NaNs and infinities included. */
static double randomDouble(void) { return fromBits(randomBits()); }

static const double Specials[] = {
    0.0,
    -0.0,
    INFINITY,
    -INFINITY,
    NAN,
    -NAN,
    0x1p-1074,               /* smallest subnormal */
    -0x1p-1074,              /* */
    0x0.fffffffffffffp-1022, /* largest subnormal */
    -0x0.fffffffffffffp-1022,
    0x1p-1022, /* smallest normal */
    -0x1p-1022,
    DBL_MAX,
    -DBL_MAX,
    1.0,
    -1.0,
    0x1.0000000000001p0,  /* 1 + ulp */
    0x1.fffffffffffffp-1, /* 1 - ulp */
    -0x1.0000000000001p0,
    -0x1.fffffffffffffp-1,
    0.5,
    -0.5,
    2.0,
    -2.0,
    3.0,
    -3.0,
    10.0,
    -10.0,
    0x1p-30,
    -0x1p-30,
    0x1p-60,
    0x1p30,
    0x1p52,
    0x1p53,
    0x1p60,
    -0x1p60,
    0x1p1023,
    M_PI,
    M_PI_2,
    M_PI_4,
    -M_PI_2,
    709.782712893384, /* ln(DBL_MAX) */
    709.7827128933841,
    -708.3964185322641, /* ln(2^-1022) */
    -745.1332191019411, /* ln(2^-1074) - ln(2)/2, the underflow edge */
    -745.1332191019412,
    1024.0,
    -1074.0,
    -1075.0,
    308.25471555991675, /* log10(DBL_MAX) */
    -323.3062153431158,
};
enum { NumSpecials = sizeof Specials / sizeof Specials[0] };

/* ---------------------------------------------------------- the tests --- */

static void testExp(Function *F, double Overflow, double Underflow,
                    double SubnormalEdge, double Range, int Sweep) {
  for (int I = 0; I < NumSpecials; ++I)
    check(F, Specials[I]);
  /* Where the result becomes infinite, subnormal and zero. */
  checkAround(F, Overflow, 2000);
  checkAround(F, Underflow, 2000);
  checkAround(F, SubnormalEdge, 2000);
  for (int I = -1100; I <= 1100; ++I)
    check(F, I);
  for (int I = 0; I < Sweep / 4; ++I)
    check(F, randomDouble());
  for (int I = 0; I < Sweep; ++I)
    check(F, randomIn(Underflow - 1, Overflow + 1));
  for (int I = 0; I < Sweep / 4; ++I)
    check(F, randomIn(-Range, Range));
  for (int I = 0; I < Sweep / 4; ++I)
    check(F, randomSign(randomMagnitude(-1074, 0)));
  for (int I = 0; I < Sweep / 4; ++I)
    check(F, randomIn(Underflow, SubnormalEdge));
}

static void testLog(Function *F, int Sweep) {
  for (int I = 0; I < NumSpecials; ++I)
    check(F, Specials[I]);
  checkAround(F, 1.0, 5000);
  /* Exact powers of 2 and 10 and their neighbours. */
  for (int I = -1074; I <= 1023; ++I)
    checkAround(F, ldexp(1.0, I), 1);
  for (double P = 1.0; P < 1e300; P *= 10.0)
    checkAround(F, P, 2);
  for (int I = 0; I < Sweep / 4; ++I)
    check(F, randomDouble());
  for (int I = 0; I < Sweep; ++I)
    check(F, randomMagnitude(-1074, 1023));
  for (int I = 0; I < Sweep / 4; ++I)
    check(F, randomIn(0.5, 2.0));
  for (int I = 0; I < Sweep / 4; ++I)
    check(F, 1.0 + randomSign(randomMagnitude(-60, -10)));
  for (int I = 0; I < Sweep / 8; ++I)
    check(F, randomMagnitude(-1074, -1023)); /* subnormal */
}

/* The double nearest to K*pi/2, from pi/2 in double-double. */
static double nearMultipleOfPiOver2(double K) {
  const double PiOver2Hi = 0x1.921fb54442d18p+0;
  const double PiOver2Lo = 0x1.1a62633145c07p-54;
  double Hi = K * PiOver2Hi;
  return Hi + (fma(K, PiOver2Hi, -Hi) + K * PiOver2Lo);
}

/*
 * Doubles very close to a multiple of pi/2 (x - n*pi/2 = r, |r| down to
 * 2^-60.9 for 0x1.6ac5b262ca1ffp+849, the closest of all doubles), found
 * per binary exponent with the continued fraction of 2^e*2/pi, with sin,
 * cos and tan correctly rounded (mpmath, 3000 bits). They are checked
 * against these values and not glibc's: glibc 2.36 is off by up to 1.4e5
 * ulp at such points above 2^20 or so.
 */
static const struct {
  double X, Sin, Cos, Tan;
} HardReductions[] = {
    {0x1.921fb54442d18p+0, 0x1.0000000000000p+0, 0x1.1a62633145c07p-54,
     0x1.d02967c31cdb5p+53}, /* r ~ 2^-53.9 */
    {0x1.2d97c7f3321d2p+2, -0x1.0000000000000p+0, -0x1.a79394c9e8a0ap-53,
     0x1.3570efd768923p+52}, /* r ~ 2^-52.3 */
    {0x1.6c6cbc45dc8dep+5, 0x1.0000000000000p+0, -0x1.6d61b58c99c43p-61,
     -0x1.66b9ebc4850c6p+60}, /* r ~ 2^-60.5 */
    {0x1.67e57cdd4dc54p+15, -0x1.0000000000000p+0, 0x1.396f53352c401p-53,
     -0x1.a22dec81cd7e4p+52}, /* r ~ 2^-52.7 */
    {0x1.0dec1da5fa53fp+17, 0x1.0000000000000p+0, -0x1.d626fccfc2601p-52,
     -0x1.16c9485688fedp+51}, /* r ~ 2^-51.1 */
    {0x1.39c6fd67805a7p+18, -0x1.0000000000000p+0, -0x1.988efe18ff83fp-55,
     0x1.40d0d167bccd6p+54}, /* r ~ 2^-54.3 */
    {0x1.b951f1572eba5p+23, -0x1.0000000000000p+0, -0x1.f54f5227a4e84p-60,
     0x1.057584c429b3ap+59}, /* r ~ 2^-59.0 */
    {0x1.782b7a20df6d4p+67, -0x1.0000000000000p+0, -0x1.7a6500ca6d83bp-58,
     0x1.5a63c82b6dae2p+57}, /* r ~ 2^-57.4 */
    {0x1.66bd5424e5655p+90, -0x1.0000000000000p+0, -0x1.7a6b2243e72f6p-58,
     0x1.5a5e2b886a2abp+57}, /* r ~ 2^-57.4 */
    {0x1.504cac51f1eafp+131, -0x1.0000000000000p+0, -0x1.0cb604d34f341p-59,
     0x1.e7c7d0f43f81ep+58}, /* r ~ 2^-58.9 */
    {0x1.5ad5a62cb1cc9p+143, 0x1.0000000000000p+0, -0x1.1fa59d4990bd6p-57,
     -0x1.c7ab7389c24d7p+56}, /* r ~ 2^-56.8 */
    {0x1.0539b48d14c55p+182, -0x1.0000000000000p+0, -0x1.35481dbfbe4fcp-57,
     0x1.a7cb7cb4280b0p+56}, /* r ~ 2^-56.7 */
    {0x1.e7e44a78ac18cp+197, -0x1.0000000000000p+0, 0x1.ed415f54c8cb8p-59,
     -0x1.09ba7e061f301p+58}, /* r ~ 2^-58.1 */
    {0x1.69eab0985179bp+246, -0x1.0000000000000p+0, -0x1.61ecec9c577fdp-58,
     0x1.72567cb9047a9p+57}, /* r ~ 2^-57.5 */
    {0x1.b2196364d750bp+253, -0x1.0000000000000p+0, 0x1.12bbbe07f2de1p-58,
     -0x1.dd1688c6969adp+57}, /* r ~ 2^-57.9 */
    {0x1.c45cd11154dfdp+295, 0x1.0000000000000p+0, 0x1.01242876d7c1bp-58,
     0x1.fdba46f553a09p+57}, /* r ~ 2^-58.0 */
    {0x1.e3ca9b6c655cbp+408, 0x1.0000000000000p+0, 0x1.3b5dbbbe33decp-57,
     0x1.9f9e551266c3cp+56}, /* r ~ 2^-56.7 */
    {0x1.b88cbb4e32576p+487, -0x1.0000000000000p+0, 0x1.38ffe4e7e3a15p-57,
     -0x1.a2c2ccbc1a632p+56}, /* r ~ 2^-56.7 */
    {0x1.8b28676cdcc5bp+555, 0x1.0000000000000p+0, -0x1.eca040e98a76fp-58,
     -0x1.0a1166d8ca6e2p+57}, /* r ~ 2^-57.1 */
    {0x1.4c96c11134d36p+577, -0x1.0000000000000p+0, 0x1.6ec67bcf77522p-59,
     -0x1.655cf9e23c4d7p+58}, /* r ~ 2^-58.5 */
    {0x1.83009e2e9e2ebp+614, 0x1.0000000000000p+0, -0x1.104830400912ap-58,
     -0x1.e1621fb1336a5p+57}, /* r ~ 2^-57.9 */
    {0x1.db41f3cb71d7bp+680, 0x1.0000000000000p+0, 0x1.e09878d22e29dp-59,
     0x1.10ba6f3f467d7p+58}, /* r ~ 2^-58.1 */
    {0x1.dfa8d18f2b3eep+689, 0x1.0000000000000p+0, -0x1.28904e0d7f525p-57,
     -0x1.b9f819ad8b5e8p+56}, /* r ~ 2^-56.8 */
    {0x1.6e8d778c94d66p+794, -0x1.0000000000000p+0, -0x1.3c408220c4c3fp-57,
     0x1.9e744df9d68fcp+56}, /* r ~ 2^-56.7 */
    {0x1.6ac5b262ca1ffp+849, 0x1.0000000000000p+0, -0x1.14ae72e6ba22fp-61,
     -0x1.d9ba9a7975636p+60}, /* r ~ 2^-60.9 */
    {0x1.cfe482285f8edp+860, -0x1.0000000000000p+0, -0x1.d08f59c32bfa3p-59,
     0x1.1a246b6f92457p+58}, /* r ~ 2^-58.1 */
    {0x1.4117573397d42p+939, 0x1.0000000000000p+0, -0x1.cccb7fc6dfae9p-58,
     -0x1.1c7294aee7ba4p+57}, /* r ~ 2^-57.2 */
    {0x1.e1987122b7e06p+951, 0x1.0000000000000p+0, 0x1.62c5dcf7f8d24p-57,
     0x1.717407d201e67p+56}, /* r ~ 2^-56.5 */
    {0x1.e009c53148be1p+991, 0x1.0000000000000p+0, 0x1.295a3b0a64b1dp-59,
     0x1.b8cbf7ecfaffap+58}, /* r ~ 2^-58.8 */
    {0x1.61a3db8c8d129p+1021, -0x1.0000000000000p+0, -0x1.dd15f96b823f2p-58,
     0x1.12bc109561cd5p+57}, /* r ~ 2^-57.1 */
};

static void testTrig(Function *F, int Which, int Sweep) {
  for (int I = 0; I < NumSpecials; ++I)
    check(F, Specials[I]);
  for (unsigned I = 0; I < sizeof HardReductions / sizeof HardReductions[0];
       ++I) {
    double X = HardReductions[I].X;
    double Exact = Which == 0   ? HardReductions[I].Sin
                   : Which == 1 ? HardReductions[I].Cos
                                : HardReductions[I].Tan;
    record(F, X, 0.0, F->Ours(X), Exact);
    /* sin and tan are odd, cos is even. */
    record(F, -X, 0.0, F->Ours(-X), Which == 1 ? Exact : -Exact);
  }
  /* Where the reduction switches method. */
  checkAround(F, 0x1p20, 20);
  checkAround(F, M_PI_4, 20);
  for (int K = -2000; K <= 2000; ++K)
    checkAround(F, nearMultipleOfPiOver2(K), 1);
  for (int I = 0; I < Sweep / 8; ++I) {
    double K = __builtin_trunc(randomIn(0, 0x1p40));
    checkAround(F, randomSign(nearMultipleOfPiOver2(K)), 1);
  }
  for (int I = 0; I < Sweep; ++I)
    check(F, randomIn(-10, 10));
  for (int I = 0; I < Sweep; ++I)
    check(F, randomIn(-1e6, 1e6));
  for (int I = 0; I < Sweep / 2; ++I)
    check(F, randomSign(randomMagnitude(19, 1023))); /* up to DBL_MAX */
  for (int I = 0; I < Sweep / 4; ++I)
    check(F, randomDouble());
  for (int I = 0; I < Sweep / 8; ++I)
    check(F, randomSign(randomMagnitude(-1074, -1)));
}

static void testPow(Function *F, int Sweep) {
  /* Annex F: every pair of special values, both ways round, plus integer
     and non-integer exponents of special bases. */
  static const double Exponents[] = {0.5,
                                     -0.5,
                                     1.5,
                                     -1.5,
                                     3.0,
                                     -3.0,
                                     4.0,
                                     -4.0,
                                     0x1p52 + 1,
                                     -(0x1p52 + 1),
                                     0x1.fffffffffffffp52,
                                     0x1p53,
                                     -0x1p53,
                                     0x1p63,
                                     -0x1p63,
                                     1023.0,
                                     -1074.0,
                                     1075.0,
                                     0x1p-60,
                                     -0x1p-60,
                                     1e300,
                                     -1e300};
  for (int I = 0; I < NumSpecials; ++I) {
    for (int J = 0; J < NumSpecials; ++J)
      checkPow(F, Specials[I], Specials[J]);
    for (unsigned J = 0; J < sizeof Exponents / sizeof Exponents[0]; ++J)
      checkPow(F, Specials[I], Exponents[J]);
  }
  /* pow(2, n) and pow(-2, n) are exact, also when subnormal or infinite. */
  for (int N = -1100; N <= 1100; ++N) {
    checkPow(F, 2.0, N);
    checkPow(F, -2.0, N);
    checkPow(F, 0.5, N + 0.5);
    checkPow(F, 10.0, N / 3);
  }
  /* 1 +- a few ulp to huge powers, where the result leaves 1 slowly. */
  for (int I = 0; I < Sweep / 8; ++I) {
    double X = 1.0 + randomSign(randomMagnitude(-52, -30));
    checkPow(F, X, randomSign(randomMagnitude(0, 1023)));
  }
  /* Results near overflow, the subnormal edge and underflow: y*log(x) close
     to those logarithms, then its neighbours. */
  static const double Edges[] = {709.782712893384, -708.3964185322641,
                                 -745.1332191019411};
  for (int E = 0; E < 3; ++E) {
    for (int I = 0; I < Sweep / 8; ++I) {
      double X = randomMagnitude(-1074, 1023);
      if (X == 1.0)
        continue;
      double Y = (Edges[E] + randomIn(-1.0, 1.0)) / log(X);
      checkPow(F, X, Y);
      checkPow(F, X, nextafter(Y, INFINITY));
      checkPow(F, -X, __builtin_trunc(Y));
    }
  }
  /* X is drawn first in a statement of its own: the order in which function
     arguments are evaluated is unspecified (gcc goes right to left), and the
     inputs must not depend on the compiler. */
  for (int I = 0; I < Sweep / 4; ++I) {
    double X = randomDouble();
    checkPow(F, X, randomDouble());
  }
  for (int I = 0; I < Sweep; ++I) {
    double X = randomIn(0, 10);
    checkPow(F, X, randomIn(-300, 300));
  }
  for (int I = 0; I < Sweep / 2; ++I) { /* any positive x, |y*log x| <= 746 */
    double X = randomMagnitude(-1074, 1023);
    checkPow(F, X, randomIn(-746, 746) / (X == 1.0 ? 1.0 : log(X)));
  }
  /* Negative bases with integer exponents, odd and even. */
  for (int I = 0; I < Sweep / 2; ++I) {
    double X = -randomIn(0, 10);
    checkPow(F, X, __builtin_trunc(randomIn(-400, 400)));
  }
  for (int I = 0; I < Sweep / 8; ++I) { /* and negative with non-integer y */
    double X = -randomIn(0, 10);
    checkPow(F, X, randomIn(-400, 400));
  }
  for (int I = 0; I < Sweep / 4; ++I) /* square roots */
    checkPow(F, randomMagnitude(-1074, 1023), 0.5);
  for (int I = 0; I < Sweep / 8; ++I) { /* tiny exponents */
    double X = randomMagnitude(-1074, 1023);
    checkPow(F, X, randomSign(randomMagnitude(-1074, -20)));
  }
}

int main(int Argc, char **Argv) {
  Verbose = Argc > 1 && strcmp(Argv[1], "-v") == 0;
  Dump = Argc > 1 && strcmp(Argv[1], "-d") == 0;
  enum { Sweep = 300000 };
  Function Functions[] = {
      {.Name = "exp", .Ours = __hpvm_f64_exp, .Reference = exp},
      {.Name = "exp2", .Ours = __hpvm_f64_exp2, .Reference = exp2},
      {.Name = "exp10", .Ours = __hpvm_f64_exp10, .Reference = exp10},
      {.Name = "log", .Ours = __hpvm_f64_log, .Reference = log},
      {.Name = "log2", .Ours = __hpvm_f64_log2, .Reference = log2},
      {.Name = "log10", .Ours = __hpvm_f64_log10, .Reference = log10},
      {.Name = "sin", .Ours = __hpvm_f64_sin, .Reference = sin},
      {.Name = "cos", .Ours = __hpvm_f64_cos, .Reference = cos},
      {.Name = "tan", .Ours = __hpvm_f64_tan, .Reference = tan},
      {.Name = "pow", .Ours2 = __hpvm_f64_pow, .Reference2 = pow},
  };
  enum { NumFunctions = sizeof Functions / sizeof Functions[0] };
  clock_t Start = clock();

  testExp(&Functions[0], 709.782712893384, -745.1332191019411,
          -708.3964185322641, 1.0, Sweep);
  testExp(&Functions[1], 1024.0, -1075.0, -1022.0, 1.0, Sweep);
  testExp(&Functions[2], 308.25471555991675, -323.60724533877976,
          -307.6526555685888, 1.0, Sweep);
  for (int I = 3; I < 6; ++I)
    testLog(&Functions[I], Sweep);
  for (int I = 6; I < 9; ++I)
    testTrig(&Functions[I], I - 6, Sweep);
  testPow(&Functions[9], 2 * Sweep);

  uint64_t TotalPoints = 0, TotalFailures = 0;
  printf("%-6s %10s %8s %10s %9s\n", "func", "points", "max ulp", "not exact",
         "failures");
  for (int I = 0; I < NumFunctions; ++I) {
    Function *F = &Functions[I];
    printf("%-6s %10llu %8llu %10llu %9llu", F->Name,
           (unsigned long long)F->Points, (unsigned long long)F->MaxUlp,
           (unsigned long long)F->Differ, (unsigned long long)F->Failures);
    if (Verbose && F->Ours2)
      printf("   worst at (%a, %a)", F->WorstX, F->WorstY);
    else if (Verbose)
      printf("   worst at %a", F->WorstX);
    printf("\n");
    TotalPoints += F->Points;
    TotalFailures += F->Failures;
  }
  printf("%llu points, %llu failures, %.2f s, results checksum %016llx\n",
         (unsigned long long)TotalPoints, (unsigned long long)TotalFailures,
         (double)(clock() - Start) / CLOCKS_PER_SEC,
         (unsigned long long)Checksum);
  if (FmaCalls != 0) {
    /* Results that depend on a fused fma are wrong on devices that do not
       fuse it, lavapipe among them. */
    printf("FAIL the library called fma %llu times\n",
           (unsigned long long)FmaCalls);
    return 1;
  }
  return TotalFailures != 0;
}

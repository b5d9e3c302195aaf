/*
 * Double-precision exp, exp2, exp10, log, log2, log10, sin, cos, tan and pow
 * for SPIR-V kernels that run on Vulkan.
 *
 * Why this file exists: Vulkan's GLSL.std.450 extended instruction set has
 * Exp, Log, Sin, Cos, Pow, ... only for 16- and 32-bit floats, so a kernel
 * that calls the double-precision functions has nothing to map them to. The
 * NVPTX backend links libdevice and the OpenCL flavour has OpenCL.std, which
 * do have them; for Vulkan we compile this file to LLVM bitcode and link it
 * into the kernel before the SPIR-V emitter runs. Everything here is therefore
 * freestanding, portable C: plain scalar integer and floating-point
 * arithmetic, the fabs, trunc and rint builtins (exact on every device), one
 * 160-byte constant table, no calls, no recursion and no mutable globals.
 *
 * No fused multiply-add, on purpose. Double-double arithmetic needs the exact
 * error of a product, a*b - fl(a*b), which is usually one fma. But Vulkan
 * does not require GLSL.std.450 Fma to be fused (its precision is "inherited
 * from OpFMul followed by OpFAdd"), and Mesa's lavapipe does round twice, so
 * fma(a, b, -a*b) is 0 there: an earlier version of this file that relied on
 * it was up to ~500 ulp off in exp and pow on lavapipe. So the exact products
 * are Dekker's, on Veltkamp's splitting: nothing but +, - and *, which Vulkan
 * does require to be correctly rounded (the SPIR-V emitter marks each one
 * NoContraction and contraction is off here, so a*b+c is always two
 * roundings), and the polynomials are plain Horner, whose extra rounding per
 * step costs at most a few hundredths of an ulp where they sit. The one
 * condition Dekker's product adds, that 2^27+1 times an operand must not
 * overflow, holds wherever it is used; each place says why.
 *
 * Divisions may be off too: Vulkan allows 2.5 ulp for a double OpFDiv. Both
 * quotients here (s = f/(m+1) in log, sin/cos in tan) are therefore followed
 * by a correction from their exact remainder (again a Dekker product), which
 * makes the pair accurate to ~2^-100 whatever the division returned; the
 * correction's own division only touches bits below that. So the CPU build
 * gives the same bits as any conforming device that keeps subnormals and
 * divides with correct rounding, and the same accuracy on one whose division
 * is not correctly rounded. Every division is written HPVM_F64_DIV so that the
 * accuracy test can check the latter.
 *
 * Accuracy, measured against 320-bit mpmath on the accuracy test's 9 million
 * inputs (gen/true_error.py): exp, exp2, exp10 and pow within 0.53 ulp of the
 * exact result (subnormal results included), log, log2 and log10 correctly
 * rounded on all of them, sin and cos within 0.6 ulp and tan within 0.71 ulp,
 * large arguments included; the same as the earlier fma-based version. With
 * divisions 2 ulp off, those figures stay, except that log(1 - 2^-52), whose
 * exact value is 2^-53.6 ulp past a halfway point, may round the other way.
 * Special values follow C99 Annex F. test/unit/backends/f64_math_accuracy.c
 * checks all of it against glibc, also with divisions 2 ulp off and with a
 * guard against any fma.
 *
 * Methods (the polynomial coefficients are minimax approximations computed
 * with a Remez exchange in mpmath for this file, then rounded to double; the
 * scripts are in gen/):
 *
 * - exp(x): x = k*ln2 + r with |r| <= ln2/2, where k*ln2 is subtracted in
 *   double-double so that r is exact to ~2^-100; e^r = 1 + r + r^2/2 +
 *   r^3*P(r) with P of degree 9, the first terms summed with error-free
 *   transformations; the scaling by 2^k is arranged so that a subnormal
 *   result is rounded only once. exp2 and exp10 multiply
 *   x by ln2 or ln10 in double-double and use the same kernel (and pow feeds
 *   it a double-double exponent).
 * - log(x): x = 2^e * m with m in [sqrt(1/2), sqrt(2)); log m = 2*atanh(s)
 *   with s = (m-1)/(m+1), |s| < 0.1716, computed as the odd series
 *   2s + 2s^3/3 + 2s^5/5 + s^7*R(s^2) with R of degree 6. s and the first
 *   terms are carried in double-double, which gives log to ~2^-66 relative:
 *   pow needs that, since an error in log(x) is multiplied by y. log2 and
 *   log10 multiply by 1/ln2 or 1/ln10 in double-double.
 * - sin, cos, tan: x = n*pi/2 + r with |r| <= pi/4 and r in double-double.
 *   For |x| < 2^20 pi/2 is split into three parts (Cody-Waite); above that
 *   the fractional part of x*2/pi is computed exactly in 32-bit integer limbs
 *   from a 192-bit window of the bits of 2/pi (Payne-Hanek), which keeps r
 *   accurate even for the doubles closest to a multiple of pi/2 (|r| about
 *   2^-61). sin r = r + r^3*S(r^2) (S of degree 6) and cos r = 1 - r^2/2 +
 *   r^4*C(r^2) (C of degree 5), both returning double-double; the quadrant
 *   picks which one and the sign; tan divides them in double-double.
 * - pow(x, y): Annex F special cases first, then exp(y * log|x|) with log|x|
 *   and the product in double-double, so that results near 2^1024 (where y *
 *   log x is near 709 and an absolute error e becomes a relative error e) are
 *   still within a fraction of an ulp; the sign comes from odd integer y.
 */

#include <stdint.h>

/* Error-free transformations need each product and sum rounded on its own;
   this keeps the results the same whatever -ffp-contract says (in clang;
   gcc ignores the pragma and needs -ffp-contract=off). */
#pragma STDC FP_CONTRACT OFF

#define F64_INLINE static inline __attribute__((always_inline))

/* An unevaluated sum hi + lo with |lo| <= ulp(hi)/2 (or close to it). */
typedef struct {
  double hi, lo;
} DoubleDouble;

F64_INLINE uint64_t bitsOf(double X) {
  uint64_t Bits;
  __builtin_memcpy(&Bits, &X, sizeof Bits);
  return Bits;
}

F64_INLINE double doubleFromBits(uint64_t Bits) {
  double X;
  __builtin_memcpy(&X, &Bits, sizeof X);
  return X;
}

/* 2^N for -1022 <= N <= 1023. */
F64_INLINE double powerOfTwo(int N) {
  return doubleFromBits((uint64_t)(N + 1023) << 52);
}

/*
 * All divisions go through this. The accuracy test defines it to a division
 * that is up to 2 ulp off, as a Vulkan device's may be, to show that the
 * correction after each quotient makes that harmless.
 */
#ifndef HPVM_F64_DIV
#define HPVM_F64_DIV(A, B) ((A) / (B))
#endif

/* Error-free transformations: the pair is exactly A + B or A * B. */
F64_INLINE DoubleDouble twoSum(double A, double B) {
  double Sum = A + B;
  double BPart = Sum - A;
  double Err = (A - (Sum - BPart)) + (B - BPart);
  return (DoubleDouble){Sum, Err};
}

/* Like twoSum, but only valid when A is zero or exponent(A) >= exponent(B). */
F64_INLINE DoubleDouble fastTwoSum(double A, double B) {
  double Sum = A + B;
  return (DoubleDouble){Sum, B - (Sum - A)};
}

/* A = Head + Tail exactly, each with at most 26 significant bits. */
typedef struct {
  double Head, Tail;
} Halves;

/*
 * Veltkamp's splitting: Head is A rounded to 26 bits and Tail = A - Head,
 * which fits in 26 bits too because it may take either sign; so the product
 * of any two halves has at most 52 bits and is exact. Needs |A| < 2^996, or
 * A * (2^27 + 1) overflows.
 */
F64_INLINE Halves split(double A) {
  double Scaled = 134217729.0 * A; /* 2^27 + 1 */
  double Head = Scaled - (Scaled - A);
  return (Halves){Head, A - Head};
}

/*
 * Dekker's product: Prod + Err == A * B exactly, with the four products of
 * halves exact and each partial sum of them exact (Dekker 1971) under
 * round-to-nearest. Conditions: |A|, |B| < 2^996 (see split), and an error
 * term above the subnormal range (|A * B| >= 2^-969 or so); below that Err
 * is off by at most 2^-1074, which never matters where the product is used.
 */
F64_INLINE DoubleDouble twoProd(double A, double B) {
  double Prod = A * B;
  Halves SA = split(A), SB = split(B);
  double Err =
      ((SA.Head * SB.Head - Prod) + SA.Head * SB.Tail + SA.Tail * SB.Head) +
      SA.Tail * SB.Tail;
  return (DoubleDouble){Prod, Err};
}

/* twoProd(A, A), with the two equal cross terms as one exact doubling. */
F64_INLINE DoubleDouble twoSquare(double A) {
  double Prod = A * A;
  Halves S = split(A);
  double Err =
      ((S.Head * S.Head - Prod) + 2.0 * (S.Head * S.Tail)) + S.Tail * S.Tail;
  return (DoubleDouble){Prod, Err};
}

/* twoProd(Short, B) for an integer |Short| < 2^26, which is its own Head
   (Tail 0), so two of Dekker's four products vanish. */
F64_INLINE DoubleDouble twoProdShort(double Short, double B) {
  double Prod = Short * B;
  Halves SB = split(B);
  return (DoubleDouble){Prod, (Short * SB.Head - Prod) + Short * SB.Tail};
}

F64_INLINE DoubleDouble ddAdd(DoubleDouble A, DoubleDouble B) {
  DoubleDouble Sum = twoSum(A.hi, B.hi);
  return fastTwoSum(Sum.hi, Sum.lo + (A.lo + B.lo));
}

/* The products below use twoProd on their high parts, so they need
   |A.hi|, |B.hi|, |D| < 2^996; all operands here are below 2^64. */
F64_INLINE DoubleDouble ddMul(DoubleDouble A, DoubleDouble B) {
  DoubleDouble Prod = twoProd(A.hi, B.hi);
  return fastTwoSum(Prod.hi, Prod.lo + (A.hi * B.lo + A.lo * B.hi));
}

/* A (double-double) times D (double). */
F64_INLINE DoubleDouble ddMulD(DoubleDouble A, double D) {
  DoubleDouble Prod = twoProd(A.hi, D);
  return fastTwoSum(Prod.hi, Prod.lo + A.lo * D);
}

/* A times an integer |Short| < 2^26. */
F64_INLINE DoubleDouble ddMulShort(DoubleDouble A, double Short) {
  DoubleDouble Prod = twoProdShort(Short, A.hi);
  return fastTwoSum(Prod.hi, Prod.lo + A.lo * Short);
}

static const DoubleDouble Ln2 = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};
static const DoubleDouble InvLn2 = {0x1.71547652b82fep+0,
                                    0x1.777d0ffda0d24p-56};
static const DoubleDouble Ln10 = {0x1.26bb1bbb55516p+1, -0x1.f48ad494ea3e9p-53};
static const DoubleDouble InvLn10 = {0x1.bcb7b1526e50ep-2,
                                     0x1.95355baaafad3p-57};
static const DoubleDouble PiOver2 = {0x1.921fb54442d18p+0,
                                     0x1.1a62633145c07p-54};

/* ---------------------------------------------------------------- exp --- */

/*
 * e^(Z.hi + Z.lo) for -750 < Z.hi < 711, Z.lo tiny next to Z.hi. The
 * callers return infinity or zero outside that range themselves.
 */
F64_INLINE double expOfDoubleDouble(DoubleDouble Z) {
  double K = __builtin_rint(Z.hi * InvLn2.hi);
  /* R = Z - K*ln2: K*ln2.hi is exact as a pair (|K| < 2^11), and the
     subtraction from Z.hi cancels exactly, so only the tiny K*ln2.lo term is
     rounded. */
  DoubleDouble KLn2 = twoProdShort(K, Ln2.hi);
  DoubleDouble Diff = twoSum(Z.hi, -KLn2.hi);
  DoubleDouble R = twoSum(Diff.hi, ((Diff.lo - KLn2.lo) - K * Ln2.lo) + Z.lo);
  double X = R.hi;

  /* (e^X - 1 - X - X^2/2) / X^3 on |X| <= 0.3467, error below 2^-55.5.
     Horner without fma rounds twice a step, but X^3*P is at most 1/100 of
     the result, so that stays below 0.01 ulp. */
  double P = 0x1.1f7f3cce13b39p-29;
  P = P * X + 0x1.af38c73514dc5p-26;
  P = P * X + 0x1.27e4d4c8c4b97p-22;
  P = P * X + 0x1.71de0da1eebb6p-19;
  P = P * X + 0x1.a01a01a93a251p-16;
  P = P * X + 0x1.a01a01a7c7564p-13;
  P = P * X + 0x1.6c16c16c15dbep-10;
  P = P * X + 0x1.11111111109afp-7;
  P = P * X + 0x1.5555555555556p-5;
  P = P * X + 0x1.5555555555556p-3;

  /* 1 + X + X^2/2 carry most of the value, so they are summed without
     rounding; everything else is small enough for plain arithmetic. */
  DoubleDouble OnePlusX = twoSum(1.0, X);
  DoubleDouble XSquared = twoSquare(X);
  DoubleDouble Head = twoSum(OnePlusX.hi, 0.5 * XSquared.hi);
  double Tail = OnePlusX.lo + Head.lo + 0.5 * XSquared.lo +
                X * XSquared.hi * P + R.lo * (1.0 + X);
  double Mantissa = Head.hi + Tail;

  int KInt = (int)K;
  if (KInt <= -1022) {
    /* The result may be subnormal, where Mantissa * 2^K would round twice.
       Below 2^-1022, adding 2^-1022 puts it in the binade whose spacing is
       the subnormals' (2^-1074), so rounding 1 + Mantissa * 2^(K+1022) is
       the one correct rounding, and the rest is exact. */
    double Scale = powerOfTwo(KInt + 1022);
    double Scaled = Head.hi * Scale;
    if (Scaled < 1.0) {
      DoubleDouble Biased = fastTwoSum(1.0, Scaled);
      return ((Biased.hi + (Biased.lo + Tail * Scale)) - 1.0) * 0x1p-1022;
    }
  }
  /* Mantissa * 2^K with 2^K split in two so that both factors are normal:
     the first product is exact and only the second one rounds (or
     overflows). */
  int KFirst = KInt / 2;
  return Mantissa * powerOfTwo(KFirst) * powerOfTwo(KInt - KFirst);
}

double __hpvm_f64_exp(double X) {
  if (X != X)
    return X + X;
  /* e^x overflows above ln(DBL_MAX) ~ 709.7827 and is below half the
     smallest subnormal under ~ -745.1333; the kernel handles the edges. */
  if (X > 709.8)
    return __builtin_inf();
  if (X < -746.0)
    return 0.0;
  return expOfDoubleDouble((DoubleDouble){X, 0.0});
}

double __hpvm_f64_exp2(double X) {
  if (X != X)
    return X + X;
  if (X > 1024.0)
    return __builtin_inf();
  if (X < -1080.0)
    return 0.0;
  return expOfDoubleDouble(ddMulD(Ln2, X));
}

double __hpvm_f64_exp10(double X) {
  if (X != X)
    return X + X;
  if (X > 308.5)
    return __builtin_inf();
  if (X < -324.0)
    return 0.0;
  return expOfDoubleDouble(ddMulD(Ln10, X));
}

/* ---------------------------------------------------------------- log --- */

/* log(X) for finite X > 0 (subnormals included), relative error ~2^-66. */
F64_INLINE DoubleDouble logOfPositive(double X) {
  int ExponentBias = 1023;
  if (X < 0x1p-1022) {
    X *= 0x1p54;
    ExponentBias += 54;
  }
  uint64_t Bits = bitsOf(X);
  int Exponent = (int)(Bits >> 52) - ExponentBias;
  double M =
      doubleFromBits((Bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  /* Centre m on 1 so that |s| and the series stay small on both sides. */
  if (M > 0x1.6a09e667f3bcdp+0) {
    M *= 0.5;
    Exponent += 1;
  }

  /* S = (M - 1) / (M + 1) in double-double. M - 1 is exact. The remainder
     F - SHi*(M + 1) starts from the exact product SHi*Denominator.hi, which
     is within a few ulp of F, so F - Back.hi is exact (Sterbenz) and the
     remainder is good to ~2^-105 relative to F whether or not the division
     rounded correctly. Its quotient, the correction, is a few 2^-53 of SHi,
     so the second division's own error does not show. */
  double F = M - 1.0;
  DoubleDouble Denominator = fastTwoSum(1.0, M);
  double SHi = HPVM_F64_DIV(F, Denominator.hi);
  DoubleDouble Back = twoProd(SHi, Denominator.hi);
  double Remainder = ((F - Back.hi) - Back.lo) - SHi * Denominator.lo;
  DoubleDouble S = fastTwoSum(SHi, HPVM_F64_DIV(Remainder, Denominator.hi));

  DoubleDouble Z = ddMul(S, S);
  /* R(z) = (2 atanh(s) - 2s - 2s^3/3 - 2s^5/5) / s^7 for z = s^2 <=
     0.02944, error below 2^-51.7. */
  double R = 0x1.d9cc1bb51e101p-4;
  R = R * Z.hi + 0x1.e01f36a4dc83dp-4;
  R = R * Z.hi + 0x1.1115a2dc567e9p-3;
  R = R * Z.hi + 0x1.3b13a51927a9fp-3;
  R = R * Z.hi + 0x1.745d175521abap-3;
  R = R * Z.hi + 0x1.c71c71c71533cp-3;
  R = R * Z.hi + 0x1.2492492492497p-2;

  /* The 2/5 and 2/3 terms are within 2^-12 and 2^-7 of the result, so they
     and their coefficients need more than 53 bits. */
  DoubleDouble Series =
      ddAdd((DoubleDouble){0x1.999999999999ap-2, -0x1.999999999999ap-56},
            ddMulD(Z, R));
  Series = ddAdd((DoubleDouble){0x1.5555555555555p-1, 0x1.5555555555555p-55},
                 ddMul(Z, Series));
  DoubleDouble LogM =
      ddAdd((DoubleDouble){2.0 * S.hi, 2.0 * S.lo}, ddMul(ddMul(S, Z), Series));
  /* |Exponent| <= 1077. */
  return ddAdd(ddMulShort(Ln2, (double)Exponent), LogM);
}

/* The result of log, log2 or log10 when X is not a finite positive number. */
F64_INLINE double logOfSpecial(double X) {
  if (X == 0.0)
    return -__builtin_inf();
  if (X < 0.0)
    return __builtin_nan("");
  return X + X; /* +inf or NaN */
}

/* On the bits, because LLVM folds the two comparisons into llvm.is.fpclass,
   which the SPIR-V emitter does not have. */
F64_INLINE int isFinitePositive(double X) {
  return bitsOf(X) - 1 < 0x7fefffffffffffffull;
}

double __hpvm_f64_log(double X) {
  if (!isFinitePositive(X))
    return logOfSpecial(X);
  return logOfPositive(X).hi;
}

double __hpvm_f64_log2(double X) {
  if (!isFinitePositive(X))
    return logOfSpecial(X);
  return ddMul(logOfPositive(X), InvLn2).hi;
}

double __hpvm_f64_log10(double X) {
  if (!isFinitePositive(X))
    return logOfSpecial(X);
  return ddMul(logOfPositive(X), InvLn10).hi;
}

/* ---------------------------------------------------------------- pow --- */

double __hpvm_f64_pow(double X, double Y) {
  /* C99 Annex F: these hold even when the other argument is NaN. */
  if (Y == 0.0 || X == 1.0)
    return 1.0;
  if (X != X || Y != Y)
    return X + Y;
  double AbsX = __builtin_fabs(X);
  if (__builtin_fabs(Y) == __builtin_inf()) {
    if (AbsX == 1.0)
      return 1.0;
    return (AbsX > 1.0) == (Y > 0.0) ? __builtin_inf() : 0.0;
  }

  /* Every double of magnitude >= 2^53 is even, and halving is exact. */
  int YIsInteger = __builtin_trunc(Y) == Y;
  int YIsOdd = YIsInteger && __builtin_trunc(Y * 0.5) != Y * 0.5;
  /* The sign of the result: negative X (-0 included, hence the bit test)
     only survives an odd Y. */
  int XIsNegative = (int)(bitsOf(X) >> 63);
  double Sign = (XIsNegative && YIsOdd) ? -1.0 : 1.0;
  if (AbsX == 0.0 || AbsX == __builtin_inf()) {
    /* 0^y and inf^y are 0 or inf; (-0)^y and (-inf)^y keep the sign only
       for odd integer y. */
    int ResultIsInfinite = (AbsX == 0.0) == (Y < 0.0);
    return Sign * (ResultIsInfinite ? __builtin_inf() : 0.0);
  }
  if (XIsNegative && !YIsInteger)
    return __builtin_nan("");
  /* (-1)^y for integer y, exactly. It also keeps log|x| = 0 away from the
     range checks below, which then bound |y|. */
  if (AbsX == 1.0)
    return Sign;

  DoubleDouble LogX = logOfPositive(AbsX);
  double ZHi = Y * LogX.hi;
  /* Decide overflow and underflow before the product's error term, whose
     splitting could overflow. Past this point |Y| < 2^63, since |log x| >
     2^-54 for every double x != 1, so Dekker's product is safe; when Y*log x
     is so small that its error term underflows, e^Z rounds to 1 anyway. */
  if (ZHi > 710.0)
    return Sign * __builtin_inf();
  if (ZHi < -746.0)
    return Sign * 0.0;
  DoubleDouble Product = twoProd(Y, LogX.hi);
  double ZLo = Product.lo + Y * LogX.lo;
  return Sign * expOfDoubleDouble(fastTwoSum(Product.hi, ZLo));
}

/* ------------------------------------------------------ sin, cos, tan --- */

/*
 * The bits of 2/pi after the binary point, 64 to a word, most significant
 * first, with a zero word in front so that a window may start up to 63 bits
 * before the binary point. 19 words cover the 192-bit window that the
 * largest double needs.
 */
static const uint64_t TwoOverPiBits[20] = {
    0x0000000000000000ull, 0xa2f9836e4e441529ull, 0xfc2757d1f534ddc0ull,
    0xdb6295993c439041ull, 0xfe5163abdebbc561ull, 0xb7246e3a424dd2e0ull,
    0x06492eea09d1921cull, 0xfe1deb1cb129a73eull, 0xe88235f52ebb4484ull,
    0xe99c7026b45f7e41ull, 0x3991d639835339f4ull, 0x9c845f8bbdf9283bull,
    0x1ff897ffde05980full, 0xef2f118b5a0a6d1full, 0x6d367ecf27cb09b7ull,
    0x4f463f669e5fea2dull, 0x7527bac7ebe5f17bull, 0x3d0739f78a5292eaull,
    0x6bfb5fb11f8d5d08ull, 0x56033046fc7b6babull};

typedef struct {
  DoubleDouble R; /* x - Quadrant*pi/2 (mod 2*pi), |R| <= pi/4 */
  int Quadrant;   /* 0..3 */
} ReducedAngle;

/* 64 bits of 2/pi starting at bit BitIndex of TwoOverPiBits. */
F64_INLINE uint64_t twoOverPiWord(int BitIndex) {
  int Word = BitIndex >> 6;
  int Shift = BitIndex & 63;
  /* Two shifts on the right so that Shift == 0 never shifts by 64. */
  return (TwoOverPiBits[Word] << Shift) |
         ((TwoOverPiBits[Word + 1] >> 1) >> (63 - Shift));
}

/*
 * Payne-Hanek reduction for AbsX >= 2^20. Write AbsX = M * 2^E with M a
 * 53-bit integer. Bits of 2/pi worth 2^(1-E) and more give multiples of 4 in
 * AbsX*2/pi, which do not change the quadrant, so only a 192-bit window W
 * starting there matters: AbsX*2/pi = M*W / 2^190 (mod 4), up to 2^-137.
 * M*W is computed exactly in 32-bit limbs; its integer part (mod 4) is the
 * quadrant and its 190-bit fraction, exact, becomes R after a multiplication
 * by pi/2.
 */
F64_INLINE ReducedAngle reduceHuge(double AbsX) {
  uint64_t Bits = bitsOf(AbsX);
  int BiasedExponent = (int)(Bits >> 52);
  uint64_t M = (Bits & 0x000fffffffffffffull) | 0x0010000000000000ull;
  /* Window bit b_s with s = E - 1 = BiasedExponent - 1076, stored at index
     s + 63 of the table (b_1 is index 64). */
  int WindowStart = BiasedExponent - 1013;
  uint64_t W2 = twoOverPiWord(WindowStart);
  uint64_t W1 = twoOverPiWord(WindowStart + 64);
  uint64_t W0 = twoOverPiWord(WindowStart + 128);
  const uint64_t Low32 = 0xffffffffull;
  uint64_t Wl0 = W0 & Low32, Wl1 = W0 >> 32, Wl2 = W1 & Low32;
  uint64_t Wl3 = W1 >> 32, Wl4 = W2 & Low32, Wl5 = W2 >> 32;
  uint64_t M0 = M & Low32, M1 = M >> 32;

  /* Schoolbook product, limbs 0..5 (bits 0..191); each step fits in 64
     bits: (2^32-1)^2 + 2*(2^32-1) = 2^64 - 1. Limbs 6 and up only add
     multiples of 4. */
  uint64_t P0, P1, P2, P3, P4, P5, T, Carry;
  T = M0 * Wl0;
  P0 = T & Low32;
  Carry = T >> 32;
  T = M0 * Wl1 + Carry;
  P1 = T & Low32;
  Carry = T >> 32;
  T = M0 * Wl2 + Carry;
  P2 = T & Low32;
  Carry = T >> 32;
  T = M0 * Wl3 + Carry;
  P3 = T & Low32;
  Carry = T >> 32;
  T = M0 * Wl4 + Carry;
  P4 = T & Low32;
  Carry = T >> 32;
  T = M0 * Wl5 + Carry;
  P5 = T & Low32;
  T = M1 * Wl0 + P1;
  P1 = T & Low32;
  Carry = T >> 32;
  T = M1 * Wl1 + P2 + Carry;
  P2 = T & Low32;
  Carry = T >> 32;
  T = M1 * Wl2 + P3 + Carry;
  P3 = T & Low32;
  Carry = T >> 32;
  T = M1 * Wl3 + P4 + Carry;
  P4 = T & Low32;
  Carry = T >> 32;
  T = M1 * Wl4 + P5 + Carry;
  P5 = T & Low32;

  /* Bit 190 is bit 30 of P5: P5's top two bits are the quadrant and bit 29
     the first fraction bit. From fraction 1/2 on, round to the next quadrant
     and negate the 190-bit fraction. */
  int Quadrant = (int)(P5 >> 30);
  int Negate = (int)((P5 >> 29) & 1);
  P5 &= 0x3fffffffull;
  if (Negate) {
    Quadrant += 1;
    T = (P0 ^ Low32) + 1;
    P0 = T & Low32;
    T = (P1 ^ Low32) + (T >> 32);
    P1 = T & Low32;
    T = (P2 ^ Low32) + (T >> 32);
    P2 = T & Low32;
    T = (P3 ^ Low32) + (T >> 32);
    P3 = T & Low32;
    T = (P4 ^ Low32) + (T >> 32);
    P4 = T & Low32;
    P5 = ((P5 ^ 0x3fffffffull) + (T >> 32)) & 0x3fffffffull;
  }

  /* The fraction in double-double: each limb converts exactly, and the
     running sum keeps ~106 bits even after up to ~62 leading zeros. */
  DoubleDouble Fraction = {(double)P5 * 0x1p-30, 0.0};
  double Errors = 0.0;
  DoubleDouble Step = twoSum(Fraction.hi, (double)P4 * 0x1p-62);
  Errors += Step.lo;
  Step = twoSum(Step.hi, (double)P3 * 0x1p-94);
  Errors += Step.lo;
  Step = twoSum(Step.hi, (double)P2 * 0x1p-126);
  Errors += Step.lo;
  Step = twoSum(Step.hi, (double)P1 * 0x1p-158);
  Errors += Step.lo + (double)P0 * 0x1p-190;
  Fraction = fastTwoSum(Step.hi, Errors);

  DoubleDouble R = ddMul(Fraction, PiOver2);
  if (Negate)
    R = (DoubleDouble){-R.hi, -R.lo};
  return (ReducedAngle){R, Quadrant & 3};
}

/*
 * Cody-Waite reduction for AbsX < 2^20: N < 2^20 and pi/2 = P1 + P2 + P3 +
 * ~2^-142 with P1 of 33 bits, so N*P1 is exact and so is AbsX - N*P1 (the
 * two are within a factor of 2, Sterbenz), N*P2 is exact as a pair and only
 * the last term rounds; R is then good to ~2^-119 absolute, much less than
 * the smallest |R| in this range. No operand is large enough for a split to
 * overflow: that is left to reduceHuge, which works on the integer bits.
 */
F64_INLINE ReducedAngle reduceModerate(double AbsX) {
  double N = __builtin_rint(AbsX * 0x1.45f306dc9c883p-1);
  double Head = AbsX - N * 0x1.921fb54400000p+0;
  DoubleDouble NP2 = twoProdShort(N, 0x1.0b4611a626331p-34);
  DoubleDouble Diff = twoSum(Head, -NP2.hi);
  DoubleDouble R =
      twoSum(Diff.hi, (Diff.lo - NP2.lo) - N * 0x1.1701b839a2520p-88);
  return (ReducedAngle){R, (int)N & 3};
}

F64_INLINE ReducedAngle reduceAngle(double AbsX) {
  if (AbsX < 0x1p20)
    return reduceModerate(AbsX);
  return reduceHuge(AbsX);
}

/* sin(R) for |R| <= pi/4 (plus a little). */
F64_INLINE DoubleDouble sinKernel(DoubleDouble R) {
  double X = R.hi;
  DoubleDouble Z = twoSquare(X);
  /* (sin(x) - x) / x^3 as a polynomial in z = x^2, error below 2^-66. */
  double S = -0x1.ab17cb170a9c6p-41;
  S = S * Z.hi + 0x1.61217efe90588p-33;
  S = S * Z.hi - 0x1.ae645412b8672p-26;
  S = S * Z.hi + 0x1.71de3a5460909p-19;
  S = S * Z.hi - 0x1.a01a01a019938p-13;
  S = S * Z.hi + 0x1.1111111111110p-7;
  S = S * Z.hi - 0x1.5555555555555p-3;
  /* x^3*S reaches a tenth of the result, so x^3 and the product are kept
     exact as pairs (tan divides two kernels and adds up their errors).
     sin(x + lo) = sin(x) + lo*cos(x) to far below an ulp. */
  DoubleDouble Cube = twoProd(X, Z.hi);
  DoubleDouble Term = twoProd(Cube.hi, S);
  double Small = Term.lo + (Cube.lo + X * Z.lo) * S + R.lo * (1.0 - 0.5 * Z.hi);
  DoubleDouble Sum = twoSum(X, Term.hi);
  return fastTwoSum(Sum.hi, Sum.lo + Small);
}

/* cos(R) for |R| <= pi/4 (plus a little). */
F64_INLINE DoubleDouble cosKernel(DoubleDouble R) {
  double X = R.hi;
  DoubleDouble Z = twoSquare(X);
  /* (cos(x) - 1 + x^2/2) / x^4 as a polynomial in z = x^2, error below
     2^-59. */
  double C = -0x1.907d9f3d720ddp-37;
  C = C * Z.hi + 0x1.1eeb68e613ccep-29;
  C = C * Z.hi - 0x1.27e4fa17da296p-22;
  C = C * Z.hi + 0x1.a01a019f4eb34p-16;
  C = C * Z.hi - 0x1.6c16c16c16967p-10;
  C = C * Z.hi + 0x1.5555555555555p-5;
  /* 1 - x^2/2 carries the value and is summed exactly; cos(x + lo) =
     cos(x) - lo*sin(x) ~ cos(x) - lo*x. */
  DoubleDouble Head = twoSum(1.0, -0.5 * Z.hi);
  double Tail = Head.lo - 0.5 * Z.lo - X * R.lo + Z.hi * Z.hi * C;
  return fastTwoSum(Head.hi, Tail);
}

F64_INLINE double negateIf(int Condition, double X) {
  return Condition ? -X : X;
}

double __hpvm_f64_sin(double X) {
  double AbsX = __builtin_fabs(X);
  if (!(AbsX < __builtin_inf()))
    return X - X; /* NaN for inf and NaN */
  ReducedAngle A = reduceAngle(AbsX);
  double Value = (A.Quadrant & 1) ? cosKernel(A.R).hi : sinKernel(A.R).hi;
  /* sin is odd; the bit test keeps the sign of -0. */
  return negateIf((A.Quadrant & 2) != 0,
                  negateIf((int)(bitsOf(X) >> 63), Value));
}

double __hpvm_f64_cos(double X) {
  double AbsX = __builtin_fabs(X);
  if (!(AbsX < __builtin_inf()))
    return X - X;
  ReducedAngle A = reduceAngle(AbsX);
  double Value = (A.Quadrant & 1) ? sinKernel(A.R).hi : cosKernel(A.R).hi;
  return negateIf(((A.Quadrant + 1) & 2) != 0, Value);
}

double __hpvm_f64_tan(double X) {
  double AbsX = __builtin_fabs(X);
  if (!(AbsX < __builtin_inf()))
    return X - X;
  /* tan x = x + x^3/3 + ... rounds to x below 2^-27. This also keeps the
     quotient below out of the subnormal range, where a division that is a
     few ulp off would be off by as much as the result's own ulp. */
  if (AbsX < 0x1p-27)
    return X;
  ReducedAngle A = reduceAngle(AbsX);
  DoubleDouble Sin = sinKernel(A.R);
  DoubleDouble Cos = cosKernel(A.R);
  /* tan = sin/cos, or -cos/sin one quadrant on. The quotient is corrected
     with its remainder so that the result rounds only once, even when the
     division is a few ulp off: Quotient*Den.hi is exact as a pair (Quotient
     is at most ~2^61, where |R| is smallest), Num.hi minus its high part is
     exact (Sterbenz), and the correction is a few ulp of Quotient, so its
     own division error is ~2^-100 relative. */
  int Odd = A.Quadrant & 1;
  DoubleDouble Num = Odd ? Cos : Sin;
  DoubleDouble Den = Odd ? Sin : Cos;
  double Quotient = HPVM_F64_DIV(Num.hi, Den.hi);
  DoubleDouble Back = twoProd(Quotient, Den.hi);
  double Remainder =
      (((Num.hi - Back.hi) - Back.lo) + Num.lo) - Quotient * Den.lo;
  double Value = Quotient + HPVM_F64_DIV(Remainder, Den.hi);
  return negateIf(Odd ^ (int)(bitsOf(X) >> 63), Value);
}

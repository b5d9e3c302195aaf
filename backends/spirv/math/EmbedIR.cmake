# cmake -DIN=<file.ll> -DOUT=<file.inc> -P EmbedIR.cmake
#
# Writes the LLVM IR text of IN as a C++ raw string literal, F64MathIR, for
# SPIRVMathF64.cpp to parse at run time. The target triple and data layout
# are dropped: the kernels' module gives its own.
file(READ "${IN}" text)
string(REGEX REPLACE "target (triple|datalayout) = \"[^\"]*\"\n" "" text "${text}")
file(WRITE "${OUT}.tmp" "const char F64MathIR[] = R\"hpvm_ir(${text})hpvm_ir\";\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")

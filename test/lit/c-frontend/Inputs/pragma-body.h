// A loop with its pragma, for err-include-twice.c.
#pragma hpvm parallel for in(a[0:n]) out(b[0:n])
for (int i = 0; i < n; i++)
  b[i] = a[i];

// An object built without hpvm-clang (driver-errors.test links it).
int other_object(void) { return 1; }

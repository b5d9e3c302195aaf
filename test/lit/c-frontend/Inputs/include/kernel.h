#define FILL_VALUE 42.0f

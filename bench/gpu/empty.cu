// The empty kernel whose PTX bench/gpu/launch_raw.c loads and launches:
// nothing to run, so what is timed is the launch and the synchronisation.
extern "C" __global__ void hpvm_bench_empty() {}

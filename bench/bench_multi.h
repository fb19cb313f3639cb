/*
 * bench_multi.h - `fricl bench --device LIST` (a device list such as
 * "opencl:0:0,opencl:0:1", or "all-gpu"; also FRICL_DEVICE when it is a
 * list and --device is not given): per feature - the scalar family (12
 * terms), the tangential potential (potential, gradient and global Hessian
 * with a plan, lattice scene), the lagged build (every output) and the
 * friction laws (LuGre, RK4 steps) - the throughput of every device of the
 * list alone and of the list, in interleaved repeats on the same data, the
 * share each device took, the list against its first device (the split's
 * cost or gain), and whether the list's outputs are bitwise those of its
 * first device.
 */
#ifndef FRICL_BENCH_MULTI_H
#define FRICL_BENCH_MULTI_H

/* 1 when `fricl bench` was given (or inherits) a device list. */
int bench_multi_selected(int argc, char **argv);
int bench_multi_main(int argc, char **argv);

#endif

/* header_cl_target.c - a caller's CL_TARGET_OPENCL_VERSION survives
 * <fricl/fricl_cl.h> (compile-only, warnings as errors: a redefinition
 * fails too). */
#define CL_TARGET_OPENCL_VERSION 300
#include <fricl/fricl_cl.h>

#if CL_TARGET_OPENCL_VERSION != 300
#error "fricl_cl.h replaced the caller's CL_TARGET_OPENCL_VERSION"
#endif

int main(void) { return 0; }

/* fault.c - the fault-injection hooks of fault.h. Compiled only into the
 * test library fricl_static_fi (with -DFRICL_FAULT_INJECTION). */
#ifndef FRICL_FAULT_INJECTION
#error "fault.c is only built with -DFRICL_FAULT_INJECTION (test library)"
#endif

#include "core/fault.h"

#include <stdatomic.h>
#include <string.h>

/* The armed operation number (0: none), how many operations were passed,
 * and the kind of the one that was made to fail. Atomic: the hooks may be
 * reached from several threads. */
static atomic_long armed_at;
static atomic_long passed;
static atomic_int injected_kind;
static atomic_int configured; /* arm/disarm or FRICL_FAULT_AT was applied */

#if FRICL_WITH_OPENCL
/* The program whose build was made to fail by this thread's last
 * clBuildProgram (its "build log" is then the synthetic one). */
static _Thread_local cl_program failed_build;

#endif

static void configure_from_env(void) {
  if (atomic_exchange(&configured, 1))
    return;
  const char *s = getenv("FRICL_FAULT_AT");
  if (s && *s) {
    char *end = NULL;
    const long n = strtol(s, &end, 10);
    if (end && *end == '\0' && n > 0)
      atomic_store(&armed_at, n);
  }
}

void fricl__fault_arm(long n) {
  atomic_store(&configured, 1);
  atomic_store(&armed_at, 0);
  atomic_store(&passed, 0);
  atomic_store(&injected_kind, FRICL__FAULT_NONE);
  atomic_store(&armed_at, n > 0 ? n : 0);
}

void fricl__fault_disarm(void) { fricl__fault_arm(0); }

long fricl__fault_count(void) { return atomic_load(&passed); }

fricl__fault_kind_t fricl__fault_kind(void) {
  return (fricl__fault_kind_t)atomic_load(&injected_kind);
}

/* Count one fallible operation; 1 if it is the one to fail. */
static int hit(fricl__fault_kind_t kind) {
  configure_from_env();
  const long k = atomic_fetch_add(&passed, 1) + 1;
  const long at = atomic_load(&armed_at);
  if (at <= 0 || k != at)
    return 0;
  atomic_store(&injected_kind, (int)kind);
  return 1;
}

void *fricl__malloc(size_t size) {
  return hit(FRICL__FAULT_ALLOC) ? NULL : malloc(size);
}

void *fricl__calloc(size_t count, size_t size) {
  return hit(FRICL__FAULT_ALLOC) ? NULL : calloc(count, size);
}

#if FRICL_WITH_OPENCL
static void set_err(cl_int *errcode_ret, cl_int err) {
  if (errcode_ret)
    *errcode_ret = err;
}

cl_context fricl__fault_clCreateContext(
    const cl_context_properties *properties, cl_uint num_devices,
    const cl_device_id *devices,
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *),
    void *user_data, cl_int *errcode_ret) {
  if (hit(FRICL__FAULT_CONTEXT)) {
    set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
    return NULL;
  }
  return clCreateContext(properties, num_devices, devices, pfn_notify,
                         user_data, errcode_ret);
}

cl_command_queue
fricl__fault_clCreateCommandQueue(cl_context context, cl_device_id device,
                                  cl_command_queue_properties properties,
                                  cl_int *errcode_ret) {
  if (hit(FRICL__FAULT_CONTEXT)) {
    set_err(errcode_ret, CL_OUT_OF_RESOURCES);
    return NULL;
  }
  return clCreateCommandQueue(context, device, properties, errcode_ret);
}

cl_mem fricl__fault_clCreateBuffer(cl_context context, cl_mem_flags flags,
                                   size_t size, void *host_ptr,
                                   cl_int *errcode_ret) {
  if (hit(FRICL__FAULT_BUFFER)) {
    set_err(errcode_ret, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    return NULL;
  }
  return clCreateBuffer(context, flags, size, host_ptr, errcode_ret);
}

cl_program fricl__fault_clCreateProgramWithSource(cl_context context,
                                                  cl_uint count,
                                                  const char **strings,
                                                  const size_t *lengths,
                                                  cl_int *errcode_ret) {
  if (hit(FRICL__FAULT_PROGRAM)) {
    set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
    return NULL;
  }
  return clCreateProgramWithSource(context, count, strings, lengths,
                                   errcode_ret);
}

cl_int fricl__fault_clBuildProgram(
    cl_program program, cl_uint num_devices, const cl_device_id *device_list,
    const char *options, void(CL_CALLBACK *pfn_notify)(cl_program, void *),
    void *user_data) {
  failed_build = NULL;
  if (hit(FRICL__FAULT_BUILD)) {
    failed_build = program;
    return CL_BUILD_PROGRAM_FAILURE;
  }
  return clBuildProgram(program, num_devices, device_list, options, pfn_notify,
                        user_data);
}

cl_int fricl__fault_clGetProgramBuildInfo(
    cl_program program, cl_device_id device, cl_program_build_info param_name,
    size_t param_value_size, void *param_value, size_t *param_value_size_ret) {
  if (program && program == failed_build &&
      param_name == CL_PROGRAM_BUILD_LOG) {
    static const char log[] = FRICL__FAULT_BUILD_LOG;
    if (param_value_size_ret)
      *param_value_size_ret = sizeof log;
    if (param_value) {
      if (param_value_size < sizeof log)
        return CL_INVALID_VALUE;
      memcpy(param_value, log, sizeof log);
    }
    return CL_SUCCESS;
  }
  return clGetProgramBuildInfo(program, device, param_name, param_value_size,
                               param_value, param_value_size_ret);
}

cl_kernel fricl__fault_clCreateKernel(cl_program program,
                                      const char *kernel_name,
                                      cl_int *errcode_ret) {
  if (hit(FRICL__FAULT_PROGRAM)) {
    set_err(errcode_ret, CL_OUT_OF_RESOURCES);
    return NULL;
  }
  return clCreateKernel(program, kernel_name, errcode_ret);
}

cl_int fricl__fault_clEnqueueNDRangeKernel(
    cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size,
    const size_t *local_work_size, cl_uint num_events,
    const cl_event *event_wait_list, cl_event *event) {
  if (hit(FRICL__FAULT_ENQUEUE))
    return CL_OUT_OF_RESOURCES;
  return clEnqueueNDRangeKernel(queue, kernel, work_dim, global_work_offset,
                                global_work_size, local_work_size, num_events,
                                event_wait_list, event);
}

cl_int fricl__fault_clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer,
                                         cl_bool blocking, size_t offset,
                                         size_t size, const void *ptr,
                                         cl_uint num_events,
                                         const cl_event *event_wait_list,
                                         cl_event *event) {
  if (hit(FRICL__FAULT_ENQUEUE))
    return CL_OUT_OF_RESOURCES;
  return clEnqueueWriteBuffer(queue, buffer, blocking, offset, size, ptr,
                              num_events, event_wait_list, event);
}

cl_int fricl__fault_clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer,
                                        cl_bool blocking, size_t offset,
                                        size_t size, void *ptr,
                                        cl_uint num_events,
                                        const cl_event *event_wait_list,
                                        cl_event *event) {
  if (hit(FRICL__FAULT_READBACK))
    return CL_OUT_OF_RESOURCES;
  return clEnqueueReadBuffer(queue, buffer, blocking, offset, size, ptr,
                             num_events, event_wait_list, event);
}

void *fricl__fault_clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer,
                                      cl_bool blocking, cl_map_flags map_flags,
                                      size_t offset, size_t size,
                                      cl_uint num_events,
                                      const cl_event *event_wait_list,
                                      cl_event *event, cl_int *errcode_ret) {
  if (hit(FRICL__FAULT_READBACK)) {
    set_err(errcode_ret, CL_MAP_FAILURE);
    return NULL;
  }
  return clEnqueueMapBuffer(queue, buffer, blocking, map_flags, offset, size,
                            num_events, event_wait_list, event, errcode_ret);
}
#endif /* FRICL_WITH_OPENCL */

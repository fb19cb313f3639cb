/* cl_fault.c - the fault-injection wrappers of the OpenCL calls
 * (cl_fault.h), counted with core's other fallible operations
 * (fricl__fault_hit). Compiled only into the test library fricl_static_fi,
 * and only with OpenCL. */
#ifndef FRICL_FAULT_INJECTION
#error "cl_fault.c is only built with -DFRICL_FAULT_INJECTION (test library)"
#endif

#include "opencl/cl_fault.h"

#include <string.h>

/* The program whose build was made to fail by this thread's last
 * clBuildProgram (its "build log" is then the synthetic one). */
static _Thread_local cl_program failed_build;

static void set_err(cl_int *errcode_ret, cl_int err) {
  if (errcode_ret)
    *errcode_ret = err;
}

cl_context fricl__fault_clCreateContext(
    const cl_context_properties *properties, cl_uint num_devices,
    const cl_device_id *devices,
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *),
    void *user_data, cl_int *errcode_ret) {
  if (fricl__fault_hit(FRICL__FAULT_CONTEXT)) {
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
  if (fricl__fault_hit(FRICL__FAULT_CONTEXT)) {
    set_err(errcode_ret, CL_OUT_OF_RESOURCES);
    return NULL;
  }
  return clCreateCommandQueue(context, device, properties, errcode_ret);
}

cl_mem fricl__fault_clCreateBuffer(cl_context context, cl_mem_flags flags,
                                   size_t size, void *host_ptr,
                                   cl_int *errcode_ret) {
  if (fricl__fault_hit(FRICL__FAULT_BUFFER)) {
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
  if (fricl__fault_hit(FRICL__FAULT_PROGRAM)) {
    set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
    return NULL;
  }
  return clCreateProgramWithSource(context, count, strings, lengths,
                                   errcode_ret);
}

static fricl__program_observer_fn program_observer;
static void *program_observer_user;

void fricl__fault_observe_programs(fricl__program_observer_fn fn, void *user) {
  program_observer = fn;
  program_observer_user = user;
}

/* The program's full text (its sources concatenated, as the runtime keeps
 * them) to the observer. */
static void observe(cl_program program, const char *options) {
  size_t n = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_SOURCE, 0, NULL, &n) != CL_SUCCESS)
    return;
  char *src = malloc(n + 1);
  if (src && clGetProgramInfo(program, CL_PROGRAM_SOURCE, n, src, NULL) ==
                 CL_SUCCESS) {
    src[n] = '\0';
    program_observer(program_observer_user, src, options ? options : "");
  }
  free(src);
}

cl_int fricl__fault_clBuildProgram(
    cl_program program, cl_uint num_devices, const cl_device_id *device_list,
    const char *options, void(CL_CALLBACK *pfn_notify)(cl_program, void *),
    void *user_data) {
  if (program_observer)
    observe(program, options);
  failed_build = NULL;
  if (fricl__fault_hit(FRICL__FAULT_BUILD)) {
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
  if (fricl__fault_hit(FRICL__FAULT_PROGRAM)) {
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
  if (fricl__fault_hit(FRICL__FAULT_ENQUEUE))
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
  if (fricl__fault_hit(FRICL__FAULT_ENQUEUE))
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
  if (fricl__fault_hit(FRICL__FAULT_READBACK))
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
  if (fricl__fault_hit(FRICL__FAULT_READBACK)) {
    set_err(errcode_ret, CL_MAP_FAILURE);
    return NULL;
  }
  return clEnqueueMapBuffer(queue, buffer, blocking, map_flags, offset, size,
                            num_events, event_wait_list, event, errcode_ret);
}

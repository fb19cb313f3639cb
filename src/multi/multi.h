/*
 * multi.h - a context over several devices ("opencl:0:0,opencl:0:1",
 * "all-gpu"): a combinator backend that owns one child backend per device
 * and implements every operation by splitting the call's work items over
 * them in proportion to their measured speed. It knows no backend: it
 * drives its children through their ops and their child table
 * (core/backend.h), and any backend with a child table can be a device of
 * a list. Results are bitwise
 * those of one device: element-wise features split by ranges of elements;
 * the tangential potential splits its per-contact kernel by ranges of
 * contacts (cut at multiples of FRICL__POT_BLOCK, so that the potential's
 * fixed blocks stay whole) and gathers on the first device, in contact
 * order, from its own records and the others' (multi_tangential.c).
 *
 * Each device has its own queue, programs and scratch. Every device's
 * backend comes from the context's registry (fricl__backend_child) and
 * serves the caller's context (its options, its chunk limits); no context
 * is created for it. The devices run at once: every part of a call runs on
 * its own host thread, the first on the calling thread, and writes its
 * messages into its device's error sink (core/error_sink.h), not into the
 * context, which the runner then names the failing device in.
 */
#ifndef FRICL_MULTI_MULTI_H
#define FRICL_MULTI_MULTI_H

#include "core/backend.h"
#include "core/error_sink.h"

#define FRICL__MULTI_MAX 8

typedef struct fricl__multi_dev {
  fricl__backend *be;
  const fricl__child_ops *child; /* be's child table */
  const char *name;              /* the device's name (be owns it) */
  char label[32];                /* its explicit spec */
  /* Where the device's messages go while it works for the combinator. */
  fricl__error_sink sink;
  int platform_index, device_index;
  int is_cpu;
  /* Relative speed before anything is measured: compute units x clock. */
  double estimate;
  /* FRICL_MULTI_SHARES weight (> 0: pinned), else 0. */
  double pinned;
  /* Measured work items per second, per feature (0: not yet). */
  double rate[FRICL__FEATURE_COUNT];
  /* The share splits use, per feature and precision (0 for every device:
   * not set yet). It follows the measured rates only when they move it
   * by more than FRICL__MULTI_STICKY: a part's size then stays the same
   * from call to call, which OpenCL CPU runtimes need (PoCL compiles a
   * kernel again for every new launch size). */
  double used[FRICL__FEATURE_COUNT][2];
} fricl__multi_dev;

typedef struct fricl__multi {
  fricl__backend base;
  size_t n;
  /* Every device is a CPU device: they share the host's cores, so one's
   * measured speed says nothing about what it would do alone, and their
   * shares stay at the estimate. */
  int shared_cores;
  fricl__multi_dev dev[FRICL__MULTI_MAX];
  /* The other devices' records and potential partials on their way to the
   * gathering device (grow-only, page-aligned host memory). */
  void *rec_host, *part_host;
  size_t rec_host_bytes, part_host_bytes;
} fricl__multi;

/* One device's part of a call. */
typedef fricl_status (*fricl__multi_fn)(fricl__multi *m, size_t d, void *arg);

/*
 * Run fn(m, d, arg) for every device d with active[d] != 0 at once: the
 * first active device on the calling thread, every other one on a thread
 * of its own. seconds[d] receives each part's wall time and built[d]
 * whether the part built a kernel (then its time is not a measure of
 * speed); both may be NULL. On failure the context's message names the
 * failing device; with several failures, the first in device order.
 */
fricl_status fricl__multi_parallel(fricl__multi *m, const int *active,
                                   fricl__multi_fn fn, void *arg,
                                   double *seconds, int *built);

/*
 * Cut [0, n) into one range per device, cuts[d] .. cuts[d + 1], in
 * proportion to the devices' shares of `feature`; devices that cannot run
 * `precision` get nothing; inner cuts are multiples of `align`. Returns
 * the number of devices with a nonempty range.
 */
size_t fricl__multi_split(fricl__multi *m, fricl__feature feature,
                          fricl_precision precision, size_t n, size_t align,
                          size_t *cuts);

/* 1 when device d can run calls in `precision`. */
int fricl__multi_can_run(const fricl__multi *m, size_t d,
                         fricl_precision precision);

/* Fold a call's parts into the measured rates of `feature`. */
void fricl__multi_measured(fricl__multi *m, fricl__feature feature,
                           const size_t *cuts, const double *seconds,
                           const int *built);

/* The shares splits of `feature` in `precision` use now (summing to 1;
 * 0 for devices that cannot run it). */
void fricl__multi_shares(fricl__multi *m, fricl__feature feature,
                         fricl_precision precision, double *share);

/* A grow-only host buffer (page-aligned), kept by the backend. */
fricl_status fricl__multi_host(fricl__multi *m, void **buf, size_t *have,
                               size_t bytes);

/* The tangential potential split over the devices (multi_tangential.c). */
fricl_status fricl__multi_tangential(fricl__backend *be,
                                     const fricl__tangential_work *w);

/* The registry entry of device lists (src/api/backends.c lists it before
 * the single-device entries): it takes a comma-separated list or
 * "all-gpu", and opens every entry through the context's registry. */
extern const fricl__backend_entry fricl__multi_backend;

/* The public context queries' implementations (src/api/devices.c calls
 * them after checking the arguments; info_size is the caller's element
 * size and stride): a context's devices, their shares and rates, and the
 * bytes moved - for one device or a list. */
fricl_status fricl__multi_context_devices(const fricl_context *ctx,
                                          fricl_context_device *infos,
                                          size_t info_size, size_t capacity,
                                          size_t *count);
void fricl__multi_context_transfers(const fricl_context *ctx,
                                    uint64_t *to_device, uint64_t *from_device);

#endif

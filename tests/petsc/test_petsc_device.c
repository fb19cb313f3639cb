/* test_petsc_device.c - which GPU a rank takes (fpetsc_pick_gpu) and how
 * many host threads (fpetsc_threads_per_rank): the rules behind
 * fricl_petsc_context_create, on made-up device lists and core counts; no
 * MPI, no GPU needed. */
#include <stdio.h>
#include <string.h>

#include "petsc_device.h"

static int failures = 0;

static void expect(const fricl_device_info *d, size_t n, int local_rank,
                   const char *want) {
  char spec[64] = "unchanged";
  const int picked = fpetsc_pick_gpu(d, n, local_rank, spec, sizeof spec);
  const char *got = picked ? spec : NULL;
  if ((want == NULL) != (got == NULL) || (want && strcmp(want, got) != 0)) {
    fprintf(stderr, "FAIL: local rank %d: got %s, expected %s\n", local_rank,
            got ? got : "(no GPU)", want ? want : "(no GPU)");
    ++failures;
  }
  if (!picked && strcmp(spec, "unchanged") != 0) {
    fprintf(stderr, "FAIL: spec written without a pick\n");
    ++failures;
  }
}

static fricl_device_info dev(int platform, int device, int gpu) {
  fricl_device_info d;
  memset(&d, 0, sizeof d);
  d.platform_index = platform;
  d.device_index = device;
  d.is_gpu = gpu;
  d.is_cpu = !gpu;
  return d;
}

int main(void) {
  /* No device, CPUs only: no pick (auto then falls back as usual). */
  expect(NULL, 0, 0, NULL);
  const fricl_device_info cpus[2] = {dev(0, 0, 0), dev(1, 0, 0)};
  expect(cpus, 2, 3, NULL);
  /* A node with a CPU platform first and four GPUs on two platforms: rank
   * r takes GPU r mod 4, in list order, skipping the CPU. */
  const fricl_device_info node[5] = {dev(0, 0, 0), dev(1, 0, 1), dev(1, 1, 1),
                                     dev(2, 0, 1), dev(2, 1, 1)};
  expect(node, 5, 0, "opencl:1:0");
  expect(node, 5, 1, "opencl:1:1");
  expect(node, 5, 2, "opencl:2:0");
  expect(node, 5, 3, "opencl:2:1");
  expect(node, 5, 4, "opencl:1:0"); /* more ranks than GPUs: shared */
  expect(node, 5, 7, "opencl:2:1");
  expect(node, 5, -1, NULL);
  /* One GPU: every rank of the node shares it. */
  const fricl_device_info one[2] = {dev(0, 0, 0), dev(0, 1, 1)};
  expect(one, 2, 5, "opencl:0:1");
  /* Host threads per rank: bound ranks keep their cores, unbound ones
   * share the node's. */
  const struct {
    unsigned online, affinity;
    int node_ranks;
    unsigned want;
  } th[] = {{16, 16, 4, 4}, {16, 16, 1, 16}, {16, 4, 4, 4}, {16, 1, 16, 1},
            {2, 2, 4, 1},   {16, 0, 3, 5},   {0, 0, 2, 1},  {8, 8, 0, 8}};
  for (size_t i = 0; i < sizeof th / sizeof th[0]; ++i) {
    const unsigned got =
        fpetsc_threads_per_rank(th[i].online, th[i].affinity, th[i].node_ranks);
    if (got != th[i].want) {
      fprintf(stderr,
              "FAIL: threads(%u online, %u affinity, %d ranks) = %u, "
              "expected %u\n",
              th[i].online, th[i].affinity, th[i].node_ranks, got, th[i].want);
      ++failures;
    }
  }
  printf("test_petsc_device: %s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}

/* petsc_device.c - see petsc_device.h. */
#include "petsc_device.h"

#include <stdio.h>

int fpetsc_pick_gpu(const fricl_device_info *infos, size_t count,
                    int local_rank, char *spec, size_t spec_size) {
  size_t gpus = 0;
  for (size_t i = 0; i < count; ++i)
    gpus += infos[i].is_gpu != 0;
  if (gpus == 0 || local_rank < 0)
    return 0;
  size_t want = (size_t)local_rank % gpus;
  for (size_t i = 0; i < count; ++i) {
    if (!infos[i].is_gpu)
      continue;
    if (want-- == 0) {
      snprintf(spec, spec_size, "opencl:%d:%d", infos[i].platform_index,
               infos[i].device_index);
      return 1;
    }
  }
  return 0;
}

unsigned fpetsc_threads_per_rank(unsigned online, unsigned affinity,
                                 int node_ranks) {
  if (online == 0)
    online = 1;
  if (affinity > 0 && affinity < online)
    return affinity;
  const unsigned share = online / (unsigned)(node_ranks > 0 ? node_ranks : 1);
  return share > 0 ? share : 1;
}

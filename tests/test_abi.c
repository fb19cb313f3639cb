/*
 * test_abi.c - a caller built against other layouts of fricl's structs
 * (fricl.h, "ABI"), through the public headers and the shared library
 * only, as a binary built against another release would call it:
 *  - older, smaller input structs (copies of a batch truncated after a
 *    field, struct_size = their sizeof) work, with the results of the full
 *    struct whose missing fields keep their _init values: the tangential
 *    batch, the barrier batch, the context parameters;
 *  - newer, larger ones work when the unknown tail is zero and are
 *    rejected, naming the argument, when it is not; so are sizes below the
 *    smallest accepted layout;
 *  - output arrays are written at the caller's stride and size: the
 *    device list, a context's devices, a law's info.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fricl/fricl.h"

static int failures = 0;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

/* ------------------------------------------------------- older layouts */

/* fricl_tangential_batch as a header whose last field was `potential`
 * would have declared it. */
typedef struct old_tangential_batch {
  uint32_t struct_size;
  fricl_precision precision;
  fricl_mu_profile mu_profile;
  fricl_psd psd;
  uint32_t flags;
  int dim;
  size_t n_vertices;
  const void *velocities;
  double eps_v;
  size_t n_groups;
  const fricl_contact_group *groups;
  const fricl_tangential_plan *plan;
  const void *direction;
  void *potential;
} old_tangential_batch;
_Static_assert(offsetof(old_tangential_batch, potential) ==
                   offsetof(fricl_tangential_batch, potential),
               "a prefix of fricl_tangential_batch");

/* fricl_barrier_batch, cut after `potential` the same way. */
typedef struct old_barrier_batch {
  uint32_t struct_size;
  fricl_precision precision;
  fricl_psd psd;
  uint32_t flags;
  int dim;
  size_t n_vertices;
  const void *positions;
  const void *rest_positions;
  double dhat, kappa, dmin;
  size_t n_groups;
  const fricl_barrier_group *groups;
  const fricl_tangential_plan *plan;
  const void *direction;
  void *potential;
} old_barrier_batch;
_Static_assert(offsetof(old_barrier_batch, potential) ==
                   offsetof(fricl_barrier_batch, potential),
               "a prefix of fricl_barrier_batch");

/* fricl_context_params of 0.1 (threads and auto_crossover came in 0.4). */
typedef struct old_context_params {
  uint32_t struct_size;
  const char *device;
  size_t max_chunk_elements;
  uint32_t flags;
  const char *build_options;
  char *error_buffer;
  size_t error_buffer_size;
} old_context_params;
_Static_assert(offsetof(old_context_params, error_buffer_size) ==
                   offsetof(fricl_context_params, error_buffer_size),
               "a prefix of fricl_context_params");

/* fricl_device_info cut before device_version: a caller that reads only
 * the indices and names. */
typedef struct old_device_info {
  uint32_t struct_size;
  int platform_index, device_index, is_gpu, is_cpu, has_fp64, is_default;
  unsigned compute_units;
  uint64_t global_mem_bytes, max_alloc_bytes;
  char platform_name[128];
  char device_name[128];
} old_device_info;
_Static_assert(offsetof(old_device_info, device_name) ==
                   offsetof(fricl_device_info, device_name),
               "a prefix of fricl_device_info");

/* fricl_context_device cut after the name. */
typedef struct old_context_device {
  uint32_t struct_size;
  int platform_index, device_index;
  char device_name[256];
} old_context_device;

/* A newer caller's structs: this library's, then a field it does not
 * know. */
typedef struct {
  fricl_tangential_batch b;
  uint64_t future;
} new_tangential_batch;
typedef struct {
  fricl_context_params p;
  uint64_t future;
} new_context_params;
typedef struct {
  fricl_device_info i;
  uint64_t future;
} new_device_info;

/* --------------------------------------------------------------- scenes */

/* Two EV contacts (test_tangential_api.c's). */
static const int32_t tvx[6] = {0, 1, 2, 1, 2, 3};
static const double tbeta[2] = {0.5, 0.25};
static const double tP[12] = {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0};
static const double tN[2] = {1, 2}, tw[2] = {1, 1}, tms[2] = {0.5, 0.5},
                    tmk[2] = {0.3, 0.3};
static const double tvel[12] = {1e-3, 0, 0, 0, 2e-3, 0, 0, 0, 0, 1e-3, 1e-3, 0};

static fricl_contact_group tangential_group(void) {
  fricl_contact_group G;
  memset(&G, 0, sizeof G);
  G.type = FRICL_STENCIL_EV;
  G.count = 2;
  G.vertices = tvx;
  G.closest_point = tbeta;
  G.tangent_basis = tP;
  G.normal_force = tN;
  G.weight = tw;
  G.mu_s = tms;
  G.mu_k = tmk;
  return G;
}

/* Two VV contacts within dhat. */
static const int32_t bvx[4] = {0, 1, 2, 3};
static const double bx[12] = {0, 0, 0, 0.05, 0.02, 0, 1, 1, 1, 1.1, 1, 1};

static fricl_barrier_group barrier_group(void) {
  fricl_barrier_group G;
  memset(&G, 0, sizeof G);
  G.type = FRICL_STENCIL_VV;
  G.count = 2;
  G.vertices = bvx;
  return G;
}

/* ---------------------------------------------------------------- tests */

static void tangential(fricl_context *ctx) {
  const fricl_contact_group G = tangential_group();
  double pot_full = -1, pot_old = -2, pot_new = -3;
  fricl_tangential_batch full;
  fricl_tangential_batch_init(&full);
  full.n_vertices = 4;
  full.velocities = tvel;
  full.eps_v = 1e-3;
  full.n_groups = 1;
  full.groups = &G;
  full.potential = &pot_full;
  CHECK(fricl_tangential_eval(ctx, &full) == FRICL_STATUS_OK, "full: %s",
        fricl_context_last_error(ctx));

  /* The older caller sets what its header has; its init zeroed the rest
   * as fricl_tangential_batch_init does. */
  old_tangential_batch old;
  memset(&old, 0, sizeof old);
  old.struct_size = (uint32_t)sizeof old;
  old.dim = 3;
  old.n_vertices = 4;
  old.velocities = tvel;
  old.eps_v = 1e-3;
  old.n_groups = 1;
  old.groups = &G;
  old.potential = &pot_old;
  CHECK(fricl_tangential_eval(ctx, (const fricl_tangential_batch *)&old) ==
            FRICL_STATUS_OK,
        "older layout rejected: %s", fricl_context_last_error(ctx));
  CHECK(memcmp(&pot_old, &pot_full, sizeof pot_old) == 0,
        "older layout: potential %.17g, full struct %.17g", pot_old, pot_full);
  CHECK(pot_full > 0, "potential %g", pot_full);

  /* Below the smallest accepted layout (the end of `groups`). */
  old.struct_size =
      (uint32_t)(offsetof(old_tangential_batch, groups) + sizeof(void *) - 1);
  CHECK(fricl_tangential_eval(ctx, (const fricl_tangential_batch *)&old) ==
                FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(fricl_context_last_error(ctx), "batch.struct_size"),
        "too small: %s", fricl_context_last_error(ctx));
  /* Exactly that layout: no global output left, a per-contact one. */
  double cpot[2] = {-1, -1};
  fricl_contact_group G2 = G;
  G2.potential = cpot;
  old.groups = &G2;
  old.struct_size =
      (uint32_t)(offsetof(old_tangential_batch, groups) + sizeof(void *));
  CHECK(fricl_tangential_eval(ctx, (const fricl_tangential_batch *)&old) ==
                FRICL_STATUS_OK &&
            cpot[0] > 0 && cpot[1] > 0,
        "smallest layout: %s", fricl_context_last_error(ctx));

  /* A newer caller: a zero tail is accepted, a set one rejected. */
  new_tangential_batch nb;
  memset(&nb, 0, sizeof nb);
  nb.b = full;
  nb.b.struct_size = (uint32_t)sizeof nb;
  nb.b.potential = &pot_new;
  CHECK(fricl_tangential_eval(ctx, &nb.b) == FRICL_STATUS_OK &&
            memcmp(&pot_new, &pot_full, sizeof pot_new) == 0,
        "newer layout, zero tail: %s", fricl_context_last_error(ctx));
  nb.future = 1;
  CHECK(fricl_tangential_eval(ctx, &nb.b) == FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(fricl_context_last_error(ctx), "batch.struct_size"),
        "newer layout, set tail: %s", fricl_context_last_error(ctx));
}

static void barrier(fricl_context *ctx) {
  const fricl_barrier_group G = barrier_group();
  double pot_full = -1, pot_old = -2;
  fricl_barrier_batch full;
  fricl_barrier_batch_init(&full);
  full.n_vertices = 4;
  full.positions = bx;
  full.dhat = 0.15;
  full.kappa = 3.0;
  full.n_groups = 1;
  full.groups = &G;
  full.potential = &pot_full;
  CHECK(fricl_barrier_eval(ctx, &full) == FRICL_STATUS_OK, "full: %s",
        fricl_context_last_error(ctx));

  old_barrier_batch old;
  memset(&old, 0, sizeof old);
  old.struct_size = (uint32_t)sizeof old;
  old.dim = 3;
  old.n_vertices = 4;
  old.positions = bx;
  old.dhat = 0.15;
  old.kappa = 3.0;
  old.n_groups = 1;
  old.groups = &G;
  old.potential = &pot_old;
  CHECK(fricl_barrier_eval(ctx, (const fricl_barrier_batch *)&old) ==
            FRICL_STATUS_OK,
        "older layout rejected: %s", fricl_context_last_error(ctx));
  CHECK(memcmp(&pot_old, &pot_full, sizeof pot_old) == 0 && pot_full > 0,
        "older layout: potential %.17g, full struct %.17g", pot_old, pot_full);
  old.struct_size = 8;
  CHECK(fricl_barrier_eval(ctx, (const fricl_barrier_batch *)&old) ==
                FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(fricl_context_last_error(ctx), "batch.struct_size"),
        "too small: %s", fricl_context_last_error(ctx));
  /* A size no compiler gives (it would end inside the next field, and the
   * library would keep half of it): rejected, not read. */
  old.struct_size = (uint32_t)sizeof old + 4;
  CHECK(fricl_barrier_eval(ctx, (const fricl_barrier_batch *)&old) ==
                FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(fricl_context_last_error(ctx), "no compiled layout"),
        "misaligned size: %s", fricl_context_last_error(ctx));
}

static void context_params(void) {
  char err[256] = "";
  old_context_params old;
  memset(&old, 0, sizeof old);
  old.struct_size = (uint32_t)sizeof old;
  old.device = "reference";
  old.error_buffer = err;
  old.error_buffer_size = sizeof err;
  fricl_context *ctx = NULL;
  CHECK(fricl_context_create(&ctx, (const fricl_context_params *)&old) ==
            FRICL_STATUS_OK,
        "older layout rejected: %s", err);
  if (ctx) {
    /* threads past the old layout: the default (reference: 1). */
    CHECK(fricl_context_backend(ctx) == FRICL_BACKEND_REFERENCE &&
              fricl_context_threads(ctx) == 1,
          "older layout: backend %d, %u threads",
          (int)fricl_context_backend(ctx), fricl_context_threads(ctx));
    tangential(ctx);
    barrier(ctx);
  }
  fricl_context_destroy(ctx);

  old.struct_size = 8;
  ctx = NULL;
  CHECK(fricl_context_create(&ctx, (const fricl_context_params *)&old) ==
                FRICL_STATUS_INVALID_ARGUMENT &&
            !ctx,
        "too small accepted");

  new_context_params np;
  memset(&np, 0, sizeof np);
  fricl_context_params_init(&np.p);
  np.p.struct_size = (uint32_t)sizeof np;
  np.p.device = "reference";
  np.p.threads = 1;
  np.p.error_buffer = err;
  np.p.error_buffer_size = sizeof err;
  CHECK(fricl_context_create(&ctx, &np.p) == FRICL_STATUS_OK,
        "newer layout, zero tail: %s", err);
  fricl_context_destroy(ctx);
  np.future = 7;
  err[0] = '\0';
  CHECK(fricl_context_create(&ctx, &np.p) == FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(err, "params.struct_size"),
        "newer layout, set tail: \"%s\"", err);
}

#define MAXD 8

static void device_list(void) {
  fricl_device_info full[MAXD];
  size_t n = 0;
  CHECK(fricl_devices_list(full, MAXD, &n) == FRICL_STATUS_OK, "list");
  if (n > MAXD)
    n = MAXD;
  if (n == 0)
    fprintf(stderr, "*** NOTE: no OpenCL device: the device list's stride "
                    "is only checked on an empty list ***\n");

  /* Older entries, one spare after them: nothing is written past the
   * caller's entries or past each entry's size. */
  old_device_info old[MAXD + 1];
  memset(old, 0xAB, sizeof old);
  size_t m = 0;
  CHECK(fricl_devices_list_sized((fricl_device_info *)(void *)old,
                                 sizeof old[0], n, &m) == FRICL_STATUS_OK &&
            m >= n,
        "older stride");
  for (size_t i = 0; i < n; ++i)
    CHECK(old[i].struct_size == sizeof old[0] &&
              old[i].platform_index == full[i].platform_index &&
              old[i].device_index == full[i].device_index &&
              strcmp(old[i].device_name, full[i].device_name) == 0,
          "entry %zu: size %u, %d:%d %s", i, (unsigned)old[i].struct_size,
          old[i].platform_index, old[i].device_index, old[i].device_name);
  const unsigned char *spare = (const unsigned char *)&old[n];
  for (size_t k = 0; k < sizeof old[0]; ++k)
    CHECK(spare[k] == 0xAB, "byte %zu past the entries written", k);

  /* Newer entries: the unknown field zeroed, struct_size the bytes
   * written. */
  new_device_info nw[MAXD];
  memset(nw, 0xFF, sizeof nw);
  CHECK(fricl_devices_list_sized(&nw[0].i, sizeof nw[0], n, &m) ==
            FRICL_STATUS_OK,
        "newer stride");
  for (size_t i = 0; i < n; ++i)
    CHECK(nw[i].future == 0 && nw[i].i.struct_size == sizeof nw[0].i &&
              strcmp(nw[i].i.device_name, full[i].device_name) == 0,
          "newer entry %zu", i);

  CHECK(fricl_devices_list_sized(full, 2, MAXD, &m) ==
            FRICL_STATUS_INVALID_ARGUMENT,
        "an element size below struct_size accepted");

  /* A context's devices: an OpenCL one when there is one. */
  fricl_context *ctx = NULL;
  fricl_context_params p;
  fricl_context_params_init(&p);
  char spec[64] = "host";
  if (n)
    snprintf(spec, sizeof spec, "opencl:%d:%d", full[0].platform_index,
             full[0].device_index);
  p.device = spec;
  CHECK(fricl_context_create(&ctx, &p) == FRICL_STATUS_OK, "%s", spec);
  if (!ctx)
    return;
  old_context_device od[2];
  memset(od, 0xAB, sizeof od);
  size_t k = 0;
  CHECK(fricl_context_devices_sized(ctx, (fricl_context_device *)(void *)od,
                                    sizeof od[0], 1, &k) == FRICL_STATUS_OK &&
            k == (n ? 1u : 0u),
        "context devices: %zu", k);
  if (k) {
    CHECK(od[0].struct_size == sizeof od[0] &&
              strcmp(od[0].device_name, full[0].device_name) == 0,
          "context device: %u %s", (unsigned)od[0].struct_size,
          od[0].device_name);
    fricl_context_device d;
    CHECK(fricl_context_devices(ctx, &d, 1, &k) == FRICL_STATUS_OK &&
              d.feature_count == FRICL_FEATURE_COUNT &&
              d.share[FRICL_FEATURE_BARRIER] == 1.0 &&
              d.share[FRICL_FEATURE_CAPACITY - 1] == 0.0,
          "feature_count %u", (unsigned)d.feature_count);
  }
  CHECK(((const unsigned char *)&od[1])[0] == 0xAB,
        "context devices: wrote past capacity");
  fricl_context_destroy(ctx);
}

static void law_info(void) {
  /* fricl_law_info cut after the name. */
  struct {
    uint32_t struct_size;
    const char *name;
  } old;
  memset(&old, 0, sizeof old);
  CHECK(fricl_law_get_info_sized(FRICL_LAW_LUGRE,
                                 (fricl_law_info *)(void *)&old,
                                 sizeof old) == FRICL_STATUS_OK &&
            old.struct_size == sizeof old && old.name &&
            strcmp(old.name, "lugre") == 0,
        "law info prefix");
}

int main(void) {
  context_params();
  device_list();
  law_info();
  if (failures)
    fprintf(stderr, "test_abi: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}

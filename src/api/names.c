/* names.c - the name <-> value lookups of every public enumeration, each
 * generated from its single-source table (<fricl/fricl_tables.h>), plus the
 * scalar family's term names (ipctk's Python names) and the laws' names and
 * options. The stencil sizes the backends need too are in core
 * (core/stencils.c). */
#include <string.h>

#include "core/abi.h"
#include "core/internal.h"
#include "core/laws_internal.h"

static int name_index(const char *const *names, int n, const char *name) {
  if (!name)
    return -1;
  for (int i = 0; i < n; ++i)
    if (names[i] && strcmp(names[i], name) == 0)
      return i;
  return -1;
}

/* Lookups of a table whose values are 0 .. n-1 (checked below). */
#define FRICL_NAME_FNS(prefix, type, names, count)                             \
  const char *prefix##_name(type v) {                                          \
    return (unsigned)v < (unsigned)(count) ? names[v] : NULL;                  \
  }                                                                            \
  fricl_status prefix##_from_name(const char *name, type *out) {               \
    const int i = name_index(names, (int)(count), name);                       \
    if (i < 0 || !out)                                                         \
      return FRICL_STATUS_INVALID_ARGUMENT;                                    \
    *out = (type)i;                                                            \
    return FRICL_STATUS_OK;                                                    \
  }

#define NAME3_(name, value, text) [value] = text,
#define NAME4_(name, value, text, d) [value] = text,
#define NAME6_(name, value, text, k, nb, only3d) [value] = text,

static const char *const stencil_names[] = {FRICL_STENCIL_MAP(NAME6_)};
static const char *const psd_names[] = {FRICL_PSD_MAP(NAME3_)};
static const char *const mollifier_names[] = {FRICL_MOLLIFIER_MAP(NAME3_)};
static const char *const blend_names[] = {FRICL_MU_BLEND_MAP(NAME3_)};
static const char *const build_status_names[] = {
    FRICL_BUILD_STATUS_MAP(NAME4_)};
static const char *const law_names[] = {FRICL_LAW_MAP(NAME3_)};
static const char *const integrator_names[] = {FRICL_INTEGRATOR_MAP(NAME3_)};
static const char *const backend_names[] = {FRICL_BACKEND_MAP(NAME3_)};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(N_OF(stencil_names) == FRICL_STENCIL_COUNT, "stencils");
_Static_assert(N_OF(blend_names) == FRICL_BLEND_COUNT, "blends");
_Static_assert(N_OF(build_status_names) == FRICL_BUILD_STATUS_COUNT,
               "build statuses");
_Static_assert(N_OF(law_names) == FRICL_LAW_COUNT, "laws");

FRICL_NAME_FNS(fricl_stencil, fricl_stencil, stencil_names, N_OF(stencil_names))
FRICL_NAME_FNS(fricl_psd, fricl_psd, psd_names, N_OF(psd_names))
FRICL_NAME_FNS(fricl_mollifier, fricl_mollifier, mollifier_names,
               N_OF(mollifier_names))
FRICL_NAME_FNS(fricl_mu_blend, fricl_mu_blend, blend_names, N_OF(blend_names))
FRICL_NAME_FNS(fricl_integrator, fricl_integrator, integrator_names,
               N_OF(integrator_names))

const char *fricl_backend_name(fricl_backend backend) {
  return (unsigned)backend < N_OF(backend_names) ? backend_names[backend]
                                                 : NULL;
}

const char *fricl_build_status_name(fricl_build_status status) {
  return (unsigned)status < N_OF(build_status_names)
             ? build_status_names[status]
             : NULL;
}

#define DESC_(name, value, text, desc) [value] = desc,
static const char *const build_status_texts[] = {FRICL_BUILD_STATUS_MAP(DESC_)};
#undef DESC_

const char *fricl_build_status_text(fricl_build_status status) {
  return (unsigned)status < N_OF(build_status_texts)
             ? build_status_texts[status]
             : NULL;
}

/* The laws' names live in the law table too (fricl_law_info.name); this
 * list is what the kernels' codes and the lookups share. */
static const char *law_table_name(int law) {
  return (unsigned)law < N_OF(law_names) ? law_names[law] : NULL;
}

int fricl_stencil_vertex_count(fricl_stencil type) {
  return fricl__stencil_vertex_count(type);
}

int fricl_stencil_coord_count(fricl_stencil type) {
  return fricl__stencil_coord_count(type);
}

/* ----------------------------------------------------- scalar family */

#define TERM_NAME_(name, value, fn, mu) [value] = #fn,
static const char *const term_names[FRICL_TERM_COUNT] = {
    FRICL_TERM_MAP(TERM_NAME_)};
#undef TERM_NAME_

FRICL_NAME_FNS(fricl_term, fricl_term, term_names, FRICL_TERM_COUNT)

static const char *const profile_names[] = {FRICL_MU_PROFILE_MAP(NAME3_)};

FRICL_NAME_FNS(fricl_mu_profile, fricl_mu_profile, profile_names,
               N_OF(profile_names))

/* ------------------------------------------------------------- laws */

/* fricl_law_name and fricl_law_from_name come from the law table of
 * <fricl/fricl_tables.h>; these names must equal them (test_laws_api). */
const char *fricl_law_name(fricl_law law) { return law_table_name((int)law); }

fricl_status fricl_law_from_name(const char *name, fricl_law *law) {
  for (int i = 0; name && law && i < FRICL_LAW_COUNT; ++i)
    if (strcmp(law_table_name(i), name) == 0) {
      *law = (fricl_law)i;
      return FRICL_STATUS_OK;
    }
  return FRICL_STATUS_INVALID_ARGUMENT;
}

fricl_status fricl_law_get_info_sized(fricl_law law, fricl_law_info *info,
                                      size_t info_size) {
  const fricl__law_meta *m = fricl__law_meta_get(law);
  if (!m || !info || fricl__struct_out_check(info_size, FRICL__MIN_LAW_INFO))
    return FRICL_STATUS_INVALID_ARGUMENT;
  fricl__struct_out(info, info_size, &m->info, sizeof m->info);
  return FRICL_STATUS_OK;
}

/* The exported name, for binaries built before the header's macro. */
fricl_status(fricl_law_get_info)(fricl_law law, fricl_law_info *info) {
  return fricl_law_get_info_sized(law, info, FRICL__LAW_INFO_SIZE_0_2);
}

static const struct {
  uint32_t bit;
  const char *name;
} option_names[] = {{FRICL_LAW_OPT_ISDF_CONTINUOUS, "isdf_continuous"},
                    {FRICL_LAW_OPT_STRIBECK_ODD, "stribeck_odd"},
                    {FRICL_LAW_OPT_LUGRE_EXP_SHAPE, "lugre_exp_shape"}};

const char *fricl_law_option_name(uint32_t option) {
  for (size_t i = 0; i < sizeof option_names / sizeof option_names[0]; ++i)
    if (option_names[i].bit == option)
      return option_names[i].name;
  return NULL;
}

fricl_status fricl_law_option_from_name(const char *name, uint32_t *option) {
  if (!name || !option)
    return FRICL_STATUS_INVALID_ARGUMENT;
  for (size_t i = 0; i < sizeof option_names / sizeof option_names[0]; ++i)
    if (strcmp(option_names[i].name, name) == 0) {
      *option = option_names[i].bit;
      return FRICL_STATUS_OK;
    }
  return FRICL_STATUS_INVALID_ARGUMENT;
}

/* stencils.c - the per-stencil sizes of FRICL_STENCIL_MAP
 * (<fricl/fricl_tables.h>) that core, the backends and the API all need;
 * here, below them, so that no backend calls up into the API for them. */
#include "core/internal.h"

#define K_(name, value, text, k, nb, only3d) [value] = k,
#define NB_(name, value, text, k, nb, only3d) [value] = nb,
static const int stencil_k[] = {FRICL_STENCIL_MAP(K_)};
static const int stencil_nb[] = {FRICL_STENCIL_MAP(NB_)};
#undef K_
#undef NB_

int fricl__stencil_vertex_count(fricl_stencil type) {
  return (unsigned)type < FRICL_STENCIL_COUNT ? stencil_k[type] : 0;
}

int fricl__stencil_coord_count(fricl_stencil type) {
  return (unsigned)type < FRICL_STENCIL_COUNT ? stencil_nb[type] : 0;
}

#define ONLY3D_(name, value, text, k, nb, only3d) [value] = only3d,
static const int stencil_only3d[] = {FRICL_STENCIL_MAP(ONLY3D_)};
#undef ONLY3D_

int fricl__stencil_only_3d(fricl_stencil type) {
  return (unsigned)type < FRICL_STENCIL_COUNT ? stencil_only3d[type] : 0;
}

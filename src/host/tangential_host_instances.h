/*
 * tangential_host_instances.h - the host backend's per-contact passes of
 * one precision: every (stencil, dim) that exists, named
 * TH_SUFFIX(th_<stencil><dim>). Included by tangential_host.c once per
 * precision, after the math headers. tangential_host_impl.h undefines
 * the parameters of each instance but TH_DIM. No include guard on
 * purpose.
 */
#define TH_DIM 3
#define TH_STENCIL FRICL_T_VV
#define TH_K 2
#define TH_NB 0
#define TH_NAME TH_SUFFIX(th_vv3)
#include "tangential_host_impl.h"
#define TH_STENCIL FRICL_T_EV
#define TH_K 3
#define TH_NB 1
#define TH_NAME TH_SUFFIX(th_ev3)
#include "tangential_host_impl.h"
#define TH_STENCIL FRICL_T_EE
#define TH_K 4
#define TH_NB 2
#define TH_NAME TH_SUFFIX(th_ee3)
#include "tangential_host_impl.h"
#define TH_STENCIL FRICL_T_FV
#define TH_K 4
#define TH_NB 2
#define TH_NAME TH_SUFFIX(th_fv3)
#include "tangential_host_impl.h"
#define TH_STENCIL FRICL_T_PV
#define TH_K 1
#define TH_NB 0
#define TH_NAME TH_SUFFIX(th_pv3)
#include "tangential_host_impl.h"
#undef TH_DIM
#define TH_DIM 2
#define TH_STENCIL FRICL_T_VV
#define TH_K 2
#define TH_NB 0
#define TH_NAME TH_SUFFIX(th_vv2)
#include "tangential_host_impl.h"
#define TH_STENCIL FRICL_T_EV
#define TH_K 3
#define TH_NB 1
#define TH_NAME TH_SUFFIX(th_ev2)
#include "tangential_host_impl.h"
#define TH_STENCIL FRICL_T_PV
#define TH_K 1
#define TH_NB 0
#define TH_NAME TH_SUFFIX(th_pv2)
#include "tangential_host_impl.h"
#undef TH_DIM

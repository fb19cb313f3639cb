/* laws_meta.c - the table of friction laws: names, parameters in upstream
 * order with units, defaults and valid ranges (spec friction-laws.md), and
 * the name lookups of laws, options and integrators. */
#include <math.h>
#include <string.h>

#include "core/abi.h"
#include "core/laws_internal.h"

#define REQ NAN
#define P(name, unit, def, desc)                                               \
  { name, unit, def, desc }
#define F FRICL__RULE_FINITE
#define Z FRICL__RULE_GE0
#define G FRICL__RULE_GT0
#define B FRICL__RULE_BOOL
#define NO FRICL__RULE_NONE

/* info fields: struct_size, name, description, param_count, params,
 * uses_velocity, uses_position, uses_normal, state_size, ode_state,
 * options. */
static const fricl__law_meta laws[FRICL_LAW_COUNT] = {
    {{sizeof(fricl_law_info),
      "exudyn_stribeck",
      "Exudyn physics.StribeckFunction: regularised Stribeck curve "
      "(coefficient or force)",
      5,
      {P("muDynamic", "1", REQ, "dynamic friction coefficient mu_d"),
       P("muStaticOffset", "1", REQ, "static offset mu_o (static = mu_d+mu_o)"),
       P("muViscous", "s/m", 0.0, "viscous coefficient mu_v"),
       P("expVel", "m/s", 1e-3, "decay velocity of the offset, > 0"),
       P("regVel", "m/s", 1e-3, "ramp half-width, >= 0 (0: no ramp)")},
      1,
      0,
      0,
      0,
      0,
      0},
     {F, F, F, G, Z},
     NO},
    {{sizeof(fricl_law_info),
      "exudyn_step",
      "Exudyn physics.RegularizedFrictionStep: cubic step h0 -> h1 over "
      "[x0, x1] (input x in v)",
      4,
      {P("x0", "1", REQ, "start of the step"),
       P("h0", "1", REQ, "value at and below x0"),
       P("x1", "1", REQ, "end of the step"),
       P("h1", "1", REQ, "value at and above x1")},
      1,
      0,
      0,
      0,
      0,
      0},
     {F, F, F, F},
     NO},
    {{sizeof(fricl_law_info),
      "exudyn_regularized",
      "Exudyn physics.RegularizedFriction: smooth static -> dynamic "
      "friction with viscous part",
      5,
      {P("muDynamic", "1", REQ, "dynamic friction coefficient mu_d"),
       P("muStaticOffset", "1", REQ, "static offset (static = mu_d + offset)"),
       P("velStatic", "m/s", REQ, "velocity of the static peak, >= 0"),
       P("velDynamic", "m/s", REQ, "velocity reaching mu_d, >= velStatic"),
       P("muViscous", "s/m", 0.0, "viscous coefficient above velDynamic")},
      1,
      0,
      0,
      0,
      0,
      0},
     {F, F, Z, Z, F},
     NO},
    {{sizeof(fricl_law_info),
      "isdf",
      "Modelica/Dyad InverseSpeedDependentForce: flange force f (the body "
      "gets -f)",
      4,
      {P("f_nominal", "N", REQ, "nominal force (< 0 brakes positive motion)"),
       P("v_nominal", "m/s", REQ, "nominal speed, > 0"),
       P("v0", "m/s", 0.1, "regularisation speed, > 0"),
       P("ForceDirection", "bool", 1.0,
         "1: even law, 0: odd law (jumps at |v| = v0)")},
      1,
      0,
      0,
      0,
      0,
      FRICL_LAW_OPT_ISDF_CONTINUOUS},
     {F, G, G, B},
     NO},
    {{sizeof(fricl_law_info),
      "coulomb",
      "friction coulomb_model: mu_c N sign(v), 0 at v = 0",
      1,
      {P("friction_coefficient", "1", REQ, "Coulomb coefficient mu_c, >= 0")},
      1,
      0,
      1,
      0,
      0,
      0},
     {Z},
     F},
    {{sizeof(fricl_law_info),
      "stribeck",
      "friction stribeck_model: fsign(v) (Fc + (Fs-Fc) exp(-(v/v_s)^2) + "
      "b_v v)",
      4,
      {P("static_friction_coefficient", "1", REQ, "mu_s, >= 0"),
       P("coulomb_friction_coefficient", "1", REQ, "mu_c, >= 0"),
       P("stribeck_velocity", "m/s", REQ, "v_s, > 0"),
       P("viscous_damping", "N s/m", REQ, "b_v (inside the sign upstream)")},
      1,
      0,
      1,
      0,
      0,
      FRICL_LAW_OPT_STRIBECK_ODD},
     {Z, Z, G, F},
     F},
    {{sizeof(fricl_law_info),
      "maxwell",
      "friction maxwell_model: elastic-plastic element, state (x_prev, "
      "d_prev), reads positions x",
      2,
      {P("stiffness", "N/m", REQ, "k, > 0"),
       P("friction_coefficient", "1", REQ, "mu_c, >= 0 (slip at mu_c N)")},
      0,
      1,
      1,
      2,
      0,
      0},
     {G, Z},
     Z},
    {{sizeof(fricl_law_info),
      "modified_stribeck",
      "friction modified_stribeck_model: Maxwell element with Stribeck slip "
      "limit + b_v v, state (x_prev, d_prev)",
      5,
      {P("static_coefficient", "1", REQ, "mu_s, >= 0"),
       P("coulomb_coefficient", "1", REQ, "mu_c, >= 0"),
       P("stribeck_velocity", "m/s", REQ, "v_s, > 0"),
       P("viscous_damping", "N s/m", REQ, "b_v"),
       P("stiffness", "N/m", REQ, "k, > 0")},
      1,
      1,
      1,
      2,
      0,
      0},
     {Z, Z, G, F, G},
     Z},
    {{sizeof(fricl_law_info),
      "lugre",
      "friction lugre_model: bristle state z, dz/dt = v - |v| z / g(v)",
      7,
      {P("static_coefficient", "1", REQ, "mu_s, > 0"),
       P("coulomb_coefficient", "1", REQ, "mu_c, >= 0"),
       P("stribeck_velocity", "m/s", REQ, "v_s, > 0"),
       P("stiffness", "N/m", REQ, "sigma0, > 0"),
       P("damping", "N s/m", REQ, "sigma1"),
       P("viscous_damping", "N s/m", REQ, "sigma2"),
       P("shape_parameter", "1", REQ, "alpha, >= 0")},
      1,
      0,
      1,
      1,
      1,
      FRICL_LAW_OPT_LUGRE_EXP_SHAPE},
     {G, Z, G, G, F, F, Z},
     G},
    {{sizeof(fricl_law_info),
      "gms",
      "friction generalized_maxwell_slip_model: m elements (k_i, b_i, nu_i), "
      "states z_i",
      7,
      {P("static_coefficient", "1", REQ, "mu_s, > 0"),
       P("coulomb_coefficient", "1", REQ, "mu_c, >= 0"),
       P("attraction_coefficient", "m/s", REQ, "C"),
       P("stiffness", "N/m", REQ, "sigma0 (only inside s(v)), > 0"),
       P("viscous_damping", "N s/m", REQ, "b_v"),
       P("stribeck_velocity", "m/s", REQ, "v_s, > 0"),
       P("shape_parameter", "1", REQ, "alpha, >= 0")},
      1,
      0,
      1,
      1,
      1,
      0},
     {G, Z, F, G, F, G, Z},
     G},
};

const fricl__law_meta *fricl__law_meta_get(fricl_law law) {
  if ((int)law < 0 || (int)law >= FRICL_LAW_COUNT)
    return NULL;
  return &laws[law];
}

/* fricl_law_name and fricl_law_from_name come from the law table of
 * <fricl/fricl_tables.h>; these names must equal them (test_laws_api). */
const char *fricl_law_name(fricl_law law) {
  return fricl__law_table_name((int)law);
}

fricl_status fricl_law_from_name(const char *name, fricl_law *law) {
  for (int i = 0; name && law && i < FRICL_LAW_COUNT; ++i)
    if (strcmp(fricl__law_table_name(i), name) == 0) {
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

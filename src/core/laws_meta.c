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

/* LAW(name, description, param_count, PARAMS(...), USES(...), RULES(...),
 * normal rule); USES(uses_velocity, uses_position, uses_normal, state_size,
 * ode_state, options). */
#define USES(vel, pos, normal, state, ode, options)                            \
  vel, pos, normal, state, ode, options
#define PARAMS(...)                                                            \
  { __VA_ARGS__ }
#define RULES(...)                                                             \
  { __VA_ARGS__ }
/* One law: its info, the rules of its parameters and of its normal force. */
#define LAW(name, desc, n_params, params, uses, rules, normal_rule)            \
  {                                                                            \
    {sizeof(fricl_law_info), name, desc, n_params, params, uses}, rules,       \
        normal_rule                                                            \
  }
static const fricl__law_meta laws[FRICL_LAW_COUNT] = {
    LAW("exudyn_stribeck",
        "Exudyn physics.StribeckFunction: regularised Stribeck curve "
        "(coefficient or force)",
        5,
        PARAMS(P("muDynamic", "1", REQ, "dynamic friction coefficient mu_d"),
               P("muStaticOffset", "1", REQ,
                 "static offset mu_o (static = mu_d+mu_o)"),
               P("muViscous", "s/m", 0.0, "viscous coefficient mu_v"),
               P("expVel", "m/s", 1e-3, "decay velocity of the offset, > 0"),
               P("regVel", "m/s", 1e-3, "ramp half-width, >= 0 (0: no ramp)")),
        USES(1, 0, 0, 0, 0, 0), RULES(F, F, F, G, Z), NO),
    LAW("exudyn_step",
        "Exudyn physics.RegularizedFrictionStep: cubic step h0 -> h1 over "
        "[x0, x1] (input x in v)",
        4,
        PARAMS(P("x0", "1", REQ, "start of the step"),
               P("h0", "1", REQ, "value at and below x0"),
               P("x1", "1", REQ, "end of the step"),
               P("h1", "1", REQ, "value at and above x1")),
        USES(1, 0, 0, 0, 0, 0), RULES(F, F, F, F), NO),
    LAW("exudyn_regularized",
        "Exudyn physics.RegularizedFriction: smooth static -> dynamic "
        "friction with viscous part",
        5,
        PARAMS(
            P("muDynamic", "1", REQ, "dynamic friction coefficient mu_d"),
            P("muStaticOffset", "1", REQ,
              "static offset (static = mu_d + offset)"),
            P("velStatic", "m/s", REQ, "velocity of the static peak, >= 0"),
            P("velDynamic", "m/s", REQ, "velocity reaching mu_d, >= velStatic"),
            P("muViscous", "s/m", 0.0, "viscous coefficient above velDynamic")),
        USES(1, 0, 0, 0, 0, 0), RULES(F, F, Z, Z, F), NO),
    LAW("isdf",
        "Modelica/Dyad InverseSpeedDependentForce: flange force f (the body "
        "gets -f)",
        4,
        PARAMS(P("f_nominal", "N", REQ,
                 "nominal force (< 0 brakes positive motion)"),
               P("v_nominal", "m/s", REQ, "nominal speed, > 0"),
               P("v0", "m/s", 0.1, "regularisation speed, > 0"),
               P("ForceDirection", "bool", 1.0,
                 "1: even law, 0: odd law (jumps at |v| = v0)")),
        USES(1, 0, 0, 0, 0, FRICL_LAW_OPT_ISDF_CONTINUOUS), RULES(F, G, G, B),
        NO),
    LAW("coulomb", "friction coulomb_model: mu_c N sign(v), 0 at v = 0", 1,
        PARAMS(P("friction_coefficient", "1", REQ,
                 "Coulomb coefficient mu_c, >= 0")),
        USES(1, 0, 1, 0, 0, 0), RULES(Z), F),
    LAW("stribeck",
        "friction stribeck_model: fsign(v) (Fc + (Fs-Fc) exp(-(v/v_s)^2) + "
        "b_v v)",
        4,
        PARAMS(P("static_friction_coefficient", "1", REQ, "mu_s, >= 0"),
               P("coulomb_friction_coefficient", "1", REQ, "mu_c, >= 0"),
               P("stribeck_velocity", "m/s", REQ, "v_s, > 0"),
               P("viscous_damping", "N s/m", REQ,
                 "b_v (inside the sign upstream)")),
        USES(1, 0, 1, 0, 0, FRICL_LAW_OPT_STRIBECK_ODD), RULES(Z, Z, G, F), F),
    LAW("maxwell",
        "friction maxwell_model: elastic-plastic element, state (x_prev, "
        "d_prev), reads positions x",
        2,
        PARAMS(
            P("stiffness", "N/m", REQ, "k, > 0"),
            P("friction_coefficient", "1", REQ, "mu_c, >= 0 (slip at mu_c N)")),
        USES(0, 1, 1, 2, 0, 0), RULES(G, Z), Z),
    LAW("modified_stribeck",
        "friction modified_stribeck_model: Maxwell element with Stribeck slip "
        "limit + b_v v, state (x_prev, d_prev)",
        5,
        PARAMS(P("static_coefficient", "1", REQ, "mu_s, >= 0"),
               P("coulomb_coefficient", "1", REQ, "mu_c, >= 0"),
               P("stribeck_velocity", "m/s", REQ, "v_s, > 0"),
               P("viscous_damping", "N s/m", REQ, "b_v"),
               P("stiffness", "N/m", REQ, "k, > 0")),
        USES(1, 1, 1, 2, 0, 0), RULES(Z, Z, G, F, G), Z),
    LAW("lugre",
        "friction lugre_model: bristle state z, dz/dt = v - |v| z / g(v)", 7,
        PARAMS(P("static_coefficient", "1", REQ, "mu_s, > 0"),
               P("coulomb_coefficient", "1", REQ, "mu_c, >= 0"),
               P("stribeck_velocity", "m/s", REQ, "v_s, > 0"),
               P("stiffness", "N/m", REQ, "sigma0, > 0"),
               P("damping", "N s/m", REQ, "sigma1"),
               P("viscous_damping", "N s/m", REQ, "sigma2"),
               P("shape_parameter", "1", REQ, "alpha, >= 0")),
        USES(1, 0, 1, 1, 1, FRICL_LAW_OPT_LUGRE_EXP_SHAPE),
        RULES(G, Z, G, G, F, F, Z), G),
    LAW("gms",
        "friction generalized_maxwell_slip_model: m elements (k_i, b_i, nu_i), "
        "states z_i",
        7,
        PARAMS(P("static_coefficient", "1", REQ, "mu_s, > 0"),
               P("coulomb_coefficient", "1", REQ, "mu_c, >= 0"),
               P("attraction_coefficient", "m/s", REQ, "C"),
               P("stiffness", "N/m", REQ, "sigma0 (only inside s(v)), > 0"),
               P("viscous_damping", "N s/m", REQ, "b_v"),
               P("stribeck_velocity", "m/s", REQ, "v_s, > 0"),
               P("shape_parameter", "1", REQ, "alpha, >= 0")),
        USES(1, 0, 1, 1, 1, 0), RULES(G, Z, F, G, F, G, Z), G),
};

const fricl__law_meta *fricl__law_meta_get(fricl_law law) {
  if ((int)law < 0 || (int)law >= FRICL_LAW_COUNT)
    return NULL;
  return &laws[law];
}

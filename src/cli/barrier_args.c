/* barrier_args.c - option parsing and help of `fricl barrier`. */
#include "barrier_args.h"

#include <stddef.h>

static const char *const hessian_names[] = {"none", "local", "global", NULL};
/* Indexed as barrier_args.distances. */
static const char *const distances_names[] = {"nearest", "as-classified", NULL};
/* Indexed as fricl_normal_function. */
static const char *const function_names[] = {"barrier", "adhesion", NULL};

#define HINT " (see 'fricl barrier --help')"
#define F(field) offsetof(barrier_args, field)

static const cli_option options[] = {
    CLI_NPZ_OPTIONS(barrier_args),
    CLI_OPT_PSD(barrier_args),
    {"--hessian", NULL, CLI_CHOICE, F(hessian), hessian_names,
     "not none, local or global", 0, 0},
    CLI_OPT_PRECISION(barrier_args),
    {"--repeat", NULL, CLI_INT, F(repeat), NULL, "not an integer in 1..100000",
     1, 100000},
    CLI_OPT_PHYSICAL_BARRIER(barrier_args),
    {"--distances", NULL, CLI_CHOICE, F(distances), distances_names,
     "not nearest or as-classified", 0, 0},
    {"--function", NULL, CLI_CHOICE, F(function), function_names,
     "not barrier or adhesion", 0, 0},
};
const cli_grammar barrier_grammar = CLI_NPZ_GRAMMAR(
    barrier_args, options, HINT, NULL, .psd = FRICL_PSD_NONE,
    .hessian = BARRIER_HESSIAN_NONE, .precision = FRICL_F64, .repeat = 1);

void barrier_print_help(FILE *f) {
  fputs(
      "Usage: fricl barrier IN.npz -o OUT.npz [--psd none|clamp|abs]\n"
      "           [--hessian none|local|global] [--physical-barrier]\n"
      "           [--distances nearest|as-classified]\n"
      "           [--function barrier|adhesion]\n"
      "           [--precision f64|f32] [--device SPEC] [--repeat N]\n"
      "           [--compress]\n"
      "           [--verbose]\n"
      "\n"
      "Evaluate the normal-contact barrier B = kappa w m b(d^2 - dmin^2,\n"
      "(2 dmin + dhat) dhat) of a contact set (IPC Toolkit 1.6.1's\n"
      "BarrierPotential), its gradient and its Hessian.\n"
      "\n"
      "Options (a value may also be attached: --psd=clamp):\n"
      "  -o, --out FILE      the output archive (see Output). Required.\n"
      "  --psd P             projection of each contact's whole Hessian to\n"
      "                      positive semi-definite: none (default), clamp\n"
      "                      or abs.\n"
      "  --hessian H         none (default), local (dense per contact) or\n"
      "                      global (assembled, scalar COO).\n"
      "  --physical-barrier  scale b by dhat / ((2 dmin + dhat) dhat)^2.\n"
      "  --distances D       the distance of an ev or fv contact without a\n"
      "                      T_dtype (or with -1 / AUTO): nearest\n"
      "                      (default), its nearest feature's;\n"
      "                      as-classified, as ipctk evaluates its\n"
      "                      collisions: ev point-line, fv point-plane,\n"
      "                      wherever the point lies (ee: classified\n"
      "                      either way).\n"
      "  --function F        barrier (default) or adhesion: kappa w m a(d^2 -\n"
      "                      dmin^2), IPC Toolkit 1.6.1's\n"
      "                      NormalAdhesionPotential(dhat_p, dhat, Y,\n"
      "                      eps_c) (scalars dhat_p, Y, eps_c of the\n"
      "                      input; dhat is dhat_a; kappa 1 is ipctk's).\n"
      "  --precision P       f64 (default) or f32.\n"
      "  --device SPEC       as for 'fricl tangential': host, reference, an\n"
      "                      OpenCL device, a device list, or auto.\n"
      "  --repeat N          evaluate N times (the plan is made once); with\n"
      "                      --verbose, report the fastest and median time.\n"
      "  --compress          deflate the output members.\n"
      "  -v, --verbose       report the contact counts on stderr.\n"
      "\n"
      "Input (the 'fricl build' schema with positions in place of\n"
      "lagged_positions):\n"
      "  positions (n, dim)       where B is evaluated, dim 2 or 3\n"
      "  rest_positions (n, dim)  optional: the EE mollifier's rest shape\n"
      "  dhat, kappa              scalars; dmin optional scalar (default 0)\n"
      "  dhat_p, Y, eps_c         scalars, for --function adhesion\n"
      "  per stencil type T in vv ev ee fv pv (ee, fv 3-D only):\n"
      "    T (m, k) vertex ids; T_weight (m,), T_dmin (m,) optional;\n"
      "    T_dtype (m,) optional (ev ee fv): ipctk's distance type per\n"
      "    contact (-1 or AUTO: as --distances says);\n"
      "    pv_plane_normal (m, dim), pv_plane_offset (m,) for pv.\n"
      "  mu_s, mu_k, T_mu_s, T_mu_k are accepted and ignored.\n"
      "\n"
      "Output: potential (scalar), gradient (n dim); with --hessian global\n"
      "hessian_rows, hessian_cols, hessian_values (COO) and hessian_shape;\n"
      "with --hessian local T_hessian (m, k dim, k dim); T_potential (m,).\n"
      "\n"
      "Exit status: 0 success, 1 runtime error, 2 usage error or bad input\n"
      "(one line naming the array; the output is not touched).\n",
      f);
}

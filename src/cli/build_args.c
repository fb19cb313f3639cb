/* build_args.c - option parsing and help of `fricl build`. */
#include "build_args.h"

#include <stddef.h>

#define HINT " (see 'fricl build --help')"

static const cli_option options[] = {
    CLI_NPZ_OPTIONS(build_args), CLI_OPT_BLEND(build_args),
    CLI_OPT_PRECISION(build_args), CLI_OPT_PHYSICAL_BARRIER(build_args)};
const cli_grammar build_grammar =
    CLI_NPZ_GRAMMAR(build_args, options, HINT, NULL,
                    .blend = FRICL_BLEND_AVERAGE, .precision = FRICL_F64);

void build_print_schema(FILE *f) {
  fputs(
      "Build input arrays (n vertices, dim 2 or 3, m contacts of a type):\n"
      "  lagged_positions       (n, dim) float64 (or float32), finite\n"
      "  rest_positions         (n, dim) optional: only the edge-edge skip\n"
      "                         rule reads them (default: lagged_positions)\n"
      "  dhat                   scalar > 0, activation distance (not squared)\n"
      "  kappa                  scalar >= 0, barrier stiffness\n"
      "  dmin                   scalar >= 0, optional (default 0)\n"
      "  mu_s, mu_k             a scalar (given to every contact as is) or\n"
      "                         (n,) per vertex (interpolated with the\n"
      "                         unclamped closest point and blended, "
      "--blend);\n"
      "                         optional for a type that has T_mu_s / T_mu_k\n"
      "  and for each stencil type T present, T one of vv ev ee fv pv\n"
      "  (ee and fv in 3-D only):\n"
      "  T                      (m, k) int32 or int64 vertex ids in stencil\n"
      "                         order, k = 2 (vv), 3 (ev), 4 (ee, fv), 1 (pv)\n"
      "  pv_plane_normal        (m, dim) pv only, required: plane normal n\n"
      "  pv_plane_offset        (m,) pv only, required: the plane is\n"
      "                         n.x + c = 0\n"
      "  T_dmin                 (m,) optional per-contact dmin\n"
      "  T_weight               (m,) optional, default 1\n"
      "  T_mu_s, T_mu_k         (m,) optional per-contact mu (used as is)\n"
      "  Scalars have shape () or (1,) and may be integers.\n"
      "\n"
      "Build output arrays (reals in the dtype of --precision), for each\n"
      "type T present, directly the contact input of 'fricl tangential':\n"
      "  T                      (m, k) int32 vertex ids\n"
      "  T_closest_point        (m, nb) beta, unclamped (nb = 0 for vv, pv)\n"
      "  T_tangent_basis        (m, dim, dim-1) P, orthonormal columns\n"
      "  T_normal_force         (m,) N >= 0\n"
      "  T_mu_s, T_mu_k         (m,) the contact's mu\n"
      "  T_weight               (m,)\n"
      "  T_status               (m,) uint8: 0 ok, 1 inactive, 2 inside_dmin,\n"
      "                         3 ee_parallel, 4 degenerate_coincident,\n"
      "                         5 degenerate_edge, 6 degenerate_face,\n"
      "                         7 degenerate_point_on_line,\n"
      "                         8 degenerate_parallel, 9 degenerate_normal,\n"
      "                         10 nonfinite, 11 mu_negative, 12 "
      "mu_nonfinite;\n"
      "                         every status but ok has N = 0 (never NaN)\n"
      "  status_counts          (13,) int64: contacts per status, same order\n"
      "\n",
      f);
}

void build_print_help(FILE *f) {
  fputs(
      "Usage: fricl build IN.npz -o OUT.npz\n"
      "           [--blend average|min|max|product|harmonic]\n"
      "           [--precision f64|f32] [--device SPEC] [--physical-barrier]\n"
      "           [--compress] [--verbose]\n"
      "\n"
      "The lagged friction build: from lagged vertex positions and a list of\n"
      "active contacts, compute each contact's closest point, tangent basis,\n"
      "normal force N (clamped-log barrier), weight and mu, with a status\n"
      "code per contact. Degenerate contacts are kept with N = 0 and a\n"
      "status saying why. Add 'velocities' and 'eps_v' to the output and it\n"
      "is a 'fricl tangential' input ('fricl tangential --build' does both\n"
      "in one call).\n"
      "\n"
      "Options (a value may also be attached: --blend=min):\n"
      "  -o, --out FILE       the output archive. Required.\n"
      "  --blend B            how per-vertex mu values meet at a contact:\n"
      "                       average (default), min, max, product, harmonic.\n"
      "  --precision P        f64 (default) or f32.\n"
      "  --device SPEC        auto, host, reference, gpu, cpu or\n"
      "                       opencl:<platform>:<device>; or several:\n"
      "                       opencl:0:0,opencl:0:1 or all-gpu. Default:\n"
      "                       FRICL_DEVICE, else auto (host for small\n"
      "                       calls, an OpenCL GPU for large ones).\n"
      "  --physical-barrier   N *= dhat / x^^2 with x^ = (2 dmin + dhat) dhat\n"
      "                       (ipctk's use_physical_barrier).\n"
      "  --compress           deflate the output members.\n"
      "  -v, --verbose        report the device, the backend that ran the\n"
      "                       build and the contacts per status.\n"
      "  -h, --help           show this help and exit.\n"
      "\n",
      f);
  build_print_schema(f);
  fputs("The output is written to a temporary file and renamed over FILE only\n"
        "when complete: on any error FILE is left as it was.\n"
        "\n"
        "Exit status: 0 success; 1 runtime error (device, OpenCL, memory,\n"
        "output not writable); 2 usage error or bad input (a missing, unknown\n"
        "or malformed array, a vertex id out of range, a value the library\n"
        "rejects), with one line on stderr naming the array at fault.\n"
        "\n"
        "Example:\n"
        "  fricl build contacts.npz -o lagged.npz --blend min\n",
        f);
}

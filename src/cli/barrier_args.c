/* barrier_args.c - option parsing and help of `fricl barrier`. */
#include "barrier_args.h"

#include <stdlib.h>
#include <string.h>

#include "cli_args.h"

typedef enum {
  OPT_OUT,
  OPT_PSD,
  OPT_HESSIAN,
  OPT_PRECISION,
  OPT_DEVICE,
  OPT_REPEAT,
  OPT_COUNT
} barrier_option;

static const char *const option_names[OPT_COUNT] = {
    "--out", "--psd", "--hessian", "--precision", "--device", "--repeat"};

static const char *const hessian_names[3] = {"none", "local", "global"};

#define HINT " (see 'fricl barrier --help')"

static int apply(void *args, int option, const char *value, char *err,
                 size_t err_size) {
  barrier_args *a = args;
  switch ((barrier_option)option) {
  case OPT_OUT:
    a->out_path = value;
    return 0;
  case OPT_PSD:
    if (fricl_psd_from_name(value, &a->psd) != FRICL_STATUS_OK) {
      snprintf(err, err_size, "--psd '%s': not none, clamp or abs", value);
      return -1;
    }
    return 0;
  case OPT_HESSIAN:
    for (int h = 0; h < 3; ++h)
      if (strcmp(value, hessian_names[h]) == 0) {
        a->hessian = (barrier_hessian)h;
        return 0;
      }
    snprintf(err, err_size, "--hessian '%s': not none, local or global", value);
    return -1;
  case OPT_PRECISION:
    return cli_parse_precision(value, &a->precision, err, err_size);
  case OPT_DEVICE:
    a->device = value;
    return 0;
  case OPT_REPEAT: {
    char *end = NULL;
    const long n = strtol(value, &end, 10);
    if (!*value || *end || n < 1 || n > 100000) {
      snprintf(err, err_size, "--repeat '%s': not an integer in 1..100000",
               value);
      return -1;
    }
    a->repeat = (int)n;
    return 0;
  }
  case OPT_COUNT:
    break;
  }
  return -1;
}

static int apply_flag(void *args, const char *arg) {
  barrier_args *a = args;
  if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0)
    a->verbose = 1;
  else if (strcmp(arg, "--physical-barrier") == 0)
    a->physical_barrier = 1;
  else if (strcmp(arg, "--compress") == 0)
    a->compress = 1;
  else
    return 0;
  return 1;
}

int barrier_args_parse(int argc, char **argv, barrier_args *a, char *err,
                       size_t err_size) {
  memset(a, 0, sizeof *a);
  a->psd = FRICL_PSD_NONE;
  a->hessian = BARRIER_HESSIAN_NONE;
  a->precision = FRICL_F64;
  a->repeat = 1;
  if (cli_wants_help(argc, argv)) {
    a->help = 1;
    return 0;
  }
  int seen[OPT_COUNT] = {0};
  if (cli_parse_options(argc, argv, option_names, OPT_COUNT, HINT, a,
                        apply_flag, apply, &a->in_path, seen, err,
                        err_size) != 0)
    return -1;
  if (!a->in_path) {
    snprintf(err, err_size, "the input IN.npz is required" HINT);
    return -1;
  }
  if (!a->out_path) {
    snprintf(err, err_size, "-o/--out OUT.npz is required" HINT);
    return -1;
  }
  return 0;
}

void barrier_print_help(FILE *f) {
  fputs("Usage: fricl barrier IN.npz -o OUT.npz [--psd none|clamp|abs]\n"
        "           [--hessian none|local|global] [--physical-barrier]\n"
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
        "  --precision P       f64 (default) or f32.\n"
        "  --device SPEC       as for 'fricl tangential' (the barrier runs on\n"
        "                      the host threads in this version).\n"
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
        "  per stencil type T in vv ev ee fv pv (ee, fv 3-D only):\n"
        "    T (m, k) vertex ids; T_weight (m,), T_dmin (m,) optional;\n"
        "    T_dtype (m,) optional (ev ee fv): ipctk's distance type per\n"
        "    contact (-1 or AUTO: classified here);\n"
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

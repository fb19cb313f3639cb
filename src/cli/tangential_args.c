/* tangential_args.c - option parsing and help of `fricl tangential`. */
#include "tangential_args.h"

#include <stddef.h>

#include "build_args.h"

static const char *const hessian_names[] = {"none", "local", "factored",
                                            "global", NULL};

/* Indexed as fricl_mollifier. */
static const char *const mollifier_names[] = {"friction", "adhesion", NULL};

#define HINT " (see 'fricl tangential --help')"
#define F(field) offsetof(tangential_args, field)

/* --blend is row OPT_BLEND (after CLI_NPZ_OPTIONS' four): it needs
 * --build. */
enum { OPT_BLEND = 4 };
static const cli_option options[] = {
    CLI_NPZ_OPTIONS(tangential_args),
    CLI_OPT_BLEND(tangential_args),
    CLI_OPT_PSD(tangential_args),
    {"--hessian", NULL, CLI_CHOICE, F(hessian), hessian_names, NULL, 0, 0},
    CLI_OPT_PRECISION(tangential_args),
    CLI_OPT_PROFILE(tangential_args),
    CLI_OPT_IPCTK_ABS(tangential_args),
    CLI_OPT_CHECK_BASIS(tangential_args),
    CLI_OPT("--build", CLI_FLAG, F(build)),
    CLI_OPT_PHYSICAL_BARRIER(tangential_args),
    {"--mollifier", NULL, CLI_CHOICE, F(mollifier), mollifier_names,
     "not friction or adhesion", 0, 0},
};

/* --blend and --physical-barrier apply to the build. */
static int check(void *args, const int *seen, char *err, size_t err_size) {
  const tangential_args *a = args;
  if (!a->build && (seen[OPT_BLEND] || a->physical_barrier)) {
    snprintf(err, err_size, "%s applies to the build: it needs --build" HINT,
             seen[OPT_BLEND] ? "--blend" : "--physical-barrier");
    return -1;
  }
  return 0;
}

const cli_grammar tangential_grammar = CLI_NPZ_GRAMMAR(
    tangential_args, options, HINT, check, .psd = FRICL_PSD_NONE,
    .hessian = TANGENTIAL_HESSIAN_NONE, .precision = FRICL_F64,
    .profile = FRICL_MU_CUBIC, .blend = FRICL_BLEND_AVERAGE);

void tangential_print_help(FILE *f) {
  fputs(
      "Usage: fricl tangential IN.npz -o OUT.npz [--psd none|clamp|abs]\n"
      "           [--hessian none|local|factored|global] [--precision "
      "f64|f32]\n"
      "           [--device SPEC] [--mu-profile cubic|ipctk] [--ipctk-abs]\n"
      "           [--check-basis] [--mollifier friction|adhesion]\n"
      "           [--compress] [--verbose]\n"
      "       fricl tangential IN.npz -o OUT.npz --build [--blend B]\n"
      "           [--physical-barrier] [the options above]\n"
      "\n"
      "Evaluate the IPC friction (tangential) potential D of a set of\n"
      "contacts with lagged data, its gradient and its Hessian, reading the\n"
      "contacts from a numpy.savez / numpy.savez_compressed archive and\n"
      "writing the results as another.\n"
      "\n"
      "Options (a value may also be attached: --psd=clamp):\n"
      "  -o, --out FILE    the output archive (see Output). Required.\n"
      "  --psd P           projection of each contact Hessian to positive\n"
      "                    semi-definite: none (default, the exact Hessian),\n"
      "                    clamp (negative eigenvalues to 0) or abs (to\n"
      "                    their magnitude).\n"
      "  --hessian H       which Hessian to write: none (default), local\n"
      "                    (dense per contact), factored (per contact gamma\n"
      "                    and the symmetric dim x dim block S) or global\n"
      "                    (assembled, scalar COO).\n"
      "  --precision P     working precision and dtype of the real outputs:\n"
      "                    f64 (default) or f32. Real inputs of the other\n"
      "                    dtype are converted.\n"
      "  --device SPEC     auto, host, reference, gpu, cpu or\n"
      "                    opencl:<platform>:<device> (see 'fricl devices');\n"
      "                    or several: opencl:0:0,opencl:0:1 or all-gpu.\n"
      "                    Default: FRICL_DEVICE, else auto (host for small\n"
      "                    calls, an OpenCL GPU for large ones).\n"
      "  --mollifier M     friction (default) or adhesion: IPC Toolkit\n"
      "                    1.6.1's tangential adhesion (eps_v is then its\n"
      "                    eps_a).\n"
      "  --mu-profile P    static-to-kinetic transition of mu: cubic\n"
      "                    (default) or ipctk (what IPC Toolkit >= 1.4\n"
      "                    computes).\n"
      "  --ipctk-abs       with --psd abs, reproduce ipctk's projection for\n"
      "                    w N <= 0 (0 in its dynamic and y = 0 branches)\n"
      "                    instead of applying |.| uniformly.\n"
      "  --check-basis     reject tangent bases that are not orthonormal\n"
      "                    (1e-8 in f64, 1e-4 in f32).\n"
      "  --compress        deflate the output members (as\n"
      "                    numpy.savez_compressed); default stored.\n"
      "  -v, --verbose     report the contact counts, the device and the\n"
      "                    backend that ran the evaluation.\n"
      "  --build           IN is a build input (see 'fricl build --help' and\n"
      "                    below) plus velocities and eps_v: run the lagged\n"
      "                    build, then evaluate on its outputs in one call\n"
      "                    (on an OpenCL device, device-resident: the\n"
      "                    build's outputs stay on the device).\n"
      "  --blend B         with --build: average (default), min, max,\n"
      "                    product or harmonic (per-vertex mu).\n"
      "  --physical-barrier  with --build: N *= dhat / x^^2.\n"
      "  -h, --help        show this help and exit.\n"
      "\n",
      f);
  fputs(
      "Input arrays (n vertices, dim 2 or 3, m contacts of a type):\n"
      "  velocities             (n, dim) float64 (or float32)\n"
      "  eps_v                  scalar (shape () or (1,)), finite and > 0\n"
      "  and for each stencil type T present, T one of vv ev ee fv pv\n"
      "  (ee and fv in 3-D only):\n"
      "  T                      (m, k) int32 or int64 vertex ids in stencil\n"
      "                         order, k = 2 (vv), 3 (ev), 4 (ee, fv), 1 (pv)\n"
      "  T_closest_point        (m, nb): nb = 1 (ev; (m,) accepted),\n"
      "                         2 (ee, fv); optional (m, 0) for vv and pv\n"
      "  T_tangent_basis        (m, dim, dim-1)\n"
      "  T_normal_force         (m,)  finite and >= 0\n"
      "  T_mu_s, T_mu_k         (m,)  finite and >= 0\n"
      "  T_weight               (m,)  optional, default 1\n"
      "  T_mu_aniso             (m, dim-1) optional, default 1\n"
      "  Real arrays may be float64 or float32, any array C or Fortran\n"
      "  order. Any other array name is an error (most likely a misspelt\n"
      "  optional array), as are T_* arrays without T.\n"
      "\n"
      "Output arrays (real ones in the dtype of --precision):\n"
      "  potential              ()    total D, summed in a fixed order\n"
      "  gradient               (n*dim,) vertex-major [x0 y0 (z0) x1 ...]\n"
      "  T_potential            (m,)  D of each contact\n"
      "  --hessian local:       T_hessian (m, k*dim, k*dim)\n"
      "  --hessian factored:    T_gamma (m, k), T_grad (m, dim) (the\n"
      "                         gradient block of vertex i is gamma_i q),\n"
      "                         T_hessian_factored (m, dim(dim+1)/2): S\n"
      "                         packed by rows of its upper triangle; block\n"
      "                         (i, j) of the contact Hessian is\n"
      "                         gamma_i gamma_j S\n"
      "  --hessian global:      hessian_rows, hessian_cols (nnz,) int64,\n"
      "                         hessian_values (nnz,), hessian_shape (2,)\n"
      "                         int64: scalar COO, rows ascending, columns\n"
      "                         ascending within a row, duplicates summed\n"
      "                         (entries of touched dim x dim blocks may be\n"
      "                         explicit zeros)\n"
      "  --build:               also the build's outputs (below)\n"
      "  The output is written to a temporary file in the same directory and\n"
      "  renamed over FILE only when complete: on any error FILE is left as\n"
      "  it was.\n"
      "\n",
      f);
  fputs("With --build the input holds velocities, eps_v and the build\n"
        "input instead of the per-contact data above (any other array is an\n"
        "error); lagged_positions and velocities must have the same shape.\n"
        "\n",
        f);
  build_print_schema(f);
  fputs("Exit status:\n"
        "  0  success.\n"
        "  1  runtime error: device unusable, OpenCL or build failure, out of\n"
        "     memory, output not writable.\n"
        "  2  usage error or bad input: bad option, input missing or not a\n"
        "     valid archive, a required array missing, an array of the wrong\n"
        "     dtype or shape, an unknown array, a vertex id out of range, a\n"
        "     value the library rejects (eps_v <= 0, N < 0, non-finite data).\n"
        "  Errors are one line on stderr naming the array at fault.\n"
        "\n"
        "Example:\n"
        "  fricl tangential contacts.npz -o out.npz --psd clamp --hessian "
        "global\n",
        f);
}

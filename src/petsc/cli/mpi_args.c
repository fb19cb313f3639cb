/* mpi_args.c - option parsing and help of `fricl-mpi tangential`, on the
 * grammar the `fricl` tool's NPZ commands share (cli_args.c). */
#include "mpi_args.h"

#include <string.h>

#include "cli_args.h"

enum { OPT_OUT, OPT_PSD, OPT_DEVICE, OPT_MU_PROFILE, OPT_COUNT };

static const char *const option_names[OPT_COUNT] = {"--out", "--psd",
                                                    "--device", "--mu-profile"};

#define HINT " (see 'fricl-mpi tangential --help')"

static int apply(void *args, int option, const char *value, char *err,
                 size_t err_size) {
  mpi_args *a = args;
  switch (option) {
  case OPT_OUT:
    a->out_path = value;
    return 0;
  case OPT_PSD:
    if (fricl_psd_from_name(value, &a->psd) == FRICL_STATUS_OK)
      return 0;
    snprintf(err, err_size, "--psd '%s': not none, clamp or abs", value);
    return -1;
  case OPT_DEVICE:
    a->device = value;
    return 0;
  case OPT_MU_PROFILE:
    if (fricl_mu_profile_from_name(value, &a->profile) == FRICL_STATUS_OK)
      return 0;
    snprintf(err, err_size, "--mu-profile '%s': not cubic or ipctk", value);
    return -1;
  default:
    return -1;
  }
}

static int apply_flag(void *args, const char *arg) {
  mpi_args *a = args;
  if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0)
    a->verbose = 1;
  else if (strcmp(arg, "--newton-step") == 0)
    a->newton = 1;
  else if (strcmp(arg, "--ipctk-abs") == 0)
    a->ipctk_abs = 1;
  else if (strcmp(arg, "--check-basis") == 0)
    a->check_basis = 1;
  else if (strcmp(arg, "--compress") == 0)
    a->compress = 1;
  else
    return 0;
  return 1;
}

int mpi_args_parse(int argc, char **argv, mpi_args *a, char *err,
                   size_t err_size) {
  memset(a, 0, sizeof *a);
  a->psd = FRICL_PSD_NONE;
  a->profile = FRICL_MU_CUBIC;
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

void mpi_print_help(FILE *f) {
  fputs(
      "Usage: mpirun -np P fricl-mpi tangential IN.npz -o OUT.npz\n"
      "           [--psd none|clamp|abs] [--newton-step] [--device SPEC]\n"
      "           [--mu-profile cubic|ipctk] [--ipctk-abs] [--check-basis]\n"
      "           [--compress] [--verbose] [-- PETSC_OPTIONS...]\n"
      "\n"
      "The distributed counterpart of 'fricl tangential --hessian global':\n"
      "every rank reads the contact set IN.npz (the schema of 'fricl\n"
      "tangential --help', plus an optional 'mass' array), the vertices are\n"
      "split over the ranks in contiguous blocks, every contact goes to the\n"
      "owner of its first vertex, each rank evaluates its contacts with\n"
      "fricl and fricl_petsc assembles the gradient and the Hessian in a\n"
      "PETSc Vec and a MATBAIJ matrix. Rank 0 writes the output.\n"
      "\n"
      "Options (a value may also be attached: --psd=clamp):\n"
      "  -o, --out FILE    the output archive. Required.\n"
      "  --psd P           none (default), clamp or abs: the projection of\n"
      "                    each contact Hessian.\n"
      "  --newton-step     also solve (M + H) dx = -g with PETSc's KSP (CG,\n"
      "                    Jacobi preconditioner, rtol 1e-13; override with\n"
      "                    PETSc options after '--', e.g. -- -ksp_rtol 1e-10)\n"
      "                    where M is diagonal: mass[i] on the dofs of vertex\n"
      "                    i, 1 without a 'mass' array. M + H must be\n"
      "                    positive definite (--psd clamp or abs).\n"
      "  --device SPEC     the device of every rank: auto (default) and gpu\n"
      "                    give each rank GPU number (node-local rank mod\n"
      "                    GPUs of the node); reference, cpu or\n"
      "                    opencl:<platform>:<device> are used as given.\n"
      "  --mu-profile, --ipctk-abs, --check-basis, --compress: as for\n"
      "                    'fricl tangential'.\n"
      "  -v, --verbose     report the device, the partition and the\n"
      "                    preallocation (rank 0, on stderr).\n"
      "  -h, --help        show this help and exit.\n"
      "\n"
      "Extra input array:\n"
      "  mass                   (n,) float64 or float32, finite and > 0\n"
      "\n"
      "Output arrays (float64), as 'fricl tangential --hessian global':\n"
      "  potential, gradient, T_potential per type, hessian_rows,\n"
      "  hessian_cols, hessian_values, hessian_shape (COO of the assembled\n"
      "  matrix, rows ascending, columns ascending within a row), and with\n"
      "  --newton-step: newton_step (n*dim,). Written atomically by rank 0.\n"
      "\n"
      "Exit status (the same on every rank): 0 success; 1 runtime error;\n"
      "2 usage error or bad input (one line on stderr, from rank 0, naming\n"
      "the array, or the rank and contact that the library rejected).\n",
      f);
}

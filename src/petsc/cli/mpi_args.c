/* mpi_args.c - option parsing and help of `fricl-mpi tangential`, on the
 * option table of the `fricl` tool's NPZ commands (cli_args.c). */
#include "mpi_args.h"

#include <stddef.h>

#define HINT " (see 'fricl-mpi tangential --help')"
#define F(field) offsetof(mpi_args, field)

static const cli_option options[] = {
    CLI_NPZ_OPTIONS(mpi_args),   CLI_OPT_PSD(mpi_args),
    CLI_OPT_PROFILE(mpi_args),   CLI_OPT("--newton-step", CLI_FLAG, F(newton)),
    CLI_OPT_IPCTK_ABS(mpi_args), CLI_OPT_CHECK_BASIS(mpi_args),
};

const cli_grammar mpi_grammar =
    CLI_NPZ_GRAMMAR(mpi_args, options, HINT, NULL, .psd = FRICL_PSD_NONE,
                    .profile = FRICL_MU_CUBIC);

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

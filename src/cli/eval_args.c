/* eval_args.c - option parsing and help of `fricl eval`. */
#include "eval_args.h"

#include <stddef.h>
#include <string.h>

#define HINT " (see 'fricl eval --help')"
#define F(field) offsetof(eval_args, field)

/* The rows whose presence check_complete reads. */
enum { OPT_TERM, OPT_EPS_V, OPT_MU_S, OPT_MU_K };
static const cli_option options[] = {
    CLI_OPT("--term", CLI_CUSTOM, 0),
    CLI_OPT("--eps-v", CLI_DOUBLE, F(eps_v)),
    CLI_OPT("--mu-s", CLI_DOUBLE, F(mu_s)),
    CLI_OPT("--mu-k", CLI_DOUBLE, F(mu_k)),
    CLI_OPT("--in", CLI_STRING, F(in_path)),
    CLI_SCALAR_OPTIONS(eval_args),
    CLI_OPT_PROFILE(eval_args),
};
#define N_OPTIONS ((int)(sizeof options / sizeof options[0]))

static int add_term(eval_args *a, fricl_term t, char *err, size_t err_size) {
  for (int i = 0; i < a->nterms; ++i)
    if (a->terms[i] == t) {
      snprintf(err, err_size, "term %s requested twice" HINT,
               fricl_term_name(t));
      return -1;
    }
  a->terms[a->nterms++] = t; /* at most FRICL_TERM_COUNT: no duplicates */
  return 0;
}

/* --term NAME or 'all', repeated: the only CLI_CUSTOM row. */
static int parse_terms(void *args, const cli_option *o, const char *value,
                       char *err, size_t err_size) {
  eval_args *a = args;
  (void)o;
  if (strcmp(value, "all") == 0) {
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      if (add_term(a, (fricl_term)t, err, err_size) != 0)
        return -1;
    return 0;
  }
  fricl_term t;
  if (fricl_term_from_name(value, &t) != FRICL_STATUS_OK) {
    snprintf(err, err_size, "unknown term '%s'" HINT, value);
    return -1;
  }
  return add_term(a, t, err, err_size);
}

/* Requirements that depend on several options. */
static int check_complete(void *args, const int *seen, char *err,
                          size_t err_size) {
  eval_args *a = args;
  a->have_eps_v = seen[OPT_EPS_V];
  a->have_mu_s = seen[OPT_MU_S];
  a->have_mu_k = seen[OPT_MU_K];
  const char *missing = a->nterms == 0   ? "--term"
                        : !a->have_eps_v ? "--eps-v"
                        : !a->in_path    ? "--in"
                        : !a->out_path   ? "--out"
                                         : NULL;
  if (missing) {
    snprintf(err, err_size, "%s is required" HINT, missing);
    return -1;
  }
  for (int i = 0; i < a->nterms; ++i)
    if (a->terms[i] >= FRICL_SMOOTH_MU && (!a->have_mu_s || !a->have_mu_k)) {
      snprintf(err, err_size, "term %s needs --mu-s and --mu-k (missing %s)",
               fricl_term_name(a->terms[i]),
               !a->have_mu_s && !a->have_mu_k ? "both"
               : !a->have_mu_s                ? "--mu-s"
                                              : "--mu-k");
      return -1;
    }
  return 0;
}

static const eval_args defaults = {.profile = FRICL_MU_CUBIC,
                                   .precision = FRICL_F64};
const cli_grammar eval_grammar = {.table = options,
                                  .n = N_OPTIONS,
                                  .hint = HINT,
                                  .custom = parse_terms,
                                  .defaults = &defaults,
                                  .size = sizeof defaults,
                                  .check = check_complete};

void eval_print_help(FILE *f) {
  fputs(
      "Usage: fricl eval --term NAME [--term NAME ...] --eps-v E\n"
      "                  [--mu-s S --mu-k K] [--mu-profile cubic|ipctk]\n"
      "                  [--precision f64|f32] [--device SPEC] [--verbose]\n"
      "                  --in Y.npy --out OUT.npy\n"
      "\n"
      "Evaluate terms of the IPC Toolkit smooth-friction family at every\n"
      "element y of a 1-D NPY array and write the results as an NPY file.\n"
      "\n"
      "Options (an option's value may also be attached: --eps-v=1e-3):\n"
      "  --term NAME       a term to evaluate; repeat for several terms, each\n"
      "                    at most once. NAME is one of\n",
      f);
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    fprintf(f, "                      %s\n", fricl_term_name((fricl_term)t));
  fputs(
      "                    or 'all' for all twelve, in this order.\n"
      "  --eps-v E         velocity threshold eps_v: finite and > 0.\n"
      "  --mu-s S          static friction coefficient: finite and >= 0.\n"
      "  --mu-k K          kinetic friction coefficient: finite and >= 0.\n"
      "                    Both are required when a smooth_mu* term is\n"
      "                    requested, and ignored otherwise.\n"
      "  --mu-profile P    the static-to-kinetic transition of the smooth_mu*\n"
      "                    terms: cubic (default) or ipctk.\n"
      "  --precision P     working precision and output dtype: f64 (default,\n"
      "                    '<f8') or f32 ('<f4'). f64 needs a device with\n"
      "                    double precision (FP64 in 'fricl devices').\n"
      "  --device SPEC     auto, host, reference, gpu, cpu or\n"
      "                    opencl:<platform>:<device> (see 'fricl devices');\n"
      "                    or several: opencl:0:0,opencl:0:1 or all-gpu.\n"
      "                    Default: the FRICL_DEVICE environment variable, or\n"
      "                    auto when it is unset or empty; auto runs small\n"
      "                    calls on the host backend (all cores) and large\n"
      "                    ones on the first OpenCL GPU, if there is one.\n"
      "  --in FILE         the input array y (see Input).\n"
      "  --out FILE        the output file (see Output).\n"
      "  -v, --verbose     report the device and the backend that ran the\n"
      "                    evaluation (host or OpenCL with auto), on stderr.\n"
      "  -h, --help        show this help and exit.\n"
      "\n"
      "Numbers are read with strtod and must be consumed entirely: 1e-3,\n"
      "0.5 and hexadecimal floats such as 0x1p-10 are accepted, '1e-3x' and\n"
      "'' are not.\n"
      "\n"
      "Input: an NPY file (format 1.0, 2.0 or 3.0) holding a 1-D array of\n"
      "  little-endian float64 ('<f8') or float32 ('<f4'); fortran_order may\n"
      "  be True (it changes nothing in 1-D). Big-endian data, other dtypes,\n"
      "  other shapes and bytes after the array data are rejected. When the\n"
      "  dtype differs from --precision, y is converted: float32 to float64\n"
      "  exactly; float64 to float32 rounded to nearest, magnitudes beyond\n"
      "  the float32 range becoming +-inf.\n"
      "\n"
      "Output: an NPY 1.0 file in C order with the dtype of --precision.\n"
      "  With one --term its shape is (n,); with T terms it is (n, T), column\n"
      "  j holding the j-th term in the order given. The file is written to a\n"
      "  temporary file in the same directory and renamed over FILE only when\n"
      "  complete: on any error FILE is left as it was (or not created).\n"
      "  An existing FILE must be a regular file (it keeps its permission\n"
      "  bits); a symbolic link is followed and the file it names replaced.\n"
      "\n"
      "Exit status:\n"
      "  0  success.\n"
      "  1  runtime error: device not found or unusable, OpenCL or kernel\n"
      "     build failure, out of memory, output not writable.\n"
      "  2  usage error or bad input: unknown, missing or repeated option,\n"
      "     bad number, unknown or repeated term, missing --mu-s/--mu-k,\n"
      "     parameter value out of range, malformed device spec, input file\n"
      "     missing, unreadable, malformed or of the wrong dtype or shape.\n"
      "  Errors are reported as one line on stderr.\n"
      "\n"
      "Example:\n"
      "  fricl eval --term smooth_mu --term smooth_mu_f1 --eps-v 1e-3 \\\n"
      "      --mu-s 0.5 --mu-k 0.3 --mu-profile ipctk --in y.npy --out "
      "mu.npy\n",
      f);
}

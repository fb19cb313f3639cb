/* cmd_law.c - `fricl law`: evaluate or step one friction law over NPY
 * arrays (velocities, positions, normal forces, state), and `fricl law
 * --list`. Outputs and the state file are written atomically. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "cli_args.h"
#include "cli_run.h"
#include "commands.h"
#include "fricl/fricl.h"
#include "npy.h"
#include "npz_input.h"
#include "same_file.h"

#define MAX_KV 256

static void print_help(FILE *f) {
  fputs(
      "Usage: fricl law NAME [--param KEY=VALUE ...] [--option OPT ...]\n"
      "                 --in V.npy [--x X.npy] [--normal N.npy]\n"
      "                 [--state STATE.npy] [--integrator euler|rk4|exp --h "
      "H]\n"
      "                 [--dstate-out D.npy] [--precision f64|f32]\n"
      "                 [--device SPEC] [-v] --out F.npy\n"
      "       fricl law --list\n"
      "\n"
      "Evaluates the friction law NAME (see --list for the laws, their\n"
      "parameters, defaults and units) over the elements of V.npy.\n"
      "  --in        velocities: (n,) one sample per element, or (steps, n)\n"
      "              a trajectory (step-major). For maxwell, which reads no\n"
      "              velocity, --in holds the positions (or give --x).\n"
      "  --x         positions, same shape (maxwell, modified_stribeck)\n"
      "  --normal    normal forces (n,) or (steps, n); or --param normal=N\n"
      "  --param     KEY=VALUE for a law parameter (upstream names); GMS\n"
      "              elements as k_1=.. b_1=.. nu_1=.. k_2=.. (m = highest i)\n"
      "  --option    isdf_continuous, stribeck_odd, lugre_exp_shape (not\n"
      "              upstream; see the README)\n"
      "  --state     state file (n, S) (or (n,) when S = 1): read, and for\n"
      "              laws whose state advances written back atomically.\n"
      "              Without it the state starts at zero and is not saved.\n"
      "  --integrator, --h   lugre/gms: advance the state over each sample\n"
      "              with time step H (required for (steps, n) input).\n"
      "              Without them lugre/gms give F at the given state.\n"
      "  --dstate-out lugre/gms without --integrator: write dz/dt (n, S)\n"
      "  --out       forces, the shape of --in\n"
      "Exit status: 0 success, 1 runtime error, 2 usage error or bad input.\n",
      f);
}

static void print_list(FILE *f) {
  for (int l = 0; l < FRICL_LAW_COUNT; ++l) {
    fricl_law_info info;
    fricl_law_get_info((fricl_law)l, &info);
    fprintf(f, "%s\n  %s\n", info.name, info.description);
    fprintf(f,
            "  inputs: %s%s%s; state: ", info.uses_velocity ? "velocity" : "",
            info.uses_position
                ? (info.uses_velocity ? ", position" : "position (--in or --x)")
                : "",
            info.uses_normal ? ", normal force (N)" : "");
    if (!info.state_size)
      fprintf(f, "none\n");
    else if (l == FRICL_LAW_GMS)
      fprintf(f, "z_1..z_m (m per element)\n");
    else if (info.state_size == 2)
      fprintf(f, "(x_prev, d_prev) per element\n");
    else
      fprintf(f, "z per element\n");
    for (int k = 0; k < info.param_count; ++k) {
      const fricl_law_param_info *p = &info.params[k];
      char def[32];
      if (isnan(p->default_value))
        snprintf(def, sizeof def, "required");
      else
        snprintf(def, sizeof def, "default %g", p->default_value);
      fprintf(f, "    %-30s [%s] %s; %s\n", p->name, p->unit, def,
              p->description);
    }
    if (l == FRICL_LAW_GMS)
      fprintf(f,
              "    %-30s [N/m, N s/m, 1] required per element i = "
              "1..m (nu_i > 0)\n",
              "k_i, b_i, nu_i");
    for (uint32_t bit = 1; bit <= FRICL_LAW_OPT_ALL; bit <<= 1)
      if (info.options & bit)
        fprintf(f, "  option: %s\n", fricl_law_option_name(bit));
    if (info.ode_state)
      fprintf(f, "  integrators: euler, rk4%s\n",
              l == FRICL_LAW_LUGRE ? ", exp" : "");
  }
}

typedef struct {
  fricl_law law;
  const char *kv[MAX_KV];
  int nkv;
  uint32_t options;
  const char *in, *x, *normal, *state, *dstate_out, *out_path, *device;
  int have_integ;
  fricl_integrator integ;
  double h;
  int have_h;
  fricl_precision precision;
  int verbose;
} law_args;

#define F(field) offsetof(law_args, field)

/* --param, --option and --integrator are CLI_CUSTOM rows (read_custom);
 * whether OPT_INTEGRATOR and OPT_H were given is read from seen[]. */
enum { OPT_PARAM, OPT_OPTION, OPT_INTEGRATOR, OPT_H };
static const cli_option options[] = {
    CLI_OPT("--param", CLI_CUSTOM, 0),
    CLI_OPT("--option", CLI_CUSTOM, 0),
    CLI_OPT("--integrator", CLI_CUSTOM, F(integ)),
    CLI_OPT("--h", CLI_DOUBLE, F(h)),
    CLI_OPT("--in", CLI_STRING, F(in)),
    CLI_OPT("--x", CLI_STRING, F(x)),
    CLI_OPT("--normal", CLI_STRING, F(normal)),
    CLI_OPT("--state", CLI_STRING, F(state)),
    CLI_OPT("--dstate-out", CLI_STRING, F(dstate_out)),
    CLI_SCALAR_OPTIONS(law_args),
};
#define N_OPTIONS ((int)(sizeof options / sizeof options[0]))

static int read_custom(void *args, const cli_option *o, const char *value,
                       char *err, size_t es) {
  law_args *a = args;
  if (o == &options[OPT_PARAM]) {
    if (a->nkv == MAX_KV) {
      snprintf(err, es, "too many --param options");
      return -1;
    }
    a->kv[a->nkv++] = value;
    return 0;
  }
  if (o == &options[OPT_OPTION]) {
    uint32_t bit;
    if (fricl_law_option_from_name(value, &bit) != FRICL_STATUS_OK) {
      snprintf(err, es, "unknown option '%s'", value);
      return -1;
    }
    a->options |= bit;
    return 0;
  }
  if (fricl_integrator_from_name(value, &a->integ) != FRICL_STATUS_OK) {
    snprintf(err, es, "unknown integrator '%s' (euler, rk4, exp)", value);
    return -1;
  }
  return 0;
}

static int check(void *args, const int *seen, char *err, size_t es) {
  law_args *a = args;
  a->have_integ = seen[OPT_INTEGRATOR];
  a->have_h = seen[OPT_H];
  if (!a->out_path) {
    snprintf(err, es, "--out is required");
    return -1;
  }
  return 0;
}

/* argv[1] is the law; the options follow (a repeated one: the last wins,
 * --param and --option accumulate). */
static int parse_args(int argc, char **argv, law_args *a, char *err,
                      size_t es) {
  static const cli_grammar grammar = {.table = options,
                                      .n = N_OPTIONS,
                                      .hint = " (see 'fricl law --help')",
                                      .repeat = 1,
                                      .custom = read_custom,
                                      .check = check};
  memset(a, 0, sizeof *a);
  if (argc < 2 || argv[1][0] == '-') {
    snprintf(err, es, "missing law NAME (see 'fricl law --list')");
    return -1;
  }
  if (fricl_law_from_name(argv[1], &a->law) != FRICL_STATUS_OK) {
    snprintf(err, es, "unknown law '%s' (see 'fricl law --list')", argv[1]);
    return -1;
  }
  return cli_parse_args(&grammar, argc - 1, argv + 1, a, err, es);
}

/* ------------------------------------------------------------ arrays */

/* An NPY array converted to the working precision (owned). */
typedef struct {
  npy_array raw;
  void *data;
  size_t count;
} arr;

static void arr_free(arr *a) {
  npy_array_free(&a->raw);
  free(a->data);
  memset(a, 0, sizeof *a);
}

/* Read `path` as float64/float32 with 1 or 2 dimensions. */
static int load(const char *what, const char *path, fricl_precision prec,
                arr *a) {
  npy_error e;
  memset(a, 0, sizeof *a);
  const npy_status st = npy_read_file(path, 0, &a->raw, &e);
  if (st != NPY_OK) {
    fprintf(stderr, "fricl law: %s %s: %s\n", what, path, e.msg);
    return st == NPY_E_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
  }
  if (a->raw.info.dtype != NPY_F8 && a->raw.info.dtype != NPY_F4) {
    fprintf(stderr, "fricl law: %s %s: dtype '%s' is not float64 or float32\n",
            what, path, npy_dtype_descr(a->raw.info.dtype));
    return EXIT_USAGE;
  }
  if (a->raw.info.ndim < 1 || a->raw.info.ndim > 2) {
    fprintf(stderr, "fricl law: %s %s: expected 1 or 2 dimensions, got %d\n",
            what, path, a->raw.info.ndim);
    return EXIT_USAGE;
  }
  if (a->raw.info.fortran_order && a->raw.info.ndim == 2) {
    fprintf(stderr, "fricl law: %s %s: Fortran order is not supported\n", what,
            path);
    return EXIT_USAGE;
  }
  const size_t n = a->count = a->raw.info.count;
  const size_t esz = prec == FRICL_F32 ? sizeof(float) : sizeof(double);
  a->data = malloc(n ? n * esz : 1);
  if (!a->data) {
    fprintf(stderr, "fricl law: out of memory\n");
    return EXIT_RUNTIME;
  }
  for (size_t i = 0; i < n; ++i) {
    const double v = a->raw.info.dtype == NPY_F8
                         ? ((const double *)a->raw.data)[i]
                         : (double)((const float *)a->raw.data)[i];
    if (prec == FRICL_F32)
      ((float *)a->data)[i] = cli_double_to_float(v);
    else
      ((double *)a->data)[i] = v;
  }
  return 0;
}

static int same_shape(const arr *a, const arr *b) {
  if (a->raw.info.ndim != b->raw.info.ndim)
    return 0;
  for (int d = 0; d < a->raw.info.ndim; ++d)
    if (a->raw.info.shape[d] != b->raw.info.shape[d])
      return 0;
  return 1;
}

/* Write `count` values of the working precision with `ndim`/`shape`. */
static int save(const char *path, fricl_precision prec, int ndim,
                const size_t *shape, const void *data) {
  atomic_file af;
  npy_error e;
  if (cli_output_open("fricl law", &af, path) != 0)
    return EXIT_RUNTIME;
  return cli_publish("fricl law", &af, path,
                     npy_write_array(af.fp, prec == FRICL_F32 ? NPY_F4 : NPY_F8,
                                     ndim, shape, data, &e),
                     &e);
}

/* --------------------------------------------------------- parameters */

static int set_params(const law_args *a, const fricl_law_info *info,
                      fricl_law_batch *b, double *ge, size_t *m) {
  *m = 0;
  for (int i = 0; i < a->nkv; ++i) {
    const char *kv = a->kv[i];
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
      fprintf(stderr, "fricl law: --param '%s' is not KEY=VALUE\n", kv);
      return EXIT_USAGE;
    }
    const size_t klen = (size_t)(eq - kv);
    double v;
    const char *why = "";
    if (cli_parse_double(eq + 1, &v, &why) != 0) {
      fprintf(stderr, "fricl law: --param %.*s: '%s': %s\n", (int)klen, kv,
              eq + 1, why);
      return EXIT_USAGE;
    }
    /* Every law parameter must be finite. Said here: the library reads
     * NaN as "not given" and would call the parameter missing. */
    if (!isfinite(v)) {
      fprintf(stderr,
              "fricl law: --param %.*s = %s is invalid: it must be finite\n",
              (int)klen, kv, eq + 1);
      return EXIT_USAGE;
    }
    int found = 0;
    for (int k = 0; k < info->param_count && !found; ++k)
      if (strlen(info->params[k].name) == klen &&
          strncmp(info->params[k].name, kv, klen) == 0) {
        b->param[k] = v;
        found = 1;
      }
    if (!found && info->uses_normal &&
        ((klen == 6 && strncmp(kv, "normal", 6) == 0) ||
         (klen == 1 && kv[0] == 'N'))) {
      b->normal_force = v;
      found = 1;
    }
    if (!found && b->law == FRICL_LAW_GMS) {
      static const char *const pre[3] = {"k_", "b_", "nu_"};
      for (int t = 0; t < 3 && !found; ++t) {
        const size_t pl = strlen(pre[t]);
        if (klen > pl && strncmp(kv, pre[t], pl) == 0) {
          char *end;
          const long idx = strtol(kv + pl, &end, 10);
          if (end == eq && idx >= 1 && idx <= FRICL_GMS_MAX_ELEMENTS) {
            ge[3 * (idx - 1) + t] = v;
            if ((size_t)idx > *m)
              *m = (size_t)idx;
            found = 1;
          }
        }
      }
    }
    if (!found) {
      fprintf(stderr,
              "fricl law: %s has no parameter '%.*s' (see 'fricl law "
              "--list')\n",
              info->name, (int)klen, kv);
      return EXIT_USAGE;
    }
  }
  if (b->law == FRICL_LAW_GMS) {
    if (*m == 0) {
      fprintf(stderr, "fricl law: gms needs its elements: --param k_1=.. "
                      "b_1=.. nu_1=.. (and _2, ...)\n");
      return EXIT_USAGE;
    }
    static const char *const nm[3] = {"k", "b", "nu"};
    for (size_t j = 0; j < 3 * *m; ++j)
      if (isnan(ge[j])) {
        fprintf(stderr, "fricl law: gms: --param %s_%zu is missing\n",
                nm[j % 3], j / 3 + 1);
        return EXIT_USAGE;
      }
  }
  return 0;
}

/* ------------------------------------------------------ file names */

/* No output may name the same file as another output or as an input: the
 * forces would silently replace the state (--state s.npy --out s.npy), or
 * one output another. The state file counts as both (it may be written
 * back); its own in-place update is the one documented exception. */
static int check_file_names(const law_args *a) {
  const struct {
    const char *opt, *path;
    int is_out; /* written (the state may be) */
  } f[] = {
      {"--out", a->out_path, 1}, {"--dstate-out", a->dstate_out, 1},
      {"--state", a->state, 1},  {"--in", a->in, 0},
      {"--x", a->x, 0},          {"--normal", a->normal, 0},
  };
  const int nf = (int)(sizeof f / sizeof f[0]);
  for (int i = 0; i < nf; ++i)
    for (int j = i + 1; j < nf; ++j)
      if (f[i].path && f[j].path && (f[i].is_out || f[j].is_out) &&
          cli_same_file(f[i].path, f[j].path)) {
        fprintf(stderr,
                "fricl law: %s and %s name the same file (%s): an output "
                "may not replace another output or an input\n",
                f[i].opt, f[j].opt, f[j].path);
        return EXIT_USAGE;
      }
  return 0;
}

/* -------------------------------------------------------------- run */

static int run(const law_args *a) {
  int rc = EXIT_RUNTIME;
  fricl_law_info info;
  fricl_law_get_info(a->law, &info);
  arr in = {0}, x = {0}, nrm = {0}, st = {0};
  void *force = NULL, *state_out = NULL, *dstate = NULL, *ge_w = NULL;
  fricl_context *ctx = NULL;
  double ge[3 * FRICL_GMS_MAX_ELEMENTS];
  for (int j = 0; j < 3 * FRICL_GMS_MAX_ELEMENTS; ++j)
    ge[j] = NAN;
  fricl_law_batch b;
  fricl_law_batch_init(&b, a->law);
  b.precision = a->precision;
  b.options = a->options;
  size_t m = 0;
  if ((rc = set_params(a, &info, &b, ge, &m)) != 0 ||
      (rc = check_file_names(a)) != 0)
    goto done;
  rc = EXIT_USAGE;
  /* Inputs. The primary array fixes the shape. */
  const char *primary = a->in;
  const int x_is_in = a->law == FRICL_LAW_MAXWELL && !a->x;
  if (!primary && a->law == FRICL_LAW_MAXWELL)
    primary = a->x;
  if (!primary) {
    fprintf(stderr, "fricl law: --in is required\n");
    goto done;
  }
  if (info.uses_position && !info.uses_velocity && a->in && a->x) {
    fprintf(stderr, "fricl law: maxwell reads positions only: give --in or "
                    "--x, not both\n");
    goto done;
  }
  if ((rc = load("--in", primary, a->precision, &in)) != 0)
    goto done;
  rc = EXIT_USAGE;
  const int traj = in.raw.info.ndim == 2;
  const size_t steps = traj ? in.raw.info.shape[0] : 1;
  const size_t n = traj ? in.raw.info.shape[1] : in.raw.info.shape[0];
  if (info.uses_position && !x_is_in) {
    if (!a->x) {
      fprintf(stderr, "fricl law: %s needs positions: --x X.npy\n", info.name);
      goto done;
    }
    if ((rc = load("--x", a->x, a->precision, &x)) != 0)
      goto done;
    rc = EXIT_USAGE;
    if (!same_shape(&x, &in)) {
      fprintf(stderr, "fricl law: --x must have the shape of --in\n");
      goto done;
    }
  }
  if (a->normal) {
    if (!info.uses_normal) {
      fprintf(stderr, "fricl law: %s has no normal force\n", info.name);
      goto done;
    }
    if ((rc = load("--normal", a->normal, a->precision, &nrm)) != 0)
      goto done;
    rc = EXIT_USAGE;
    const int per_elem = nrm.raw.info.ndim == 1 && nrm.count == n;
    if (!per_elem && !same_shape(&nrm, &in)) {
      fprintf(stderr, "fricl law: --normal must have shape (n,) or the shape "
                      "of --in\n");
      goto done;
    }
    b.normal = nrm.data;
    b.normal_per_step = !per_elem && traj;
  }
  /* State. */
  const size_t S = info.state_size
                       ? (a->law == FRICL_LAW_GMS ? m : (size_t)info.state_size)
                       : 0;
  const int stepping = traj || a->have_integ;
  const int advances =
      info.state_size && (!info.ode_state || stepping); /* state changes */
  if (a->state) {
    if (!S) {
      fprintf(stderr, "fricl law: %s has no state\n", info.name);
      goto done;
    }
    if ((rc = load("--state", a->state, a->precision, &st)) != 0)
      goto done;
    rc = EXIT_USAGE;
    const int ok = (st.raw.info.ndim == 2 && st.raw.info.shape[0] == n &&
                    st.raw.info.shape[1] == S) ||
                   (S == 1 && st.raw.info.ndim == 1 && st.count == n);
    if (!ok) {
      fprintf(stderr, "fricl law: --state must have shape (%zu, %zu)\n", n, S);
      goto done;
    }
    b.state = st.data;
  }
  if (info.ode_state) {
    if (traj && !a->have_integ) {
      fprintf(stderr,
              "fricl law: a (steps, n) trajectory of %s needs "
              "--integrator and --h\n",
              info.name);
      goto done;
    }
    if (a->have_integ != a->have_h) {
      fprintf(stderr, "fricl law: --integrator and --h go together\n");
      goto done;
    }
  } else if (a->have_integ || a->have_h) {
    fprintf(stderr, "fricl law: %s has no ODE state: no --integrator/--h\n",
            info.name);
    goto done;
  }
  if (a->dstate_out && !(info.ode_state && !stepping)) {
    fprintf(stderr, "fricl law: --dstate-out is for lugre/gms without "
                    "--integrator\n");
    goto done;
  }
  const size_t esz = a->precision == FRICL_F32 ? sizeof(float) : sizeof(double);
  rc = EXIT_RUNTIME;
  if (m) {
    if (!(ge_w = malloc(3 * m * esz)))
      goto done;
    for (size_t j = 0; j < 3 * m; ++j)
      if (a->precision == FRICL_F32)
        ((float *)ge_w)[j] = cli_double_to_float(ge[j]);
      else
        ((double *)ge_w)[j] = ge[j];
    b.gms_elements = m;
    b.gms_params = ge_w;
  }
  force = malloc(in.count ? in.count * esz : 1);
  if (!force ||
      (advances && a->state && !(state_out = malloc(n * S * esz + 1))) ||
      (a->dstate_out && !(dstate = malloc(n * S * esz + 1)))) {
    fprintf(stderr, "fricl law: out of memory\n");
    goto done;
  }
  b.n = n;
  b.n_steps = steps;
  if (info.uses_velocity)
    b.v = in.data;
  if (info.uses_position)
    b.x = x_is_in ? in.data : x.data;
  b.force = force;
  b.state_out = state_out;
  b.dstate = dstate;
  b.integrator = a->integ;
  b.h = a->h;
  if ((rc = cli_context_open("fricl law", a->device, &ctx)) != 0)
    goto done;
  const fricl_status fs =
      stepping ? fricl_law_step(ctx, &b) : fricl_law_eval(ctx, &b);
  if (fs != FRICL_STATUS_OK) {
    rc = cli_library_error("fricl law", ctx, fs, NULL);
    goto done;
  }
  if (a->verbose)
    cli_report_backend("fricl law", ctx);
  /* Outputs first, the state last: a failure leaves the state file as it
   * was, so the run can be repeated. */
  if ((rc = save(a->out_path, a->precision, in.raw.info.ndim, in.raw.info.shape,
                 force)) != 0)
    goto done;
  if (dstate) {
    const size_t shape[2] = {n, S};
    if ((rc = save(a->dstate_out, a->precision, 2, shape, dstate)) != 0)
      goto done;
  }
  if (state_out && (rc = save(a->state, a->precision, st.raw.info.ndim,
                              st.raw.info.shape, state_out)) != 0)
    goto done;
  rc = 0;
done:
  fricl_context_destroy(ctx);
  free(force);
  free(state_out);
  free(dstate);
  free(ge_w);
  arr_free(&in);
  arr_free(&x);
  arr_free(&nrm);
  arr_free(&st);
  return rc;
}

static int law_main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "--list") == 0) {
    print_list(stdout);
    return 0;
  }
  if (cli_wants_help(argc, argv)) {
    print_help(stdout);
    return 0;
  }
  law_args a;
  char err[512];
  if (parse_args(argc, argv, &a, err, sizeof err) != 0) {
    fprintf(stderr, "fricl law: %s\n", err);
    return EXIT_USAGE;
  }
  return run(&a);
}

const cli_command cmd_law = {"law", law_main, NULL, NULL, NULL};

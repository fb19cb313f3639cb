/* cli_args.c - see cli_args.h. */
#include "cli_args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fricl/fricl.h"

int cli_parse_double(const char *text, double *value, const char **why) {
  if (!text || !*text) {
    *why = "empty number";
    return -1;
  }
  /* strtod would skip it silently; a quoted " 1" is more likely a mistake. */
  if (isspace((unsigned char)text[0])) {
    *why = "leading white space";
    return -1;
  }
  char *end = NULL;
  errno = 0;
  const double v = strtod(text, &end);
  if (end == text) {
    *why = "not a number";
    return -1;
  }
  if (*end != '\0') {
    *why = "trailing characters after the number";
    return -1;
  }
  /* ERANGE also flags underflow, whose result (a subnormal or zero) is the
   * nearest double and is kept; only overflow loses the value. */
  if (errno == ERANGE && isinf(v)) {
    *why = "out of the range of double";
    return -1;
  }
  *value = v;
  return 0;
}

void cli_split_option(int argc, char **argv, int *i, const char **name,
                      int *name_len, const char **value) {
  const char *arg = argv[*i];
  const char *eq = strchr(arg, '=');
  *name = arg;
  if (eq) {
    *name_len = (int)(eq - arg);
    *value = eq[1] ? eq + 1 : NULL;
    return;
  }
  *name_len = (int)strlen(arg);
  *value = NULL;
  /* A following "--x" is the next option, not this one's value: report a
   * missing value rather than swallowing it. */
  if (*i + 1 < argc && argv[*i + 1][0] != '\0' &&
      strncmp(argv[*i + 1], "--", 2) != 0) {
    *value = argv[*i + 1];
    ++*i;
  }
}

int cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
      return 1;
  return 0;
}

void cli_report_backend(const char *command, const fricl_context *ctx) {
  fprintf(stderr, "%s: device %s; the evaluation ran on the %s backend\n",
          command, fricl_context_device_name(ctx),
          fricl_backend_name(fricl_context_last_backend(ctx)));
}

static void *at(void *base, size_t offset) { return (char *)base + offset; }

/* The flag row spelt `arg` (its name or alias), or NULL. */
static const cli_option *find_flag(const cli_grammar *g, const char *arg) {
  for (int k = 0; k < g->n; ++k) {
    const cli_option *o = &g->table[k];
    if (o->kind == CLI_FLAG &&
        (strcmp(arg, o->name) == 0 || (o->alias && strcmp(arg, o->alias) == 0)))
      return o;
  }
  return NULL;
}

/* The value option called name[0, len), or -1. */
static int find_value(const cli_grammar *g, const char *name, int len) {
  for (int k = 0; k < g->n; ++k) {
    const char *o = g->table[k].name;
    if (g->table[k].kind != CLI_FLAG && strncmp(o, name, (size_t)len) == 0 &&
        o[len] == '\0')
      return k;
  }
  return -1;
}

/* The values of the enumerations options name, from the library's tables
 * (<fricl/fricl_tables.h>): the index of a name is its value. */
#define NAME_(name, value, text) [value] = text,
static const char *const precision_names[] = {FRICL_PRECISION_MAP(NAME_) NULL};
static const char *const psd_names[] = {FRICL_PSD_MAP(NAME_) NULL};
static const char *const blend_names[] = {FRICL_MU_BLEND_MAP(NAME_) NULL};
static const char *const profile_names[] = {FRICL_MU_PROFILE_MAP(NAME_) NULL};
#undef NAME_

static const char *const *choices_of(const cli_option *o) {
  switch (o->kind) {
  case CLI_PRECISION:
    return precision_names;
  case CLI_PSD:
    return psd_names;
  case CLI_BLEND:
    return blend_names;
  case CLI_PROFILE:
    return profile_names;
  default:
    return o->choices;
  }
}

/* "not a, b or c" of a NULL-terminated list. */
static const char *not_one_of(char *buf, size_t size,
                              const char *const *choices) {
  size_t used = (size_t)snprintf(buf, size, "not");
  for (int c = 0; choices[c] && used < size; ++c)
    used += (size_t)snprintf(buf + used, size - used, "%s%s",
                             c == 0           ? " "
                             : choices[c + 1] ? ", "
                                              : " or ",
                             choices[c]);
  return buf;
}

/* Read the value of row `o` into its field. */
static int apply(const cli_grammar *g, const cli_option *o, void *args,
                 const char *value, char *err, size_t err_size) {
  void *field = at(args, o->offset);
  const char *why = o->expected;
  char not_one[128];
  switch (o->kind) {
  case CLI_STRING:
    *(const char **)field = value;
    return 0;
  case CLI_PRECISION:
  case CLI_PSD:
  case CLI_BLEND:
  case CLI_PROFILE:
  case CLI_CHOICE: {
    const char *const *choices = choices_of(o);
    for (int c = 0; choices[c]; ++c)
      if (strcmp(value, choices[c]) == 0) {
        *(int *)field = c;
        return 0;
      }
    if (!why)
      why = not_one_of(not_one, sizeof not_one, choices);
    break;
  }
  case CLI_INT: {
    char *end = NULL;
    const long v = strtol(value, &end, 10);
    if (*value && !*end && v >= o->min && v <= o->max) {
      *(int *)field = (int)v;
      return 0;
    }
    break;
  }
  case CLI_DOUBLE:
    if (cli_parse_double(value, field, &why) == 0)
      return 0;
    break;
  case CLI_CUSTOM:
    return g->custom(args, o, value, err, err_size);
  case CLI_FLAG:
    return -1; /* flags never reach here */
  }
  snprintf(err, err_size, "%s '%s': %s", o->name, value, why);
  return -1;
}

static int parse(const cli_grammar *g, int argc, char **argv, void *args,
                 const char **in_path, int *seen, char *err, size_t err_size) {
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const cli_option *flag = find_flag(g, arg);
    if (flag) {
      *(int *)at(args, flag->offset) = 1;
      continue;
    }
    const char *name = NULL, *value = NULL;
    int name_len = 0, opt = 0;
    if (g->input && strcmp(arg, "-o") == 0) {
      opt = 0; /* --out */
      if (i + 1 < argc && argv[i + 1][0] != '\0')
        value = argv[++i];
    } else if (strncmp(arg, "--", 2) == 0) {
      cli_split_option(argc, argv, &i, &name, &name_len, &value);
      if ((opt = find_value(g, name, name_len)) < 0) {
        snprintf(err, err_size, "unknown option '%.*s'%s", name_len, name,
                 g->hint);
        return -1;
      }
    } else if (!g->input) {
      snprintf(err, err_size, "unexpected argument '%s'%s", arg, g->hint);
      return -1;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      snprintf(err, err_size, "unknown option '%s'%s", arg, g->hint);
      return -1;
    } else {
      if (*in_path) {
        snprintf(err, err_size,
                 "unexpected argument '%s': the input is already '%s'%s", arg,
                 *in_path, g->hint);
        return -1;
      }
      *in_path = arg;
      continue;
    }
    const cli_option *o = &g->table[opt];
    if (!value) {
      snprintf(err, err_size, "option %s needs a value%s", o->name, g->hint);
      return -1;
    }
    if (seen[opt] && !g->repeat && o->kind != CLI_CUSTOM) {
      snprintf(err, err_size, "option %s given twice%s", o->name, g->hint);
      return -1;
    }
    seen[opt] = 1;
    if (apply(g, o, args, value, err, err_size) != 0)
      return -1;
  }
  return 0;
}

int cli_parse_args(const cli_grammar *g, int argc, char **argv, void *args,
                   char *err, size_t err_size) {
  int seen[CLI_MAX_OPTIONS] = {0};
  if (g->n > CLI_MAX_OPTIONS) {
    snprintf(err, err_size, "internal error: option table too long");
    return -1;
  }
  if (g->defaults)
    memcpy(args, g->defaults, g->size);
  const char **in = g->input ? at(args, g->in_path) : NULL;
  if (parse(g, argc, argv, args, in, seen, err, err_size) != 0 ||
      (g->check && g->check(args, seen, err, err_size) != 0))
    return -1;
  if (g->input) {
    const char *out = *(const char **)at(args, g->out_path);
    if (!*in) {
      snprintf(err, err_size, "the input IN.npz is required%s", g->hint);
      return -1;
    }
    if (!out) {
      snprintf(err, err_size, "-o/--out OUT.npz is required%s", g->hint);
      return -1;
    }
  }
  return 0;
}

int cli_command_main(const cli_command *c, const char *tool, int argc,
                     char **argv) {
  if (c->main)
    return c->main(argc, argv);
  if (cli_wants_help(argc, argv)) {
    c->help(stdout);
    return 0;
  }
  void *args = calloc(1, c->grammar->size);
  char err[512] = "";
  int rc = 1;
  if (!args)
    fprintf(stderr, "%s %s: out of memory\n", tool, c->name);
  else if (cli_parse_args(c->grammar, argc, argv, args, err, sizeof err) != 0) {
    fprintf(stderr, "%s %s: %s\n", tool, c->name, err);
    rc = 2;
  } else
    rc = c->run(args);
  free(args);
  return rc;
}

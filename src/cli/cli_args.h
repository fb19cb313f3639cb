/* cli_args.h - command-line parsing helpers shared by the subcommands. */
#ifndef FRICL_CLI_ARGS_H
#define FRICL_CLI_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "fricl/fricl.h"

/*
 * Parse all of @p text as a double with strtod (any syntax strtod accepts:
 * 1e-3, 0x1p-10, inf, nan). Empty text, leading white space, trailing
 * characters ("1e-3x") and overflow to infinity are rejected.
 * @return 0, or -1 with *why set to a static reason.
 */
int cli_parse_double(const char *text, double *value, const char **why);

/*
 * Split a long option "--name=value" or "--name" + next argument.
 * On entry argv[*i] starts with "--". *name receives the option name up to
 * '=' (length *name_len), *value the value or NULL when there is none (the
 * next argument is missing, empty or itself an option); *i is advanced past
 * a value taken from the next argument.
 */
void cli_split_option(int argc, char **argv, int *i, const char **name,
                      int *name_len, const char **value);

/*
 * A command's options as a table: one row per option, the field of the
 * command's argument struct it sets (by offset) and how its value is read.
 * Value options are "--name VALUE" or "--name=VALUE"; flags (CLI_FLAG) take
 * no value and set an int to 1, and `alias` is a second spelling ("-v").
 */
typedef enum cli_kind {
  CLI_FLAG,      /* int = 1 */
  CLI_STRING,    /* const char * borrowed from argv */
  CLI_PRECISION, /* fricl_precision by name: f64 | f32 */
  CLI_PSD,       /* fricl_psd by name */
  CLI_BLEND,     /* fricl_mu_blend by name */
  CLI_PROFILE,   /* fricl_mu_profile by name */
  CLI_CHOICE,    /* int: the index of the value in `choices` */
  CLI_INT,       /* int in [min, max] */
  CLI_DOUBLE,    /* double, all of the value read by cli_parse_double */
  CLI_CUSTOM     /* the grammar's `custom` reads it; may be repeated */
} cli_kind;

typedef struct cli_option {
  const char *name;
  const char *alias;
  cli_kind kind;
  size_t offset;
  const char *const *choices; /* CLI_CHOICE: NULL-terminated */
  const char *expected;       /* CLI_INT: "not ..." (choices: NULL says
                                 "not a, b or c") */
  long min, max;              /* CLI_INT */
} cli_option;

/* The options several commands spell alike, one row each, for an argument
 * struct Args with the field they set. */
#define CLI_ROW_(name, alias, kind, Args, field)                               \
  { name, alias, kind, offsetof(Args, field), NULL, NULL, 0, 0 }
/* A row of one command's own: an option without alias, choices or range
 * setting the field at offset `off` (0 for a CLI_CUSTOM row). */
#define CLI_OPT(name, kind, off)                                               \
  { name, NULL, kind, off, NULL, NULL, 0, 0 }
#define CLI_OPT_OUT(Args) CLI_ROW_("--out", NULL, CLI_STRING, Args, out_path)
#define CLI_OPT_DEVICE(Args)                                                   \
  CLI_ROW_("--device", NULL, CLI_STRING, Args, device)
#define CLI_OPT_VERBOSE(Args)                                                  \
  CLI_ROW_("--verbose", "-v", CLI_FLAG, Args, verbose)
#define CLI_OPT_COMPRESS(Args)                                                 \
  CLI_ROW_("--compress", NULL, CLI_FLAG, Args, compress)
#define CLI_OPT_PRECISION(Args)                                                \
  CLI_ROW_("--precision", NULL, CLI_PRECISION, Args, precision)
#define CLI_OPT_PSD(Args) CLI_ROW_("--psd", NULL, CLI_PSD, Args, psd)
#define CLI_OPT_PROFILE(Args)                                                  \
  CLI_ROW_("--mu-profile", NULL, CLI_PROFILE, Args, profile)
#define CLI_OPT_BLEND(Args) CLI_ROW_("--blend", NULL, CLI_BLEND, Args, blend)
#define CLI_OPT_PHYSICAL_BARRIER(Args)                                         \
  CLI_ROW_("--physical-barrier", NULL, CLI_FLAG, Args, physical_barrier)
#define CLI_OPT_IPCTK_ABS(Args)                                                \
  CLI_ROW_("--ipctk-abs", NULL, CLI_FLAG, Args, ipctk_abs)
#define CLI_OPT_CHECK_BASIS(Args)                                              \
  CLI_ROW_("--check-basis", NULL, CLI_FLAG, Args, check_basis)
/* The fricl_tangential_batch flags of --ipctk-abs and --check-basis (the
 * fields of a command's arguments @p a that those two rows set). */
#define CLI_TANGENTIAL_FLAGS(a)                                                \
  (((a)->ipctk_abs ? FRICL_TANGENTIAL_FLAG_IPCTK_ABS : 0u) |                   \
   ((a)->check_basis ? FRICL_TANGENTIAL_FLAG_CHECK_BASIS : 0u))
/* The rows the scalar commands (`fricl eval`, `fricl law`) share: --out,
 * --device, --precision and --verbose. */
#define CLI_SCALAR_OPTIONS(Args)                                               \
  CLI_OPT_OUT(Args), CLI_OPT_DEVICE(Args), CLI_OPT_PRECISION(Args),            \
      CLI_OPT_VERBOSE(Args)
/* The fields of an NPZ command's argument struct that CLI_NPZ_OPTIONS and
 * CLI_NPZ_GRAMMAR set: the input and output paths (borrowed from argv),
 * --device (NULL: FRICL_DEVICE, else auto), --verbose and --compress
 * (deflate the output members). */
#define CLI_NPZ_ARGS_FIELDS                                                    \
  const char *in_path;                                                         \
  const char *out_path;                                                        \
  const char *device;                                                          \
  int verbose;                                                                 \
  int compress

/* The first four rows of every NPZ command: --out (row 0, also -o),
 * --device, --verbose and --compress. */
#define CLI_NPZ_OPTIONS(Args)                                                  \
  CLI_OPT_OUT(Args), CLI_OPT_DEVICE(Args), CLI_OPT_VERBOSE(Args),              \
      CLI_OPT_COMPRESS(Args)

/* Reads the value of a CLI_CUSTOM row into args. @return 0, or -1 with
 * err set. */
typedef int (*cli_custom_fn)(void *args, const cli_option *o, const char *value,
                             char *err, size_t err_size);

/* After the options: checks that involve several of them (seen[row] is
 * set for each value option given). @return 0, or -1 with err set. */
typedef int (*cli_check_fn)(void *args, const int *seen, char *err,
                            size_t err_size);

/*
 * A command's whole grammar. With `input`, one word that is not an option
 * is the input path (the NPZ commands: row 0 is then "--out", also spelt
 * "-o", and both are required); without, every word must be an option. A
 * value option may be given once, unless `repeat` (the last one wins);
 * CLI_CUSTOM rows always may, their reader decides. Every message ends
 * with `hint`.
 */
typedef struct cli_grammar {
  const cli_option *table;
  int n; /* rows, at most CLI_MAX_OPTIONS */
  const char *hint;
  int input;
  int repeat;
  cli_custom_fn custom;
  const void *defaults; /* the arguments before any option (NULL: as */
  size_t size;          /* the caller left them), of this size */
  size_t in_path;       /* with input: the fields of the input and of */
  size_t out_path;      /* --out (const char *) */
  cli_check_fn check;   /* NULL: none */
} cli_grammar;

#define CLI_MAX_OPTIONS 32

/* The grammar of an NPZ command whose argument struct Args has in_path and
 * out_path; the arguments start as the designated initializers after
 * `check` set them (.psd = FRICL_PSD_NONE, ...), the rest zero. */
#define CLI_NPZ_GRAMMAR(Args, options, hint, check, ...)                       \
  {                                                                            \
    options, (int)(sizeof options / sizeof options[0]), hint, 1, 0, NULL,      \
        &(const Args){__VA_ARGS__}, sizeof(Args), offsetof(Args, in_path),     \
        offsetof(Args, out_path), check                                        \
  }

/* Parse argv[1..argc) with @p g into @p args (its defaults first; then
 * g->check, then the input and --out required). @return 0, or -1 with a
 * one-line message (no trailing newline) in err. */
int cli_parse_args(const cli_grammar *g, int argc, char **argv, void *args,
                   char *err, size_t err_size);

/*
 * A subcommand of a tool: either a main of its own, or a grammar, the
 * --help text (printed when -h or --help is anywhere) and what runs on the
 * parsed arguments. argv[0] is the subcommand's name.
 */
typedef struct cli_command {
  const char *name; /* "build" */
  int (*main)(int argc, char **argv);
  const cli_grammar *grammar;
  void (*help)(FILE *f);
  int (*run)(const void *args);
} cli_command;

/* Run @p c as `tool name ...`: messages start with "tool name: ".
 * @return the exit status. */
int cli_command_main(const cli_command *c, const char *tool, int argc,
                     char **argv);

/* 1 when argv holds -h or --help anywhere after argv[0]. */
int cli_wants_help(int argc, char **argv);

/* --verbose, after the evaluation: the context's device and the backend
 * its last call ran on (with "auto", host or OpenCL per call), on stderr. */
struct fricl_context;
void cli_report_backend(const char *command, const struct fricl_context *ctx);

#endif

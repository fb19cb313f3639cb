/* npz_schema.h - the .npz inputs of the NPZ commands (`fricl tangential`,
 * `fricl build`, `fricl barrier`, fricl-mpi), each declared as a table: one
 * row per array with its name, dtype, shape rule, whether it is required
 * and where its converted copy goes. One reader checks an archive against
 * such a table, so that every command accepts, converts and rejects arrays
 * the same way, with one line naming the array at fault. */
#ifndef FRICL_CLI_NPZ_SCHEMA_H
#define FRICL_CLI_NPZ_SCHEMA_H

#include <stddef.h>
#include <stdio.h>

#include "fricl/fricl.h"
#include "npz.h"

#define NPZ_N_TYPES FRICL_STENCIL_COUNT

typedef enum npz_kind {
  NPZ_POSITIONS, /* (n, dim) real, dim 2 or 3: fixes n and dim (void *) */
  NPZ_REAL,      /* real array of the row's shape (void *, working prec.) */
  NPZ_SCALAR,    /* shape () or (1,), real or integer (double) */
  NPZ_SCALAR_F,  /* the same, real only (double) */
  NPZ_IGNORED,   /* accepted and not read */
  NPZ_REFUSED,   /* named so as to say why it is wrong: `what` */
  NPZ_CUSTOM     /* read by the row's `read` */
} npz_kind;

/* The values every element must have (after the conversion). */
typedef enum npz_values {
  NPZ_ANY,
  NPZ_FINITE,
  NPZ_GE0, /* finite and >= 0 */
  NPZ_GT0  /* finite and > 0 */
} npz_values;

#define NPZ_REQUIRED 0x1u
#define NPZ_SQUEEZE 0x2u /* a last dimension of 1 may be left out */

/* An offset that is nowhere: the array is read, checked and dropped. */
#define NPZ_DROP ((size_t)-1)

/* The stencil types a per-type row applies to. */
#define NPZ_TYPE(t) (1u << (t))
#define NPZ_ALL_TYPES ((1u << NPZ_N_TYPES) - 1u)

typedef struct npz_reader npz_reader;
typedef struct npz_row npz_row;

/* A CUSTOM row's reader, called when the array @p mb is present (an absent
 * one is optional and skipped): @p dst the
 * command's input (a global row) or its struct of the stencil type (a
 * per-type row), @p m the type's contact count.
 * @return 0, 2 (bad input, reported) or 1 (out of memory, reported). */
typedef int (*npz_read_fn)(npz_reader *r, const npz_row *row,
                           const npz_member *mb, void *dst, size_t m);

/* A further check of the converted array @p a (m contacts) of a REAL row.
 * @return 0 or 2 (reported). */
typedef int (*npz_check_fn)(const npz_reader *r, const char *name,
                            const void *a, size_t m);

struct npz_row {
  const char *name; /* a global array, or per type T the name after "T_" */
  npz_kind kind;
  const char *shape; /* REAL: dimensions "m, dim, dim-1" (n, m, dim, dim-1,
                        k, nb: k and nb are printed as their value) */
  unsigned flags;    /* NPZ_REQUIRED, NPZ_SQUEEZE */
  unsigned types;    /* per-type rows: the types it applies to; 0: global */
  size_t offset;     /* where the copy goes in dst, or NPZ_DROP */
  npz_values values;
  const char *what;   /* in messages (may be NULL) */
  npz_read_fn read;   /* CUSTOM */
  npz_check_fn check; /* REAL: after the conversion (may be NULL) */
};

/* One row per line in the tables: the forms the commands share. */
#define NPZ_ROW_REAL(nm, shp, flg, typ, off, vals, text)                       \
  {                                                                            \
    .name = (nm), .kind = NPZ_REAL, .shape = (shp), .flags = (flg),            \
    .types = (typ), .offset = (off), .values = (vals), .what = (text)          \
  }
/* A per-contact array of shape (m,), of every stencil type. */
#define NPZ_ROW_PER_CONTACT(nm, flg, off, vals, text)                          \
  NPZ_ROW_REAL(nm, "m", flg, NPZ_ALL_TYPES, off, vals, text)
#define NPZ_ROW_SCALAR(nm, flg, off, vals, text)                               \
  {                                                                            \
    .name = (nm), .kind = NPZ_SCALAR, .flags = (flg), .offset = (off),         \
    .values = (vals), .what = (text)                                           \
  }
/* The (n, dim) array that fixes n and dim (see npz_reader). */
#define NPZ_ROW_POSITIONS(nm, off)                                             \
  {                                                                            \
    .name = (nm), .kind = NPZ_POSITIONS, .flags = NPZ_REQUIRED,                \
    .offset = (off)                                                            \
  }
#define NPZ_ROW_IGNORED(nm, typ)                                               \
  { .name = (nm), .kind = NPZ_IGNORED, .types = (typ) }
/* The static plane n.x + c = 0 of each pv contact: two rows. */
#define NPZ_ROWS_PV_PLANE(normal_off, offset_off, vals, check_normal)          \
  {.name = "plane_normal",                                                     \
   .kind = NPZ_REAL,                                                           \
   .shape = "m, dim",                                                          \
   .flags = NPZ_REQUIRED,                                                      \
   .types = NPZ_TYPE(FRICL_STENCIL_PV),                                        \
   .offset = (normal_off),                                                     \
   .values = (vals),                                                           \
   .what = "the plane normal n of each pv contact",                            \
   .check = (check_normal)},                                                   \
      NPZ_ROW_REAL("plane_offset", "m", NPZ_REQUIRED,                          \
                   NPZ_TYPE(FRICL_STENCIL_PV), offset_off, vals,               \
                   "the plane offset c: the plane is n.x + c = 0")

/* Where the reader puts, per stencil type, the type's own fields: the
 * command's per-type structs (an array in its input struct). */
typedef struct npz_types {
  size_t offset, size; /* of the array in the input, of one struct */
  size_t present, type, tname, m, k, nb, ids;
} npz_types;

#define NPZ_TYPES(Input, array, Type)                                          \
  {                                                                            \
    offsetof(Input, array), sizeof(Type), offsetof(Type, present),             \
        offsetof(Type, type), offsetof(Type, tname), offsetof(Type, m),        \
        offsetof(Type, k), offsetof(Type, nb), offsetof(Type, ids)             \
  }

typedef struct npz_schema {
  const npz_row *globals; /* read in this order... */
  size_t n_globals;
  const npz_row *fields; /* ...then per present type, in this order */
  size_t n_fields;
  npz_types types;
  /* Called after a present type's rows (may be NULL). */
  int (*type_done)(npz_reader *r, void *input, void *type_struct);
  /* The command, in the message of an unknown array: "the <command>
   * schema has <its arrays, from the tables>; see 'fricl <command> --help'". */
  const char *command;
} npz_schema;

/* A schema of the tables `globals` and `fields`, per-type structs Type in
 * Input's array `array`. */
#define NPZ_SCHEMA(globals, fields, Input, array, Type, type_done, command)    \
  {                                                                            \
    (globals), sizeof(globals) / sizeof(globals)[0], (fields),                 \
        sizeof(fields) / sizeof(fields)[0], NPZ_TYPES(Input, array, Type),     \
        (type_done), (command)                                                 \
  }

struct npz_reader {
  const char *cmd;  /* the prefix of messages: "fricl build" */
  const char *path; /* the archive, in messages */
  FILE *err;        /* where messages go; NULL: stderr */
  fricl_precision precision;
  const npz_archive *in;
  /* Set by the NPZ_POSITIONS row (or by the caller before, when another
   * schema has read them): */
  const char *positions; /* its name */
  size_t n;
  int dim;
};

/* Read the archive `path` into *in (the caller frees it), or print
 * "cmd: path: why" to err (NULL: stderr). @return 0, or the exit status. */
int npz_load(const char *cmd, const char *path, FILE *err, npz_archive *in);

/* npz_load for a command whose output @p out must not be its input @p in
 * (cli_refuse_same_file, to stderr). @return 0 or the exit status. */
int npz_load_input(const char *cmd, const char *in, const char *out,
                   npz_archive *archive);

/* Check the names of r->in against @p s (names in the NULL-terminated
 * @p extra, which may be NULL, are accepted too), then read the global
 * rows and every present type into @p input.
 * @return 0, 2 (bad input) or 1 (out of memory), the message written. */
int npz_schema_read(npz_reader *r, const npz_schema *s, void *input,
                    const char *const *extra);

/* The steps of npz_schema_read, for a command that reads two schemas. */
int npz_schema_check_names(npz_reader *r, const npz_schema *s,
                           const char *const *extra);
int npz_schema_read_globals(npz_reader *r, const npz_schema *s, void *input);

/* One line "cmd: path: ..." to r->err. @return 2. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
int npz_bad_input(const npz_reader *r, const char *fmt, ...);

/* "array 'name': dtype 'd' is not <what>" of @p a. @return 2. */
int npz_bad_dtype(const npz_reader *r, const char *name, const npy_array *a,
                  const char *what);

/* "array 'name': expected <want>, got <the shape of a>", <want> formatted
 * from @p fmt. @return 2. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 4, 5)))
#endif
int npz_bad_shape(const npz_reader *r, const char *name, const npy_array *a,
                  const char *fmt, ...);

/* "cmd: out of memory (what)". @return 1. */
int npz_out_of_memory(const npz_reader *r, const char *what);

/* The scalar @p mb (shape () or (1,); an integer only with @p ints).
 * @return 0 or 2 (reported). */
int npz_read_scalar(npz_reader *r, const npz_member *mb, int ints,
                    double *value);

#endif

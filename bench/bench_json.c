/* bench_json.c - see bench_json.h. */
#include "bench_json.h"

#include <math.h>

void bench_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

void bench_json_num(FILE *f, double v) {
  if (v < 0.0 || !isfinite(v))
    fputs("null", f);
  else
    fprintf(f, "%.17g", v);
}

void bench_json_stats(FILE *f, const char *key, const bench_stats *s,
                      int have) {
  fprintf(f, "\"%s\": ", key);
  if (!have) {
    fputs("null", f);
    return;
  }
  fputs("{\"median\": ", f);
  bench_json_num(f, s->median);
  fputs(", \"min\": ", f);
  bench_json_num(f, s->min);
  fputs(", \"max\": ", f);
  bench_json_num(f, s->max);
  fputs(", \"first_run\": ", f);
  bench_json_num(f, s->first);
  fprintf(f, ", \"launches\": %d, \"samples\": %d}", s->launches, s->samples);
}

const char *bench_backend_label(fricl_backend b) {
  const char *s = fricl_backend_name(b);
  return s ? s : "?";
}

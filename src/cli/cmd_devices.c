/* cmd_devices.c - `fricl devices`: the OpenCL devices fricl can use, the
 * always-available reference backend, and which one `auto` picks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
#include "devices_shares.h"
#include "fricl/fricl.h"

static void print_help(FILE *f) {
  fputs(
      "Usage: fricl devices [--device LIST]\n"
      "\n"
      "List the devices fricl can evaluate on, one per line:\n"
      "  SPEC       the value for --device or FRICL_DEVICE:\n"
      "             opencl:<platform>:<device> (indices as enumerated by the\n"
      "             OpenCL runtime), host or reference\n"
      "  TYPE       GPU, CPU, other (an OpenCL accelerator or custom device),\n"
      "             or host for the built-in C backends\n"
      "  FP64       whether --precision f64 can run on it\n"
      "  UNITS      compute units (threads for host; reference is one)\n"
      "  MAX ALLOC  largest single OpenCL buffer\n"
      "  DRIVER     driver version\n"
      "  DEVICE     device name (platform name)\n"
      "The device auto opens for large calls (the first GPU, else the first\n"
      "CPU device) is marked with '*'; auto runs small calls, and every call\n"
      "when its device is a CPU or there is none, on the host backend\n"
      "(portable C on every core, always available, like reference: one\n"
      "thread, the simplest loops). The last line says what auto does here.\n"
      "Several devices make one context with a comma-separated list of\n"
      "OpenCL specs (opencl:0:0,opencl:0:1) or all-gpu (every GPU); with\n"
      "--device LIST (or FRICL_DEVICE set to a list), a short calibration\n"
      "shows each device alone, the list's combined throughput and the\n"
      "share of the work each device takes.\n"
      "\n"
      "Options:\n"
      "  --device LIST  also calibrate this device list (see above).\n"
      "  -h, --help     show this help and exit.\n"
      "\n"
      "Exit status: 0 (also when no OpenCL device exists); 2 on a usage\n"
      "error; 1 when the device list cannot be obtained.\n",
      f);
}

/* "15.6 GiB": binary units, one decimal. */
static void format_bytes(char *buf, size_t size, uint64_t bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = (double)bytes;
  size_t u = 0;
  while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
    v /= 1024.0;
    ++u;
  }
  if (u == 0)
    snprintf(buf, size, "%llu B", (unsigned long long)bytes);
  else
    snprintf(buf, size, "%.1f %s", v, units[u]);
}

static const char *type_name(const fricl_device_info *d) {
  return d->is_gpu ? "GPU" : d->is_cpu ? "CPU" : "other";
}

static int list_devices(fricl_device_info **infos, size_t *count) {
  *infos = NULL;
  *count = 0;
  size_t total = 0;
  if (fricl_devices_list(NULL, 0, &total) != FRICL_STATUS_OK)
    return -1;
  if (total == 0)
    return 0;
  fricl_device_info *list = calloc(total, sizeof *list);
  if (!list)
    return -1;
  size_t again = 0;
  if (fricl_devices_list(list, total, &again) != FRICL_STATUS_OK) {
    free(list);
    return -1;
  }
  /* A device may have disappeared between the two calls. */
  *count = again < total ? again : total;
  *infos = list;
  return 0;
}

static void print_table(const fricl_device_info *infos, size_t count) {
  int driver_w = (int)strlen("DRIVER");
  for (size_t i = 0; i < count; ++i) {
    const int w = (int)strlen(infos[i].driver_version);
    if (w > driver_w)
      driver_w = w;
  }
  printf("%-16s %-5s %-4s %5s  %-10s  %-*s  %s\n", "SPEC", "TYPE", "FP64",
         "UNITS", "MAX ALLOC", driver_w, "DRIVER", "DEVICE");
  for (size_t i = 0; i < count; ++i) {
    const fricl_device_info *d = &infos[i];
    char spec[40], alloc[32];
    snprintf(spec, sizeof spec, "opencl:%d:%d%s", d->platform_index,
             d->device_index, d->is_default ? " *" : "");
    format_bytes(alloc, sizeof alloc, d->max_alloc_bytes);
    printf("%-16s %-5s %-4s %5u  %-10s  %-*s  %s (%s)\n", spec, type_name(d),
           d->has_fp64 ? "yes" : "no", d->compute_units, alloc, driver_w,
           d->driver_version, d->device_name, d->platform_name);
  }
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = "host";
  fricl_context *host = NULL;
  if (fricl_context_create(&host, &p) == FRICL_STATUS_OK) {
    printf("%-16s %-5s %-4s %5u  %-10s  %-*s  %s\n", "host", "host", "yes",
           fricl_context_threads(host), "-", driver_w, "-",
           "host backend: portable C on every core, always available");
    fricl_context_destroy(host);
  }
  printf("%-16s %-5s %-4s %5u  %-10s  %-*s  %s\n", "reference", "host", "yes",
         1u, "-", driver_w, "-",
         "reference backend: portable C, one thread, always available");
}

static void print_default(const fricl_device_info *infos, size_t count) {
  const fricl_device_info *def = NULL;
  for (size_t i = 0; i < count && !def; ++i)
    if (infos[i].is_default)
      def = &infos[i];
  printf("\n");
  if (def && def->is_gpu)
    printf("* auto: small calls on host, large ones on opencl:%d:%d (%s)\n",
           def->platform_index, def->device_index, def->device_name);
  else if (def)
    printf("* auto: every call on host (faster than the OpenCL CPU device "
           "opencl:%d:%d on the same cores; FRICL_AUTO_CROSSOVER=n sends "
           "calls of n items or more to it)\n",
           def->platform_index, def->device_index);
  else
    printf("No OpenCL device found: auto runs every call on host.\n");
  if (count >= 2)
    printf("Several devices in one context: --device "
           "opencl:%d:%d,opencl:%d:%d (a list) or all-gpu; `fricl devices "
           "--device LIST` shows the shares.\n",
           infos[0].platform_index, infos[0].device_index,
           infos[1].platform_index, infos[1].device_index);
  const char *env = getenv("FRICL_DEVICE");
  if (env && *env && strcmp(env, "auto") != 0)
    printf("FRICL_DEVICE=%s: commands without --device use that, not "
           "auto.\n",
           env);
}

static int devices_main(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    print_help(stdout);
    return 0;
  }
  const char *list = NULL;
  if (argc == 3 && strcmp(argv[1], "--device") == 0)
    list = argv[2];
  else if (argc == 2 && strncmp(argv[1], "--device=", 9) == 0)
    list = argv[1] + 9;
  else if (argc > 1) {
    fprintf(stderr,
            "fricl devices: unexpected argument '%s' (see 'fricl devices "
            "--help')\n",
            argv[1]);
    return 2;
  }
  const char *env = getenv("FRICL_DEVICE");
  if (!list && env && (strchr(env, ',') || strcmp(env, "all-gpu") == 0))
    list = env;
  fricl_device_info *infos = NULL;
  size_t count = 0;
  if (list_devices(&infos, &count) != 0) {
    fprintf(stderr, "fricl devices: cannot list the OpenCL devices: out of "
                    "memory\n");
    return 1;
  }
  print_table(infos, count);
  print_default(infos, count);
  free(infos);
  if (list && devices_shares_print(list) != 0)
    return 1;
  return fflush(stdout) == 0 ? 0 : 1;
}

const cli_command cmd_devices = {"devices", devices_main, NULL, NULL, NULL};

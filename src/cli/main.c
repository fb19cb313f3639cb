/* main.c - the `fricl` command-line tool: dispatch to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "bench_exec.h"
#include "commands.h"
#include "fricl/fricl.h"

static void print_usage(FILE *f) {
  fputs(
      "Usage: fricl <command> [options]\n"
      "\n"
      "Commands:\n"
      "  devices   list the OpenCL devices and the reference backend, and\n"
      "            which one --device auto picks\n"
      "  eval      evaluate friction terms on a 1-D NPY array of y\n"
      "  tangential  friction potential, gradient and Hessian of a contact\n"
      "            set read from an .npz archive\n"
      "  build     the lagged friction data of a contact set (closest\n"
      "            points, tangent bases, normal forces, mu) from geometry\n"
      "            in an .npz archive\n"
      "  law       evaluate or step a friction law (fricl law --list)\n"
      "  barrier   normal-contact barrier potential, gradient and Hessian\n"
      "            of a contact set read from an .npz archive\n"
      "  bench     run the benchmark harness\n"
      "  version   print the library version\n"
      "\n"
      "Options:\n"
      "  -h, --help     show this help and exit\n"
      "  --version      print the library version and exit\n"
      "\n"
      "'fricl <command> --help' describes a command's options.\n"
      "Exit status: 0 success, 1 runtime error, 2 usage error or bad input.\n",
      f);
}

static const cli_command bench = {"bench", fricl_bench_main, NULL, NULL, NULL};

/* The subcommands, by name. */
static const cli_command *const commands[] = {
    &bench,   &cmd_eval,    &cmd_tangential, &cmd_build,
    &cmd_law, &cmd_barrier, &cmd_devices};

int main(int argc, char **argv) {
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
    if (strcmp(cmd, commands[i]->name) == 0)
      return cli_command_main(commands[i], "fricl", argc - 1, argv + 1);
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
      strcmp(cmd, "help") == 0) {
    print_usage(stdout);
    return 0;
  }
  if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
    printf("fricl %s\n", fricl_version_string());
    return 0;
  }
  fprintf(stderr, "fricl: unknown command '%s' (see 'fricl --help')\n", cmd);
  return 2;
}

/* commands.h - the subcommands of the `fricl` tool. Each takes argv with
 * argv[0] set to the subcommand's name and returns the exit status. */
#ifndef FRICL_CLI_COMMANDS_H
#define FRICL_CLI_COMMANDS_H

int cmd_devices_main(int argc, char **argv);
int cmd_eval_main(int argc, char **argv);
int cmd_tangential_main(int argc, char **argv);
int cmd_build_main(int argc, char **argv);
int cmd_law_main(int argc, char **argv);
int cmd_barrier_main(int argc, char **argv);

#endif

/* commands.h - the subcommands of the `fricl` tool (cli_command: argv[0]
 * is the subcommand's name, the result the exit status). */
#ifndef FRICL_CLI_COMMANDS_H
#define FRICL_CLI_COMMANDS_H

#include "cli_args.h"

extern const cli_command cmd_devices, cmd_eval, cmd_tangential, cmd_build,
    cmd_law, cmd_barrier;

#endif

/* devices_shares.h - `fricl devices --device LIST`: the devices of a list,
 * the share of the work each takes, and their combined throughput on a
 * short calibration (the scalar family). */
#ifndef FRICL_CLI_DEVICES_SHARES_H
#define FRICL_CLI_DEVICES_SHARES_H

/* Print the list's devices and shares to stdout; 0, or 1 when the list
 * cannot be opened (message on stderr). */
int devices_shares_print(const char *list);

#endif

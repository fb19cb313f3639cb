/* same_file.h - do two paths name the same file? For commands that must
 * not write an output over another output or over one of their inputs. */
#ifndef FRICL_CLI_SAME_FILE_H
#define FRICL_CLI_SAME_FILE_H

/*
 * 1 when @p a and @p b name the same file: equal strings; or, when both
 * exist, the same device and inode (so "./s.npy", "dir/../s.npy", a hard
 * link and a symbolic link to it all match, as atomic_file follows links);
 * or, when one does not exist yet, the same name in the same directory.
 * 0 otherwise.
 */
int cli_same_file(const char *a, const char *b);

/*
 * For a command with one input and one output file: when @p out names the
 * same file as @p in (cli_same_file), print "CMD: the output OUT is the
 * input IN (the same file); ..." to stderr and return 1, else 0. To be
 * called before anything is written: the output is replaced atomically
 * after the input was read, so the input would be lost without an error.
 */
int cli_refuse_same_file(const char *cmd, const char *in, const char *out);

#endif

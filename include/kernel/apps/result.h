/*
 * RESULT lines (docs/interfaces.md): one per finished benchmark,
 *   RESULT bench=<name> board=<board> pack=<mode> [engine=<engine>] <key>=<value> ...
 * result_board is the board (the build's BOARD_NAME; the simulator: the
 * DTB's file name), result_engine NULL on the real kernel ("sim" in the
 * simulator). result_begin() writes the common head into @buf.
 */
#ifndef KERNEL_RESULT_H
#define KERNEL_RESULT_H

#include <stddef.h>

extern const char *result_board;
extern const char *result_engine;

/* "RESULT bench=@bench board=.. pack=.. [engine=..] "; returns the length like snprintf. */
int result_begin(char *buf, size_t size, const char *bench);

#endif

/* The common head of every RESULT line; see include/kernel/apps/result.h. */
#include "kernel/apps/result.h"

#include "kernel/lib/format.h"
#include "kernel/pack/pack.h"

#ifndef BOARD_NAME
#define BOARD_NAME "host"
#endif

const char *result_board = BOARD_NAME;
const char *result_engine;

int result_begin(char *buf, size_t size, const char *bench)
{
	return ksnprintf(buf, size, "RESULT bench=%s board=%s pack=%s %s%s%s", bench, result_board,
			 pack_policy_current()->name, result_engine ? "engine=" : "",
			 result_engine ? result_engine : "", result_engine ? " " : "");
}

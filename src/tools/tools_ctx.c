/* src/tools/tools_ctx.c -- the one instance of the tools library's state. */
#include "tools_ctx.h"

struct gexti_tools_context gexti_tools = {
  .lock = PTHREAD_MUTEX_INITIALIZER,
  .verboseenv = -1,
  .print_backtrace_ifenabled = gexti_print_backtrace_if_requested,
};

int (**gexti_print_backtrace_ifenabled_slot(void))(int) {
  return &gexti_tools.print_backtrace_ifenabled;
}

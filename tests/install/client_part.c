/* tests/install/client_part.c -- a second translation unit that includes
 * gasnetex.h, linked with client.c into client2-*: the program must still
 * carry one conduit name (launchers list every match). */
#include <gasnetex.h>

int gexi_test_client_part(void) { return (int)GASNET_CORE_VERSION; }

/* proxy.h -- gexrun --proxy: the ranks of a job on another host (proxy.c). */
#ifndef GEXRUN_PROXY_H
#define GEXRUN_PROXY_H
/* Run the proxy on stdin/stdout; returns the process's exit status. */
int gx_proxy_main(void);
#endif

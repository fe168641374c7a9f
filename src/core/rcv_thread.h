/* core/rcv_thread.h -- the receive thread (GASNET_RCV_THREAD=1;
 * core/rcv_thread.c): progress while the program's threads are away from
 * the library. */
#ifndef GEXI_CORE_RCV_THREAD_H
#define GEXI_CORE_RCV_THREAD_H

#include <gasnetex.h>

/* At the end of gex_Client_Init: where it was asked for and something can
 * arrive (a network transport runs, or neighbours share memory), start the
 * thread, or ('defer', GEX_FLAG_DEFER_THREADS) describe it for
 * gex_System_QueryProgressThreads, whose caller starts it. */
void gexi_rcv_thread_setup(int defer);
/* The threads the client must start (0 or 1) and their description. */
unsigned gexi_rcv_thread_deferred(const gex_ProgressThreadInfo_t **info);
/* The process ends (gexi_end_process): the thread stops polling, and is
 * joined unless it is the caller or takes longer than wait_ms. */
void gexi_rcv_thread_stop(int wait_ms);

#endif

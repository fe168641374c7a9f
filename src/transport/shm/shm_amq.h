/* transport/shm/shm_amq.h -- bounded multi-producer multi-consumer queue of
 * AM slots in shared memory (one request and one reply queue per process).
 *
 * Each slot carries a sequence number: for slot i on lap k, seq == pos
 * means free for the producer that claimed position pos; seq == pos + 1
 * means filled and ready for the consumer of position pos; after consuming,
 * the consumer sets seq = pos + capacity, freeing it for the next lap.
 * Producers claim positions by CAS on 'tail', consumers by CAS on 'head'.
 * Ordering: the producer's release store of seq publishes the header and
 * payload (and a Long's data already written to the segment); the consumer's
 * acquire load of seq makes them visible before the handler runs.
 */
#ifndef GEXI_SHM_AMQ_H
#define GEXI_SHM_AMQ_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "transport/am_wire.h"

#define GEXI_AMQ_SLOT_HEADER 128
struct gexi_amq_slot {
  _Atomic uint64_t seq;
  uint64_t pad;
  struct gexi_am_hdr hdr;
  alignas(64) unsigned char payload[GEXI_AM_MAX_MEDIUM];
};
_Static_assert(offsetof(struct gexi_amq_slot, payload) == GEXI_AMQ_SLOT_HEADER,
               "slot header must fit in 128 bytes");

struct gexi_amq {
  alignas(64) _Atomic uint64_t tail; /* next position a producer claims */
  alignas(64) _Atomic uint64_t head; /* next position a consumer claims */
  alignas(64) uint64_t capacity;     /* power of two */
  alignas(64) struct gexi_amq_slot slots[];
};

static inline size_t gexi_amq_bytes(uint64_t capacity) {
  return sizeof(struct gexi_amq) + capacity * sizeof(struct gexi_amq_slot);
}

static inline void gexi_amq_init(struct gexi_amq *q, uint64_t capacity) {
  q->capacity = capacity;
  for (uint64_t i = 0; i < capacity; i++) atomic_init(&q->slots[i].seq, i);
  atomic_init(&q->tail, 0);
  atomic_init(&q->head, 0);
}

/* Claim a free slot; NULL when the queue is full. */
static inline struct gexi_amq_slot *gexi_amq_reserve(struct gexi_amq *q, uint64_t *pos_out) {
  uint64_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
  const uint64_t mask = q->capacity - 1;
  for (;;) {
    struct gexi_amq_slot *s = &q->slots[pos & mask];
    uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
    int64_t dif = (int64_t)(seq - pos);
    if (dif == 0) {
      if (atomic_compare_exchange_weak_explicit(&q->tail, &pos, pos + 1, memory_order_relaxed,
                                                memory_order_relaxed)) {
        *pos_out = pos;
        return s;
      }
    } else if (dif < 0) {
      return NULL;
    } else {
      pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    }
  }
}

static inline void gexi_amq_publish(struct gexi_amq_slot *s, uint64_t pos) {
  atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
}

/* Claim the oldest filled slot; NULL when none is ready. */
static inline struct gexi_amq_slot *gexi_amq_take(struct gexi_amq *q, uint64_t *pos_out) {
  uint64_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
  const uint64_t mask = q->capacity - 1;
  for (;;) {
    struct gexi_amq_slot *s = &q->slots[pos & mask];
    uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
    int64_t dif = (int64_t)(seq - (pos + 1));
    if (dif == 0) {
      if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1, memory_order_relaxed,
                                                memory_order_relaxed)) {
        *pos_out = pos;
        return s;
      }
    } else if (dif < 0) {
      return NULL;
    } else {
      pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    }
  }
}

/* Whether the oldest slot may be filled: a cheap look before the call to
 * take (which decides, with acquire order). */
static inline int gexi_amq_maybe_ready(struct gexi_amq *q) {
  uint64_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
  uint64_t seq = atomic_load_explicit(&q->slots[pos & (q->capacity - 1)].seq, memory_order_relaxed);
  return (int64_t)(seq - (pos + 1)) >= 0;
}

/* Give a consumed slot back to producers (after the handler returned). */
static inline void gexi_amq_release(struct gexi_amq *q, struct gexi_amq_slot *s, uint64_t pos) {
  atomic_store_explicit(&s->seq, pos + q->capacity, memory_order_release);
}

#endif

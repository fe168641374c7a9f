/* transport/shm/shm_region.c -- creating and mapping anonymous shared memory,
 * and the node's control regions. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "transport/shm/shm.h"

#define GEXI_SHM_MAGIC 0x6c69626765780001ull

int gexi_shm_create(const char *what, size_t bytes, void **addr) {
  int fd = memfd_create(what, MFD_CLOEXEC);
  if (fd < 0) gexi_fatal("memfd_create(%s): %s", what, strerror(errno));
  if (ftruncate(fd, (off_t)bytes) != 0)
    gexi_fatal("cannot size shared memory %s to %zu bytes: %s", what, bytes, strerror(errno));
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    gexi_fatal("cannot map %zu bytes of shared memory (%s): %s", bytes, what, strerror(errno));
  *addr = p;
  return fd;
}

int gexi_shm_try_create(const char *what, size_t bytes, void **addr) {
  int fd = memfd_create(what, MFD_CLOEXEC);
  if (fd < 0) return -1;
  void *p = MAP_FAILED;
  if (ftruncate(fd, (off_t)bytes) == 0)
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  *addr = p;
  return fd;
}

void *gexi_shm_map_peer(const char *what, int32_t pid, int32_t fd, size_t bytes) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, (int)fd);
  int lfd = open(path, O_RDWR | O_CLOEXEC);
  if (lfd < 0) gexi_fatal("cannot open %s of process %d (%s): %s", what, (int)pid, path, strerror(errno));
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, lfd, 0);
  close(lfd);
  if (p == MAP_FAILED)
    gexi_fatal("cannot map %s of process %d (%zu bytes): %s", what, (int)pid, bytes, strerror(errno));
  return p;
}

static size_t round_page(size_t n) { return (n + 4095) & ~(size_t)4095; }

void gexi_shm_create_ctrl(struct gexi_proc_info *info) {
  size_t req_off = round_page(sizeof(struct gexi_shm_ctrl));
  size_t rep_off = req_off + round_page(gexi_amq_bytes(GEXI_SHM_REQ_SLOTS));
  size_t bytes = rep_off + round_page(gexi_amq_bytes(GEXI_SHM_REP_SLOTS));
  void *base;
  int fd = gexi_shm_create("gex-ctrl", bytes, &base);
  struct gexi_shm_ctrl *c = base;
  c->magic = GEXI_SHM_MAGIC;
  c->req_off = req_off;
  c->rep_off = rep_off;
  for (int i = 0; i < GEXI_SHM_TEAM_SLOTS; i++) atomic_init(&c->team_bar[i].arrivals, 0);
  gexi_amq_init((struct gexi_amq *)((char *)base + req_off), GEXI_SHM_REQ_SLOTS);
  gexi_amq_init((struct gexi_amq *)((char *)base + rep_off), GEXI_SHM_REP_SLOTS);

  struct gexi_shm_node *n = calloc(1, sizeof *n);
  if (!n) gexi_fatal("out of memory");
  n->ctrl_fd = fd;
  n->ctrl_bytes = bytes;
  gexi_ctx.shm = n;
  /* Remember our own mapping until map_node fills the table. */
  n->ctrl = (struct gexi_shm_ctrl **)base;
  info->pid = (int32_t)getpid();
  info->ctrl_fd = fd;
  info->ctrl_bytes = bytes;
}

void gexi_shm_map_node(const struct gexi_proc_info *all) {
  struct gexi_shm_node *n = gexi_ctx.shm;
  struct gexi_shm_ctrl *mine = (struct gexi_shm_ctrl *)n->ctrl;
  n->nlocal = gexi_ctx.nbrhd_size;
  n->me = gexi_ctx.nbrhd_index;
  n->ctrl = calloc(n->nlocal, sizeof *n->ctrl);
  n->req = calloc(n->nlocal, sizeof *n->req);
  n->rep = calloc(n->nlocal, sizeof *n->rep);
  n->pid = calloc(n->nlocal, sizeof *n->pid);
  if (!n->ctrl || !n->req || !n->rep || !n->pid) gexi_fatal("out of memory");
  for (gex_Rank_t i = 0; i < n->nlocal; i++) {
    gex_Rank_t j = gexi_ctx.nbrhd_jobranks[i];
    struct gexi_shm_ctrl *c =
        (i == n->me) ? mine
                     : gexi_shm_map_peer("AM queues", all[j].pid, all[j].ctrl_fd, all[j].ctrl_bytes);
    if (c->magic != GEXI_SHM_MAGIC) gexi_fatal("corrupt control region of rank %u", (unsigned)j);
    n->ctrl[i] = c;
    n->req[i] = (struct gexi_amq *)((char *)c + c->req_off);
    n->rep[i] = (struct gexi_amq *)((char *)c + c->rep_off);
    n->pid[i] = all[j].pid;
  }
  n->my_req = n->req[n->me];
  n->my_rep = n->rep[n->me];
}

void gexi_shm_init_done(void) {
  struct gexi_shm_node *n = gexi_ctx.shm;
  if (n->ctrl_fd >= 0) close(n->ctrl_fd);
  n->ctrl_fd = -1;
}

/* job_output.c -- gexrun: the ranks' output, assembled into whole lines and
 * written to gexrun's own stdout/stderr (with --label, and for every rank on
 * another host, whose bytes the proxy relays). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"

/* ---- output of the ranks (--label, and all remote ranks) ---- */

static void emit(int r, int stream, const char *p, size_t n, int add_nl) {
  char pre[32] = "";
  size_t pl = job.label ? (size_t)snprintf(pre, sizeof pre, "[%d] ", r) : 0;
  size_t lines = 1;
  for (size_t i = 0; i < n; i++) lines += p[i] == '\n';
  char *out = gx_xmalloc(n + lines * pl + 1);
  size_t o = 0, start = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && p[i] != '\n') continue;
    if (i == n && start == n) break;
    memcpy(out + o, pre, pl);
    o += pl;
    size_t l = i - start + (i < n);
    memcpy(out + o, p + start, l);
    o += l;
    start = i + 1;
  }
  if (add_nl && (o == 0 || out[o - 1] != '\n')) out[o++] = '\n';
  gx_write_all(stream + 1, out, o);
  free(out);
}

/* Bytes from rank r's stdout (stream 0) or stderr (1): write out whole lines. */
void out_bytes(int r, int stream, const char *p, size_t n) {
  struct linebuf *b = &job.ranks[r].lb[stream];
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) cap *= 2;
    char *nb = realloc(b->buf, cap);
    if (!nb) gx_xmalloc(SIZE_MAX); /* ends the process */
    b->buf = nb;
    b->cap = cap;
  }
  memcpy(b->buf + b->len, p, n);
  b->len += n;
  size_t end = b->len;
  while (end > 0 && b->buf[end - 1] != '\n') end--;
  if (end == 0 && b->len >= LINE_MAX_BYTES) end = b->len; /* split a huge line */
  if (!end) return;
  emit(r, stream, b->buf, end, job.label);
  memmove(b->buf, b->buf + end, b->len - end);
  b->len -= end;
}

void out_flush(int r) {
  for (int s = 0; s < 2; s++) {
    struct linebuf *b = &job.ranks[r].lb[s];
    if (b->len) emit(r, s, b->buf, b->len, job.label);
    b->len = 0;
  }
}

/* Read a local rank's output pipe; at EOF close it. */
void read_out(int r, int s) {
  struct rank *k = &job.ranks[r];
  char buf[65536];
  while (k->out_fd[s] >= 0) {
    ssize_t n = read(k->out_fd[s], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      close(k->out_fd[s]);
      k->out_fd[s] = -1;
      return;
    }
    out_bytes(r, s, buf, (size_t)n);
  }
}

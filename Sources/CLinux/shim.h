// Linux APIs that Glibc's Swift module leaves out: epoll, eventfd, timerfd, accept4,
// mallinfo2 (heap in use, for the benchmarks' memory figures).
// No _GNU_SOURCE here: it changes struct layouts (fd_set) and then clashes with the
// same headers imported through other modules; accept4 is declared by hand instead.
#ifndef TANDEM_CLINUX_SHIM_H
#define TANDEM_CLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <malloc.h>

extern int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);

static inline int shim_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}
#endif

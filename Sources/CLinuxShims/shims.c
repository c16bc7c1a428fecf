#define _GNU_SOURCE
#include "CLinuxShims.h"
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int jb_bytes_readable(int fd) {
    int n = 0;
    if (ioctl(fd, FIONREAD, &n) < 0) return -1;
    return n;
}

int jb_set_pipe_size(int fd, int bytes) { return fcntl(fd, F_SETPIPE_SZ, bytes); }

int jb_set_nonblocking(int fd, int on) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    flags = on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
    return fcntl(fd, F_SETFL, flags);
}

void jb_set_thread_name(const char *name) {
    char buf[16];
    int i = 0;
    for (; i < 15 && name[i]; i++) buf[i] = name[i];
    buf[i] = 0;
    pthread_setname_np(pthread_self(), buf);
}

int jb_set_realtime_priority(int priority) {
    struct sched_param p = {.sched_priority = priority};
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
}

int jb_thread_id(void) { return (int)syscall(SYS_gettid); }

int jb_open(const char *path, int flags, unsigned int mode) { return open(path, flags, (mode_t)mode); }

int jb_o_direct_flag(void) { return O_DIRECT; }

int jb_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

#include <sys/eventfd.h>
int jb_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

#include <signal.h>
#include <sys/signalfd.h>
int jb_termination_signalfd(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    signal(SIGPIPE, SIG_IGN);
    return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int jb_read_signal(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    if (n != (ssize_t)sizeof info) return -1;
    return (int)info.ssi_signo;
}

int jb_set_malloc_arena_max(int n) { return mallopt(M_ARENA_MAX, n); }

int jb_set_malloc_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int jb_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *deadline, void *guarded) {
    (void)guarded;
    return deadline ? pthread_cond_timedwait(cond, mutex, deadline) : pthread_cond_wait(cond, mutex);
}

#define _GNU_SOURCE
#include "CLinuxShims.h"
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <unistd.h>

int jb_bytes_readable(int fd) {
    int n = 0;
    if (ioctl(fd, FIONREAD, &n) < 0) return -1;
    return n;
}

int jb_clock_synchronized(void) {
    struct timex t;
    memset(&t, 0, sizeof t);
    int state = adjtimex(&t);
    if (state < 0) return -1;
    return state != TIME_ERROR && !(t.status & STA_UNSYNC);
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

int jb_malloc_trim(void) { return malloc_trim(0); }

int jb_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *deadline, void *guarded) {
    (void)guarded;
    return deadline ? pthread_cond_timedwait(cond, mutex, deadline) : pthread_cond_wait(cond, mutex);
}

/* The crash signals: a trap (Swift's runtime checks: SIGILL, SIGTRAP), a bad access, abort()
   (glibc's heap checks, systemd's watchdog). */
static const int jb_crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
enum { JB_CRASH_SIGNALS = sizeof jb_crash_signals / sizeof jb_crash_signals[0] };
static struct sigaction jb_crash_previous[JB_CRASH_SIGNALS];
static volatile uint8_t *jb_crash_flag;
static uint8_t jb_crash_value;

/* Marks the flag (one store: async-signal-safe), puts back the handler that was there before
   (the Swift runtime's backtracer, or the default) and raises the signal again for it: it is
   delivered as this handler returns. */
static void jb_crash_handler(int signal_number) {
    if (jb_crash_flag) *jb_crash_flag = jb_crash_value;
    for (int i = 0; i < JB_CRASH_SIGNALS; i++) {
        if (jb_crash_signals[i] == signal_number) sigaction(signal_number, &jb_crash_previous[i], NULL);
    }
    raise(signal_number);
}

int jb_mark_on_crash(volatile uint8_t *flag, uint8_t value) {
    jb_crash_flag = flag;
    jb_crash_value = value;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = jb_crash_handler;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < JB_CRASH_SIGNALS; i++) {
        if (sigaction(jb_crash_signals[i], &action, &jb_crash_previous[i]) != 0) return -1;
    }
    return 0;
}

#ifndef JUKEBOX_CLINUXSHIMS_H
#define JUKEBOX_CLINUXSHIMS_H
/* Calls Swift cannot import directly: variadic ioctl/fcntl and GNU-only functions. */
#include <stdint.h>
#include <pthread.h>
#include <time.h>

/* The commit and date the binary was built from ("7af7f62c1a2b 2026-12-07"), or "" in a
   development build (build_info.c). */
#define JB_BUILD_COMMIT_SIZE 64
const char *jb_build_commit(void);
/* Bytes waiting to be read on fd (FIONREAD), or -1 with errno set. */
int jb_bytes_readable(int fd);
/* Sets a pipe's capacity (F_SETPIPE_SZ); returns the new size or -1 with errno set. */
int jb_set_pipe_size(int fd, int bytes);
/* fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); 0 or -1 with errno set. */
int jb_set_nonblocking(int fd, int on);
/* Whether the kernel's clock is synchronised (adjtimex, read only: NTP has set it): 1 or 0,
   or -1 with errno set. Glibc's Swift module hides sys/timex.h. */
int jb_clock_synchronized(void);
/* Names the calling thread (at most 15 characters are kept). */
void jb_set_thread_name(const char *name);
/* Asks for SCHED_FIFO at the given priority for the calling thread; 0 or an errno value. */
int jb_set_realtime_priority(int priority);
/* Returns the calling thread's kernel id (gettid). */
int jb_thread_id(void);
/* eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), or -1 with errno set. */
int jb_eventfd(void);
/* Whether a connected socket's peer is on this machine: 1 for a Unix socket or a loopback
   address (127.0.0.0/8, ::1, ::ffff:127.x), 0 for any other, -1 with errno set (process.c). */
int jb_peer_is_local(int fd);
/* Replaces the process image with /proc/self/exe run with `arguments` (NULL-terminated), the
   descriptors from 3 up closed on the way (0-2 and the signal mask are kept); returns -1 with
   errno set only when it could not (process.c). */
int jb_execute_self_again(char *const arguments[]);
/* Closes every descriptor from 3 up: close_range(2) where the kernel has it (5.11), else each
   entry of /proc/self/fd. 0, or -1 with errno set (process.c). */
int jb_close_descriptors_from_three(void);
/* open(2) with a mode: open is variadic in C. */
int jb_open(const char *path, int flags, unsigned int mode);
/* O_DIRECT, which differs between architectures and which Glibc's Swift module hides. */
int jb_o_direct_flag(void);
/* On a crash signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) stores `value` in
   `flag` (a byte of a shared mapping), then lets the handler that was there before (or the
   default) handle it. 0, or -1 with errno set. */
int jb_mark_on_crash(volatile uint8_t *flag, uint8_t value);
/* pipe2(fds, O_CLOEXEC): close-on-exec from birth (pipe2 is GNU-only); 0 or -1 with errno. */
int jb_pipe_cloexec(int fds[2]);

/* pthread_cond_timedwait until `deadline`, or pthread_cond_wait when it is NULL. `guarded` is
   the state `mutex` guards: handing its address to a function Swift cannot see into makes
   Swift store what it changed there before the wait and load it again after. Without it,
   Swift takes an inout state as unchanged by a call that is not given it, and may move a
   store across the wait (where another thread reads the state). */
int jb_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *deadline, void *guarded);

/* Blocks SIGTERM, SIGINT and SIGHUP for this thread (and threads it creates later), ignores
   SIGPIPE, and returns a signalfd that becomes readable when one arrives; -1 with errno. */
int jb_termination_signalfd(void);
/* Reads one pending signal from a signalfd; returns its number, or -1 with errno set. */
int jb_read_signal(int fd);
/* mallopt(M_ARENA_MAX, n): at most n malloc arenas (malloc.h is not in Glibc's Swift module).
   Returns 1 on success, 0 on error. */
int jb_set_malloc_arena_max(int n);
/* mallopt(M_MMAP_THRESHOLD, bytes): allocations of at least `bytes` are mapped on their own and
   unmapped when freed; a fixed threshold also stops glibc from raising it. 1 on success. */
int jb_set_malloc_mmap_threshold(int bytes);
/* malloc_trim(0): gives the kernel back the free pages inside the heap, not only at its top.
   1 when some memory was released. */
int jb_malloc_trim(void);

#include "CLinuxShimsDisplay.h"
#include "CLinuxShimsSerialNet.h"
#include "UInputShims.h"
#include "CLinuxShimsCardReaders.h"

#endif

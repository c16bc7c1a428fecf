// vboard-gpio: drives the input lines of a gpio-sim chip on the virtual board on a schedule,
// as buttons and an encoder wired to a real chip would (make-image.sh builds it with the
// host's `cc -static`; a shell loop under TCG cannot keep a millisecond).
//   vboard-gpio CHIP_SYSFS_DIR [PCM_STATUS] AFTER_US LINE LEVEL...
// For each triple: waits until AFTER_US microseconds after the previous triple's due time (the
// first: after now; late writes catch up, so that a flick keeps its pace), or after the
// previous write when AFTER_US is 5000 or more (a hold: a stall must not squeeze a press below
// the debounce), then sets the line's simulated pull (LEVEL 1: pull-up, 0:
// pull-down) through CHIP_SYSFS_DIR/sim_gpioLINE/pull, which makes the edge that gpio-sim
// raises on its simulated interrupt. Prints one line per write: "LINE LEVEL NS" (CLOCK_MONOTONIC
// just before the write, the clock of the kernel's edge timestamps) and, given a PCM_STATUS
// (/proc/asound/cardN/pcmMc/sub0/status), its hw_ptr read just before: the frame a capture
// had reached at that moment. Runs at SCHED_FIFO priority 1 when it may: above the daemon, so
// that the schedule is kept, and below the kernel's interrupt threads (50), so that each edge's
// thread runs before the next write, as a GPIO interrupt's does on a board. (Above them, a
// write due after a stall of the emulated CPU came before the previous edge's thread and the
// uAPI v1 merged the two edges: a press and release 60 ms apart were lost.)
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static long long nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

// The hw_ptr line of an ALSA PCM's status file, or -1.
static long long hw_ptr(int fd) {
    char text[1024];
    ssize_t length = pread(fd, text, sizeof text - 1, 0);
    if (length <= 0) return -1;
    text[length] = 0;
    char *field = strstr(text, "hw_ptr");
    return field ? atoll(strchr(field, ':') + 1) : -1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: vboard-gpio CHIP_SYSFS_DIR [PCM_STATUS] AFTER_US LINE LEVEL...\n");
        return 2;
    }
    int first = 2, status = -1;
    if (argc > 2 && argv[2][0] == '/') {
        status = open(argv[2], O_RDONLY);
        if (status < 0) fail(argv[2]);
        first = 3;
    }
    if ((argc - first) % 3 != 0) {
        fprintf(stderr, "vboard-gpio: the schedule is AFTER_US LINE LEVEL triples\n");
        return 2;
    }
    int count = (argc - first) / 3;
    int *fds = calloc(count, sizeof *fds), *lines = calloc(count, sizeof *lines), *levels = calloc(count, sizeof *levels);
    long long *after = calloc(count, sizeof *after), *written = calloc(count, sizeof *written), *frames = calloc(count, sizeof *frames);
    for (int i = 0; i < count; i++) {
        after[i] = atoll(argv[first + 3 * i]);
        lines[i] = atoi(argv[first + 3 * i + 1]);
        levels[i] = atoi(argv[first + 3 * i + 2]);
        char path[512];
        snprintf(path, sizeof path, "%s/sim_gpio%d/pull", argv[1], lines[i]);
        fds[i] = open(path, O_RDWR);
        if (fds[i] < 0) fail(path);
        // The first write through a sysfs file allocates its buffer (~15 ms late under TCG):
        // done here with the line's current pull, which makes no edge.
        char current[16] = "";
        ssize_t length = pread(fds[i], current, sizeof current - 1, 0);
        if (length <= 0 || pwrite(fds[i], current, length, 0) < 0) fail(path);
    }
    struct sched_param priority = {.sched_priority = 1};
    sched_setscheduler(0, SCHED_FIFO, &priority);
    mlockall(MCL_CURRENT);
    long long due = nanoseconds();
    for (int i = 0; i < count; i++) {
        due = (i > 0 && after[i] >= 5000 ? written[i - 1] : due) + after[i] * 1000;
        struct timespec at = {.tv_sec = due / 1000000000, .tv_nsec = due % 1000000000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0) {}
        const char *word = levels[i] ? "pull-up" : "pull-down";
        frames[i] = status >= 0 ? hw_ptr(status) : -1;
        written[i] = nanoseconds();
        if (pwrite(fds[i], word, strlen(word), 0) < 0) fail("write pull");
    }
    for (int i = 0; i < count; i++) {
        if (status >= 0) printf("%d %d %lld %lld\n", lines[i], levels[i], written[i], frames[i]);
        else printf("%d %d %lld\n", lines[i], levels[i], written[i]);
    }
    return 0;
}

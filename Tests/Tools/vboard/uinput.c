// vboard-uinput: an input device on the virtual board made with uinput, standing for the
// kernel's gpio-keys and rotary-encoder drivers (or a USB card reader typing as a keyboard).
// busybox has no uinput tool; make-image.sh builds this with the host's `cc -static`.
//   vboard-uinput NAME FIFO key:CODE... rel:CODE...
// Creates the device (KEY_* and REL_* codes of linux/input-event-codes.h), prints its
// /dev/input/eventN and then emits "TYPE CODE VALUE" triples read from FIFO (each followed by
// a SYN_REPORT, as the drivers send them; "-1 0 MS" waits MS milliseconds, so that a press
// outlasts the daemon's debounce), printing each as "TYPE CODE VALUE NS", NS its time on
// CLOCK_MONOTONIC. The FIFO is made if missing and opened read-write, so writers may come
// and go; the device lives until the process is killed.
#include <dirent.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static void emit(int fd, int type, int code, int value) {
    struct input_event event = {.type = type, .code = code, .value = value};
    if (write(fd, &event, sizeof event) != sizeof event) fail("write /dev/uinput");
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: vboard-uinput NAME FIFO key:CODE|rel:CODE...\n");
        return 2;
    }
    int fd = open("/dev/uinput", O_WRONLY);
    if (fd < 0) fail("/dev/uinput");
    for (int i = 3; i < argc; i++) {
        int code = atoi(argv[i] + 4);
        if (strncmp(argv[i], "key:", 4) == 0) {
            if (ioctl(fd, UI_SET_EVBIT, EV_KEY) < 0 || ioctl(fd, UI_SET_KEYBIT, code) < 0) fail("UI_SET_KEYBIT");
        } else if (strncmp(argv[i], "rel:", 4) == 0) {
            if (ioctl(fd, UI_SET_EVBIT, EV_REL) < 0 || ioctl(fd, UI_SET_RELBIT, code) < 0) fail("UI_SET_RELBIT");
        } else {
            fprintf(stderr, "vboard-uinput: %s is neither key:CODE nor rel:CODE\n", argv[i]);
            return 2;
        }
    }
    struct uinput_setup setup = {.id = {.bustype = BUS_HOST, .vendor = 0x1, .product = 0x1}};
    snprintf(setup.name, sizeof setup.name, "%s", argv[1]);
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) fail("UI_DEV_CREATE");
    char sysname[64] = "";
    if (ioctl(fd, UI_GET_SYSNAME(sizeof sysname), sysname) < 0) fail("UI_GET_SYSNAME");
    // The event node: the eventN folder under the device's sysfs folder, once devtmpfs has it.
    char folder[128], node[160] = "";
    snprintf(folder, sizeof folder, "/sys/devices/virtual/input/%s", sysname);
    for (int tries = 0; tries < 200 && node[0] == 0; tries++) {
        DIR *dir = opendir(folder);
        struct dirent *entry;
        struct stat info;
        while (dir && (entry = readdir(dir)))
            if (strncmp(entry->d_name, "event", 5) == 0) {
                snprintf(node, sizeof node, "/dev/input/%s", entry->d_name);
                if (stat(node, &info) != 0) node[0] = 0;
            }
        if (dir) closedir(dir);
        if (node[0] == 0) usleep(10000);
    }
    if (node[0] == 0) fail("no event node");
    printf("%s\n", node);
    fflush(stdout);
    if (mkfifo(argv[2], 0600) != 0 && access(argv[2], F_OK) != 0) fail(argv[2]);
    FILE *commands = fopen(argv[2], "r+");
    if (!commands) fail(argv[2]);
    int type, code, value;
    while (fscanf(commands, "%d %d %d", &type, &code, &value) == 3) {
        if (type < 0) {
            usleep(value * 1000);
            continue;
        }
        // The event's time on the guest's CLOCK_MONOTONIC (the kernel stamps it within this
        // write): where a latency starts, without the shell's hop to this process.
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        emit(fd, type, code, value);
        emit(fd, EV_SYN, SYN_REPORT, 0);
        printf("%d %d %d %lld\n", type, code, value, (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
        fflush(stdout);
    }
    return 0;
}

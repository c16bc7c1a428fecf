#define _GNU_SOURCE
#include "UInputShims.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int jb_uinput_create(const char *name, const int *keys, int key_count) {
    int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    int ok = ioctl(fd, UI_SET_EVBIT, EV_KEY) == 0 && ioctl(fd, UI_SET_EVBIT, EV_REL) == 0 &&
             ioctl(fd, UI_SET_RELBIT, REL_X) == 0;
    for (int i = 0; ok && i < key_count; i++) ok = ioctl(fd, UI_SET_KEYBIT, keys[i]) == 0;
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = 0x4a42;
    setup.id.product = 0x0001;
    strncpy(setup.name, name, UINPUT_MAX_NAME_SIZE - 1);
    ok = ok && ioctl(fd, UI_DEV_SETUP, &setup) == 0 && ioctl(fd, UI_DEV_CREATE) == 0;
    if (!ok) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int jb_uinput_emit(int fd, int type, int code, int value) {
    struct input_event event;
    memset(&event, 0, sizeof event);
    event.type = (unsigned short)type;
    event.code = (unsigned short)code;
    event.value = value;
    return write(fd, &event, sizeof event) == (ssize_t)sizeof event ? 0 : -1;
}

int jb_uinput_sysname(int fd, char *buffer, int length) {
    return ioctl(fd, UI_GET_SYSNAME(length), buffer) < 0 ? -1 : 0;
}

void jb_uinput_destroy(int fd) { ioctl(fd, UI_DEV_DESTROY); }

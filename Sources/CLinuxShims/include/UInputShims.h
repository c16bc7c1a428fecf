#ifndef JUKEBOX_UINPUT_SHIMS_H
#define JUKEBOX_UINPUT_SHIMS_H
/* uinput (a virtual input device made by user space), for tests of the input-event source.
   The calls are ioctls, which Swift cannot call (variadic). */

/* Opens /dev/uinput and creates a device named `name` sending EV_KEY for `keys` and EV_REL
   REL_X. Returns its fd, or -1 with errno set. */
int jb_uinput_create(const char *name, const int *keys, int key_count);
/* Writes one input event (type, code, value) to a uinput fd; 0, or -1 with errno set. */
int jb_uinput_emit(int fd, int type, int code, int value);
/* The device's sysfs name (e.g. "input7"), written to `buffer`; 0, or -1 with errno set. */
int jb_uinput_sysname(int fd, char *buffer, int length);
/* Destroys the device; the caller closes the fd. */
void jb_uinput_destroy(int fd);

#endif

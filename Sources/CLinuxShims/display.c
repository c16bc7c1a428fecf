#define _GNU_SOURCE
#include "CLinuxShimsDisplay.h"
#include <errno.h>
#include <linux/fb.h>
#include <linux/i2c-dev.h>
#include <string.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <termios.h>
#include <fcntl.h>
#include <unistd.h>

int jb_fb_get_info(int fd, struct jb_fb_info *info) {
    struct fb_var_screeninfo var;
    struct fb_fix_screeninfo fix;
    memset(&var, 0, sizeof var);
    memset(&fix, 0, sizeof fix);
    if (ioctl(fd, FBIOGET_VSCREENINFO, &var) < 0) return -1;
    if (ioctl(fd, FBIOGET_FSCREENINFO, &fix) < 0) return -1;
    info->xres = var.xres;
    info->yres = var.yres;
    info->xres_virtual = var.xres_virtual;
    info->yres_virtual = var.yres_virtual;
    info->xoffset = var.xoffset;
    info->yoffset = var.yoffset;
    info->bits_per_pixel = var.bits_per_pixel;
    info->line_length = fix.line_length;
    info->smem_len = fix.smem_len;
    info->red_offset = var.red.offset;
    info->red_length = var.red.length;
    info->green_offset = var.green.offset;
    info->green_length = var.green.length;
    info->blue_offset = var.blue.offset;
    info->blue_length = var.blue.length;
    return 0;
}

int jb_i2c_set_address(int fd, int address) { return ioctl(fd, I2C_SLAVE, address); }

static speed_t jb_speed(int baud) {
    switch (baud) {
    case 1200: return B1200;
    case 2400: return B2400;
    case 4800: return B4800;
    case 9600: return B9600;
    case 19200: return B19200;
    case 38400: return B38400;
    case 57600: return B57600;
    case 115200: return B115200;
    case 230400: return B230400;
    default: return B9600;
    }
}

int jb_display_tty_raw(int fd, int baud) {
    struct termios t;
    if (tcgetattr(fd, &t) < 0) return -1;
    cfmakeraw(&t);
    t.c_cflag |= CLOCAL | CREAD;
    t.c_cflag &= ~(CSTOPB | CRTSCTS);
    cfsetispeed(&t, jb_speed(baud));
    cfsetospeed(&t, jb_speed(baud));
    return tcsetattr(fd, TCSANOW, &t);
}

#define _GNU_SOURCE
#include "CLinuxShimsDisplay.h"
#include <errno.h>
#include <linux/fb.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
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

int jb_i2c_functions(int fd, int *plain, int *smbus_send_byte) {
    unsigned long functions = 0;
    if (ioctl(fd, I2C_FUNCS, &functions) < 0) return -1;
    *plain = (functions & I2C_FUNC_I2C) != 0;
    *smbus_send_byte = (functions & I2C_FUNC_SMBUS_WRITE_BYTE) != 0;
    return 0;
}

int jb_i2c_smbus_send_byte(int fd, uint8_t value) {
    struct i2c_smbus_ioctl_data request = {
        .read_write = I2C_SMBUS_WRITE, .command = value, .size = I2C_SMBUS_BYTE, .data = NULL};
    return ioctl(fd, I2C_SMBUS, &request);
}

#ifndef JUKEBOX_CLINUXSHIMS_DISPLAY_H
#define JUKEBOX_CLINUXSHIMS_DISPLAY_H
/* Display ioctls (framebuffer, I2C) and serial setup for the display drivers. */
#include <stdint.h>

/* What FBIOGET_VSCREENINFO and FBIOGET_FSCREENINFO report, flattened. */
struct jb_fb_info {
    uint32_t xres, yres, xres_virtual, yres_virtual, xoffset, yoffset;
    uint32_t bits_per_pixel, line_length, smem_len;
    uint32_t red_offset, red_length, green_offset, green_length, blue_offset, blue_length;
};
/* Reads a framebuffer's geometry; 0, or -1 with errno set. */
int jb_fb_get_info(int fd, struct jb_fb_info *info);
/* ioctl(fd, I2C_SLAVE, address); 0, or -1 with errno set. */
int jb_i2c_set_address(int fd, int address);
#endif

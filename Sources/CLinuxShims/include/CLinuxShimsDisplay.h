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
/* ioctl(fd, I2C_FUNCS): whether the adapter does plain I2C transfers (I2C_FUNC_I2C) and SMBus
   "send byte" writes (I2C_FUNC_SMBUS_WRITE_BYTE); 0, or -1 with errno set. */
int jb_i2c_functions(int fd, int *plain, int *smbus_send_byte);
/* One SMBus "send byte" (ioctl I2C_SMBUS, I2C_SMBUS_BYTE): `value` alone after the address,
   as a one-byte plain write puts it on the wire; 0, or -1 with errno set. */
int jb_i2c_smbus_send_byte(int fd, uint8_t value);
#endif

#ifndef JUKEBOX_CLINUXSHIMS_CARD_READERS_H
#define JUKEBOX_CLINUXSHIMS_CARD_READERS_H
/* ioctls of the card readers: an evdev grab, spidev setup and transfers. */
#include <stdint.h>

/* ioctl(fd, EVIOCGRAB, on): with 1 no other reader of the device gets its events;
   0, or -1 with errno set. */
int jb_evdev_grab(int fd, int on);
/* Sets an spidev's mode (SPI_IOC_WR_MODE), word size (8 bits) and maximum speed;
   0, or -1 with errno set. */
int jb_spi_configure(int fd, uint8_t mode, uint32_t speed_hz);
/* One full-duplex transfer of `length` bytes (SPI_IOC_MESSAGE(1)); the number of bytes,
   or -1 with errno set. */
int jb_spi_transfer(int fd, const uint8_t *tx, uint8_t *rx, uint32_t length, uint32_t speed_hz);
#endif

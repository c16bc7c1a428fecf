#include "CLinuxShimsCardReaders.h"

#include <linux/input.h>
#include <linux/spi/spidev.h>
#include <string.h>
#include <sys/ioctl.h>

int jb_evdev_grab(int fd, int on) { return ioctl(fd, EVIOCGRAB, on); }

int jb_spi_configure(int fd, uint8_t mode, uint32_t speed_hz) {
    uint8_t bits = 8;
    if (ioctl(fd, SPI_IOC_WR_MODE, &mode) < 0) return -1;
    if (ioctl(fd, SPI_IOC_WR_BITS_PER_WORD, &bits) < 0) return -1;
    return ioctl(fd, SPI_IOC_WR_MAX_SPEED_HZ, &speed_hz);
}

int jb_spi_transfer(int fd, const uint8_t *tx, uint8_t *rx, uint32_t length, uint32_t speed_hz) {
    struct spi_ioc_transfer transfer;
    memset(&transfer, 0, sizeof transfer);
    transfer.tx_buf = (unsigned long)tx;
    transfer.rx_buf = (unsigned long)rx;
    transfer.len = length;
    transfer.speed_hz = speed_hz;
    transfer.bits_per_word = 8;
    return ioctl(fd, SPI_IOC_MESSAGE(1), &transfer);
}
